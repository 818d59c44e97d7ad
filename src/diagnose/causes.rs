//! Root causes and the summary: the findings of a finished Report folded by the object to fix,
//! so that one broken L2Advertisement is one line, not a finding per Service. Run again after
//! suppressions move findings out.

use std::collections::BTreeMap;

use crate::k8s::EXCLUDE_LB_LABEL;
use crate::report::{Cause, Code, Finding, ObjectRef, Report, ServiceReport, Severity, SeverityCounts, Summary};

/// The findings that are a Service's layer-2 causes; its LBD101 ("nobody answers") is their effect
/// (docs/findings/README.md).
const L2_CAUSES: &[Code] = &[Code::LBD102, Code::LBD103, Code::LBD104];

/// Fills `causes` and `summary` from the findings the report holds now.
pub fn conclude(report: &mut Report) {
    report.causes = causes(report);
    report.summary = summary(report);
}

fn summary(report: &Report) -> Summary {
    let mut by_status = BTreeMap::new();
    for s in &report.services {
        *by_status.entry(s.status.as_str()).or_default() += 1;
    }
    let mut findings = SeverityCounts::default();
    for f in report.all_findings() {
        match f.severity {
            Severity::Error => findings.error += 1,
            Severity::Warning => findings.warning += 1,
            Severity::Info => findings.info += 1,
        }
    }
    Summary {
        services: report.services.len(),
        by_status,
        findings,
        suppressed: report.all_suppressed().count(),
        causes: report.causes.len(),
    }
}

/// The object to fix: the first one a finding names other than its own Service, else the Service.
fn causing_object<'a>(f: &'a Finding, own: Option<&ObjectRef>) -> Option<&'a ObjectRef> {
    f.objects.iter().find(|o| Some(*o) != own && o.kind != "Service").or(f.objects.first())
}

struct Group<'a> {
    code: Code,
    object: ObjectRef,
    /// The cluster-level finding the group hangs off, when there is one.
    root: Option<&'a Finding>,
    findings: Vec<(&'a Finding, Option<&'a ServiceReport>)>,
    codes: Vec<Code>,
}

fn causes(report: &Report) -> Vec<Cause> {
    let mut groups: Vec<Group> = Vec::new();
    let mut index: BTreeMap<(Option<Code>, String), usize> = BTreeMap::new();
    // Cluster-level findings first: Service findings naming the same object join them.
    for f in &report.findings {
        let Some(object) = causing_object(f, None) else { continue };
        let key = (None, object.to_string());
        if let Some(&i) = index.get(&key) {
            groups[i].findings.push((f, None));
            groups[i].codes.push(f.code);
            continue;
        }
        index.insert(key, groups.len());
        groups.push(Group {
            code: f.code,
            object: object.clone(),
            root: Some(f),
            findings: vec![(f, None)],
            codes: vec![f.code],
        });
    }
    for s in &report.services {
        let own = ObjectRef::new("Service", &s.namespace, &s.name);
        let has_l2_cause = s.findings.iter().any(|f| L2_CAUSES.contains(&f.code));
        for f in &s.findings {
            if f.code == Code::LBD101 && has_l2_cause {
                continue;
            }
            let Some(object) = causing_object(f, Some(&own)) else { continue };
            let text = object.to_string();
            let i = match index.get(&(None, text.clone())).or_else(|| index.get(&(Some(f.code), text.clone()))) {
                Some(&i) => i,
                None => {
                    index.insert((Some(f.code), text), groups.len());
                    groups.push(Group {
                        code: f.code,
                        object: object.clone(),
                        root: None,
                        findings: vec![],
                        codes: vec![],
                    });
                    groups.len() - 1
                }
            };
            groups[i].findings.push((f, Some(s)));
            groups[i].codes.push(f.code);
            if has_l2_cause && L2_CAUSES.contains(&f.code) {
                groups[i].codes.push(Code::LBD101);
            }
        }
    }
    let mut out: Vec<Cause> = groups.into_iter().map(cause).collect();
    out.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(b.services.len().cmp(&a.services.len()))
            .then(a.code.cmp(&b.code))
            .then(a.object.cmp(&b.object))
    });
    out
}

fn cause(g: Group) -> Cause {
    let severity = g.findings.iter().map(|(f, _)| f.severity).max().unwrap_or(Severity::Info);
    let mut services: Vec<String> =
        g.findings.iter().filter_map(|(_, s)| s.map(|s| format!("{}/{}", s.namespace, s.name))).collect();
    services.sort();
    services.dedup();
    let first = g.root.or(g.findings.first().map(|(f, _)| *f));
    let message = match g.root {
        Some(root) => root.message.clone(),
        None => common_message(&g.findings).unwrap_or_else(|| g.code.title().to_string()),
    };
    let mut codes = g.codes;
    codes.sort();
    codes.dedup();
    Cause {
        code: g.code,
        severity,
        fix: fix(g.code, &g.object, &services),
        object: g.object,
        message,
        hint: first.map(|f| f.hint.clone()).unwrap_or_default(),
        services,
        codes,
    }
}

/// The findings' message when it is the same for every Service once each one's own IPs are
/// written as "its IP".
fn common_message(findings: &[(&Finding, Option<&ServiceReport>)]) -> Option<String> {
    let normalised = |(f, s): &(&Finding, Option<&ServiceReport>)| {
        let mut text = f.message.clone();
        if findings.len() > 1 {
            for ip in s.iter().flat_map(|s| &s.ips) {
                text = text.replace(ip.as_str(), "its IP");
            }
        }
        text
    };
    let first = normalised(findings.first()?);
    findings.iter().skip(1).all(|f| normalised(f) == first).then_some(first)
}

/// The command that starts the fix, with the real names.
fn fix(code: Code, object: &ObjectRef, services: &[String]) -> String {
    let ns = object.namespace.as_deref();
    let name = &object.name;
    let in_ns = |verb: &str, resource: &str| match ns {
        Some(ns) => format!("kubectl -n {ns} {verb} {resource} {name}"),
        None => format!("kubectl {verb} {resource} {name}"),
    };
    match object.kind {
        "Node" if code == Code::LBD102 => format!("kubectl label node {name} {EXCLUDE_LB_LABEL}-"),
        "Node" => match services.first() {
            Some(svc) => explain(svc),
            None => format!("kubectl describe node {name}"),
        },
        "Service" => explain(&format!("{}/{name}", ns.unwrap_or("default"))),
        "Lease" => format!("{} -o yaml", in_ns("get", "lease")),
        "" => format!("kubectl auth can-i list {name}"),
        kind if kind.is_empty() || kind.contains('/') => format!("kubectl get {kind}"),
        kind => in_ns("edit", &kind.to_ascii_lowercase()),
    }
}

fn explain(key: &str) -> String {
    match key.split_once('/') {
        Some((ns, name)) => format!("kubectl lbdoctor explain svc {name} -n {ns}"),
        None => format!("kubectl lbdoctor explain svc {key}"),
    }
}
