//! `check -o junit`: one testcase per finding code × object, so CI dashboards list each problem.
//! A Service without findings is one passing testcase; a finding below `--fail-on` passes with
//! its message in system-out; a suppressed one is skipped with its reason.

use std::io::Write;

use quick_junit::{NonSuccessKind, Report as JunitReport, TestCase, TestCaseStatus, TestSuite};

use super::CiOptions;
use crate::report::{Finding, ObjectRef, Report, Suppressed};

pub fn render(out: &mut dyn Write, report: &Report, ci: &CiOptions) -> std::io::Result<()> {
    let mut junit = JunitReport::new("kubectl-lbdoctor check");

    let mut cluster = TestSuite::new("cluster");
    cluster.add_test_cases(cases("cluster", &report.findings, &report.suppressed, ci));
    if cluster.test_cases.is_empty() {
        let mut case = TestCase::new("configuration checks", TestCaseStatus::success());
        case.set_classname("cluster");
        cluster.add_test_case(case);
    }
    junit.add_test_suite(cluster);

    let mut services = TestSuite::new("services");
    for s in &report.services {
        let object = ObjectRef::new("Service", s.namespace.as_str(), s.name.as_str()).to_string();
        let found = cases(&object, &s.findings, &s.suppressed, ci);
        if found.is_empty() {
            let mut case = TestCase::new("no findings", TestCaseStatus::success());
            case.set_classname(object);
            services.add_test_case(case);
        } else {
            services.add_test_cases(found);
        }
    }
    junit.add_test_suite(services);

    junit.serialize(&mut *out).map_err(std::io::Error::other)?;
    writeln!(out)
}

fn cases(classname: &str, findings: &[Finding], suppressed: &[Suppressed], ci: &CiOptions) -> Vec<TestCase> {
    let mut cases = Vec::new();
    for f in findings {
        let failing = ci.threshold.is_some_and(|t| f.severity >= t);
        let status = if failing {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(f.message.as_str())
                .set_type(format!("{} {}", f.code, f.severity.as_str()))
                .set_description(body(f));
            s
        } else {
            TestCaseStatus::success()
        };
        let mut case = TestCase::new(name(f), status);
        case.set_classname(case_classname(classname, f));
        if !failing {
            case.set_system_out(format!("{}: {}", f.severity.as_str(), body(f)));
        }
        cases.push(case);
    }
    for s in suppressed {
        let f = &s.finding;
        let mut status = TestCaseStatus::skipped();
        status.set_message(format!("suppressed by {}: {}", s.suppression.source, s.suppression.reason));
        status.set_description(body(f));
        let mut case = TestCase::new(name(f), status);
        case.set_classname(case_classname(classname, f));
        cases.push(case);
    }
    cases
}

/// Cluster findings are grouped by the object they name first, Services by the Service.
fn case_classname(classname: &str, f: &Finding) -> String {
    match (classname, f.objects.first()) {
        ("cluster", Some(object)) => object.to_string(),
        _ => classname.to_string(),
    }
}

fn name(f: &Finding) -> String {
    format!("{}: {}", f.code, f.code.title())
}

fn body(f: &Finding) -> String {
    format!(
        "{}\nhint: {}\nobjects: {}\nmore: kubectl lbdoctor explain finding {}",
        f.message,
        f.hint,
        ObjectRef::join(&f.objects, ", "),
        f.code
    )
}
