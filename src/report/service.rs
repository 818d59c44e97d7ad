//! One Service's part of the Report: who owns it, its allocation and its findings.

use compact_str::CompactString;
use serde::Serialize;

use super::{AllocationStatus, CiliumService, Event, Finding, Implementation, MetallbService, Suppressed};

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceReport {
    pub namespace: CompactString,
    pub name: CompactString,
    #[serde(rename = "type")]
    pub type_: CompactString,
    /// As written in the spec; `null` when unset (MetalLB then behaves as for `Cluster`).
    pub external_traffic_policy: Option<CompactString>,
    pub load_balancer_class: Option<CompactString>,
    pub implementation: Implementation,
    /// The one-word verdict the table's STATUS column prints (diagnose decides it, once).
    pub status: ServiceStatus,
    /// Who answers for the IPs, as the table's ANNOUNCER column: a node, `<none>`, `bgp:N nodes`,
    /// `l2-lease:…`, or `-` where no implementation announces.
    pub announcer: CompactString,
    /// Who the cluster says answers (ServiceL2Status, Events, ServiceBGPStatus, Leases), as the
    /// OBSERVED column; `?` when the snapshot does not say.
    pub observed: CompactString,
    /// Who would write this Service's status, and who did.
    pub ownership: Ownership,
    pub ips: Box<[CompactString]>,
    /// MetalLB's controller replayed; `null` when MetalLB is absent or its configuration unknown.
    pub allocation: Option<Allocation>,
    pub metallb: Option<MetallbService>,
    /// Boxed: a MetalLB cluster's 10,000 reports would otherwise each carry its 1 KB of `None`.
    pub cilium: Option<Box<CiliumService>>,
    /// k3s ServiceLB's view; `null` unless ServiceLB runs and handles the Service.
    /// Boxed as `cilium`: ServiceLB handles few Services, if any.
    pub servicelb: Option<Box<super::servicelb::Verdict>>,
    pub findings: Vec<Finding>,
    /// This Service's findings that `check --ignore` or `.lbdoctor.yaml` suppressed.
    pub suppressed: Vec<Suppressed>,
}

impl ServiceReport {
    /// The codes of its findings, then its suppressed ones in parentheses: what the tables'
    /// FINDINGS column shows, sorts and filters by.
    pub fn finding_codes(&self) -> Vec<String> {
        self.findings
            .iter()
            .map(|f| f.code.to_string())
            .chain(self.suppressed.iter().map(|s| format!("({})", s.finding.code)))
            .collect()
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ownership {
    /// Implementations whose rules make them write this Service's status, in a fixed order.
    pub claimants: Box<[Implementation]>,
    /// Field managers that wrote `status` (managedFields, subresource `status`), oldest first.
    pub status_writers: Box<[StatusWriter]>,
    /// Annotations and conditions that name an implementation. Shared by the reports with the
    /// same list.
    pub evidence: std::sync::Arc<[String]>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusWriter {
    pub manager: String,
    /// The implementation the manager name belongs to; `null` when not recognised.
    pub implementation: Option<Implementation>,
    pub time: Option<String>,
}

/// What MetalLB's controller does with a Service (DESIGN §4).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Allocation {
    pub status: AllocationStatus,
    pub pool: Option<CompactString>,
    #[serde(rename = "expectedIPs")]
    pub expected_ips: Option<Box<[CompactString]>>,
    pub possible_outcomes: Option<Box<[PossibleOutcome]>>,
    /// A stable code for the outcome (docs/json.md lists them).
    pub reason: &'static str,
    /// Boxed, as `controllerLog`: most Services have neither, and 10,000 reports each carried
    /// their 104 bytes of `None`.
    pub metallb_event: Option<Box<Event>>,
    /// Every Event of that pass, in order.
    pub events: Box<[Event]>,
    pub detail: Box<str>,
    /// For a Service with no IP in the snapshot: the last allocation failure MetalLB's
    /// controller logged for it (a bundle's `controller.log`); `null` without one.
    pub controller_log: Option<Box<LoggedFailure>>,
}

/// An allocation MetalLB's controller logged as failed: `IP allocation failed` with its error,
/// told apart by the ServiceReconciler's `failed to handle service` line that names the Service
/// (the allocation line itself does not).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoggedFailure {
    /// `ts` of the failure line, as written.
    pub at: Option<String>,
    pub error: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct PossibleOutcome {
    pub pool: String,
    pub ips: Vec<String>,
}

/// What is wrong with a Service, in one word. Suppressed findings count: a suppression changes
/// the exit status, not the facts (a dark IP whose LBD101 is ignored is still dark).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServiceStatus {
    /// Announced (or handed out) as the rules say, and the records agree.
    Ok,
    /// An IP nobody answers for.
    Dark,
    /// No IP yet, and the implementation cannot give one.
    Pending,
    /// Two implementations would write the Service's status.
    Conflict,
    /// Another error-level finding.
    Error,
    /// No installed implementation handles it.
    Unowned,
    /// Handled by something other than the implementations lbdoctor replays.
    NotMetallb,
    /// MetalLB's configuration is rejected, so its answer is unknown.
    Unknown,
    /// The speakers withdraw it before any protocol runs (`withdrawReason`).
    Withdrawn,
    /// The node that announces is not the one the election picks.
    Mismatch,
    /// MetalLB's controller replaces the IP it holds at its next sync.
    Reassign,
}

impl ServiceStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ServiceStatus::Ok => "ok",
            ServiceStatus::Dark => "dark",
            ServiceStatus::Pending => "pending",
            ServiceStatus::Conflict => "conflict",
            ServiceStatus::Error => "error",
            ServiceStatus::Unowned => "unowned",
            ServiceStatus::NotMetallb => "not-metallb",
            ServiceStatus::Unknown => "unknown",
            ServiceStatus::Withdrawn => "withdrawn",
            ServiceStatus::Mismatch => "mismatch",
            ServiceStatus::Reassign => "reassign",
        }
    }
}
