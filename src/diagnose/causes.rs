//! Root causes and the summary: the findings of a finished Report folded by the object to fix,
//! so that one broken L2Advertisement is one line, not a finding per Service. Run again after
//! suppressions move findings out.

use compact_str::CompactString;
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
        let own = ObjectRef::new("Service", s.namespace.as_str(), s.name.as_str());
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
    let normalised = |(f, s): &(&Finding, Option<&ServiceReport>)| match s.map(|s| &*s.ips) {
        Some(ips) if findings.len() > 1 && !ips.is_empty() => its_ip(&f.message, ips),
        _ => f.message.clone(),
    };
    let first = normalised(findings.first()?);
    findings.iter().skip(1).all(|f| normalised(f) == first).then_some(first)
}

/// `text` with every whole address of `ips` written as "its IP", in one pass: a message may list
/// a Service's thousand addresses, and 192.0.2.1 must not match the start of 192.0.2.10.
fn its_ip(text: &str, ips: &[CompactString]) -> String {
    // Most Services have one or two addresses: a set pays off only for many.
    let many: Option<std::collections::HashSet<&str>> =
        (ips.len() > 8).then(|| ips.iter().map(CompactString::as_str).collect());
    let is_own = |ip: &str| match &many {
        Some(set) => set.contains(ip),
        None => ips.iter().any(|own| own == ip),
    };
    let address_char = |c: char| c.is_ascii_hexdigit() || c == '.' || c == ':';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(address_char) {
        out.push_str(&rest[..start]);
        let token_len = rest[start..].find(|c: char| !address_char(c)).unwrap_or(rest.len() - start);
        let token = &rest[start..start + token_len];
        // A sentence may end right after an address: "… 192.0.2.1."
        let bare = token.trim_end_matches(['.', ':']);
        if is_own(bare) {
            out.push_str("its IP");
            out.push_str(&token[bare.len()..]);
        } else {
            out.push_str(token);
        }
        rest = &rest[start + token_len..];
    }
    out.push_str(rest);
    out
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
        // Release findings: the answer to compare, the rollout, or the images to read.
        _ if code == Code::LBD107 && !services.is_empty() => explain(&services[0]),
        "Pod" if code == Code::LBD216 => {
            format!("kubectl -n {} rollout status daemonset/speaker", ns.unwrap_or("metallb-system"))
        }
        "Namespace" if code == Code::LBD209 => format!("kubectl -n {name} get addresspools.metallb.io -o yaml"),
        "Namespace" if code == Code::LBD219 => {
            format!("kubectl -n {name} logs -l component=controller | grep 'not compatible with assigned IPs'")
        }
        "ConfigMap" if code == Code::LBD218 => format!("{} -o yaml", in_ns("get", "configmap")),
        "Namespace" if code == Code::LBD217 => format!(
            "kubectl -n {name} get daemonsets,deployments -o custom-columns=NAME:.metadata.name,IMAGE:.spec.template.spec.containers[*].image"
        ),
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

#[cfg(test)]
mod its_ip_tests {
    #[test]
    fn whole_addresses_only_in_one_pass() {
        let text = "192.0.2.1 and 192.0.2.10, 2001:db8::1 not 2001:db8::10; ends 192.0.2.1.";
        let want = "its IP and 192.0.2.10, its IP not 2001:db8::10; ends its IP.";
        let few: Vec<compact_str::CompactString> = vec!["192.0.2.1".into(), "2001:db8::1".into()];
        assert_eq!(super::its_ip(text, &few), want);
        assert_eq!(super::its_ip("no address", &few), "no address");
        // Past eight addresses they are looked up in a set: the same answer.
        let many: Vec<compact_str::CompactString> =
            few.iter().cloned().chain((20..40).map(|i| compact_str::format_compact!("198.51.100.{i}"))).collect();
        assert_eq!(super::its_ip(text, &many), want);
    }
}
