//! Each Service's one-word status, decided here once: the table prints it, the JSON carries it.

use crate::report::{AllocationStatus, Code, Finding, Implementation, ServiceReport, ServiceStatus, Severity};

/// What is wrong with the Service, suppressed findings included: a suppression changes the exit
/// status, not the facts (a dark IP whose LBD101 is ignored is still dark).
pub(crate) fn of(svc: &ServiceReport) -> ServiceStatus {
    if svc.ownership.claimants.len() > 1 {
        return ServiceStatus::Conflict;
    }
    let findings: Vec<&Finding> = svc.findings.iter().chain(svc.suppressed.iter().map(|s| &s.finding)).collect();
    let Some(m) = &svc.metallb else {
        let error = findings.iter().any(|f| f.severity == Severity::Error);
        return if error && svc.ips.is_empty() {
            ServiceStatus::Pending
        } else if findings.iter().any(|f| {
            matches!(f.code, Code::LBD140 | Code::LBD141 | Code::LBD142 | Code::LBD146)
                || (f.code == Code::LBD143 && f.severity == Severity::Error)
        }) {
            ServiceStatus::Dark
        } else if error {
            ServiceStatus::Error
        } else if svc.implementation == Implementation::None {
            ServiceStatus::Unowned
        } else if svc.cilium.is_some() || svc.servicelb.is_some() {
            ServiceStatus::Ok
        } else {
            ServiceStatus::NotMetallb
        };
    };
    if m.unknown_because.is_some() {
        return ServiceStatus::Unknown;
    }
    let allocation = svc.allocation.as_ref().map(|a| a.status);
    if allocation == Some(AllocationStatus::Pending) {
        return ServiceStatus::Pending;
    }
    if m.withdraw_reason.is_some() {
        return ServiceStatus::Withdrawn;
    }
    if findings.iter().any(|f| f.code == Code::LBD101 || f.code == Code::LBD130) {
        return ServiceStatus::Dark;
    }
    if findings.iter().any(|f| f.severity == Severity::Error) {
        return ServiceStatus::Error;
    }
    if findings.iter().any(|f| f.code == Code::LBD105) {
        return ServiceStatus::Mismatch;
    }
    if allocation == Some(AllocationStatus::Mismatch) {
        return ServiceStatus::Reassign;
    }
    ServiceStatus::Ok
}
