//! Rendered tables of the demo snapshots, reviewed by a person: any change to them is deliberate.

use assert_cmd::Command;

fn table(args: &[&str]) -> String {
    let out = Command::cargo_bin("kubectl-lbdoctor").unwrap().env_remove("NO_COLOR").args(args).output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn check_homelab() {
    insta::assert_snapshot!(table(&["check", "--from", "testdata/clusters/homelab.yaml"]));
}

#[test]
fn explain_local_service() {
    insta::assert_snapshot!(table(&[
        "explain",
        "svc",
        "traefik",
        "-n",
        "default",
        "--from",
        "testdata/clusters/homelab.yaml"
    ]));
}

#[test]
fn explain_trapped_service() {
    insta::assert_snapshot!(table(&[
        "explain",
        "svc",
        "jellyfin",
        "-n",
        "media",
        "--from",
        "testdata/clusters/homelab-trap.yaml"
    ]));
}

#[test]
fn explain_all_wide() {
    insta::assert_snapshot!(table(&["explain", "svc", "-A", "-o", "wide", "--from", "testdata/clusters/homelab.yaml"]));
}

#[test]
fn explain_bgp_service() {
    insta::assert_snapshot!(table(&["explain", "svc", "web", "--from", "testdata/scenarios/bgp-two-routers.yaml"]));
}

#[test]
fn explain_cilium_l2_service() {
    insta::assert_snapshot!(table(&[
        "explain",
        "svc",
        "web",
        "--from",
        "testdata/scenarios/cilium-l2-holder-agent-lost.yaml"
    ]));
}

#[test]
fn explain_two_claimants() {
    insta::assert_snapshot!(table(&[
        "explain",
        "svc",
        "web",
        "--from",
        "testdata/scenarios/k3s-servicelb-and-cilium-nodeipam.yaml"
    ]));
}

#[test]
fn check_node_ipam_dual_stack() {
    insta::assert_snapshot!(table(&["check", "--from", "testdata/scenarios/cilium-nodeipam-dual-stack.yaml"]));
}
