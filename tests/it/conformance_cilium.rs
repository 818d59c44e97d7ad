//! Conformance with Cilium's Node IPAM unit tests (and the vectors derived from its code),
//! recorded as JSON in `../shared/vectors/cilium-nodeipam.json` (or `$LBDOCTOR_VECTORS`).

use k8s_openapi::api::core::v1::Node;
use lbdoctor::cilium::nodeipam::{self, Input, Outcome};
use lbdoctor::snapshot::Service;
use serde_json::{json, Value};

use crate::util;

fn vectors() -> Vec<Value> {
    util::vectors("cilium-nodeipam.json")
}

const DELETED_AT: &str = "2026-01-01T00:00:00Z";

fn node(v: &Value) -> Node {
    let taints: Vec<Value> =
        v["taints"].as_array().into_iter().flatten().map(|t| json!({"key": t["key"], "effect": t.get("effect").cloned().unwrap_or(json!("NoSchedule")), "value": t.get("value")})).collect();
    serde_json::from_value(json!({
        "metadata": {
            "name": v["name"],
            "labels": v["labels"],
            "deletionTimestamp": if v["deleting"].as_bool() == Some(true) { json!(DELETED_AT) } else { Value::Null },
        },
        "spec": {"taints": taints, "unschedulable": v.get("unschedulable")},
        "status": {"addresses": v["addresses"], "conditions": v.get("conditions")},
    }))
    .unwrap()
}

fn service(v: &Value) -> Service {
    let ingress: Vec<Value> = v["statusIngress"].as_array().into_iter().flatten().map(|ip| json!({"ip": ip})).collect();
    serde_json::from_value(json!({
        "metadata": {
            "namespace": v["namespace"], "name": v["name"], "annotations": v["annotations"],
            "deletionTimestamp": if v.get("deleting").and_then(Value::as_bool) == Some(true) { json!(DELETED_AT) } else { Value::Null },
        },
        "spec": {
            "type": v["type"], "loadBalancerClass": v["loadBalancerClass"],
            "externalTrafficPolicy": v["externalTrafficPolicy"], "ipFamilies": v["ipFamilies"],
        },
        "status": {"loadBalancer": {"ingress": ingress}},
    }))
    .unwrap()
}

fn slice(v: &Value) -> lbdoctor::snapshot::EndpointSlice {
    serde_json::from_value(json!({
        "metadata": {"namespace": v["namespace"], "name": v["name"], "labels": v["labels"]},
        "addressType": "IPv4",
        "endpoints": v["endpoints"].as_array().unwrap().iter().map(|e| json!({
            "addresses": ["192.0.2.1"], "conditions": e.get("conditions"), "nodeName": e.get("nodeName"),
        })).collect::<Vec<_>>(),
    }))
    .unwrap()
}

#[test]
fn every_node_ipam_vector_agrees() {
    let all = vectors();
    if all.is_empty() {
        return;
    }
    assert_eq!(all.len(), 31, "the vector file changed: review the new cases");
    let mut failures = Vec::new();
    for v in &all {
        let name = v["name"].as_str().unwrap();
        let nodes: Vec<Node> = v["nodes"].as_array().unwrap().iter().map(node).collect();
        let svc = service(&v["service"]);
        let slices: Vec<lbdoctor::snapshot::EndpointSlice> =
            v["endpointslices"].as_array().into_iter().flatten().map(slice).collect();
        let ready = nodeipam::ready_endpoint_nodes(
            &slices,
            v["service"]["namespace"].as_str().unwrap(),
            v["service"]["name"].as_str().unwrap(),
        );
        let input = Input {
            service: &svc,
            nodes: &nodes,
            ready_endpoint_nodes: &ready,
            default_nodeipam: v["config"]["defaultLBServiceIPAM"] == "nodeipam",
        };
        let outcome = nodeipam::reconcile(&input);
        let expected = &v["expected"];
        let ok = match &outcome {
            Outcome::NotHandled(_) => expected["unchanged"] == true,
            Outcome::SelectorError { error, .. } => {
                // Status is not written: the previous ingress stays.
                expected.get("error").is_some()
                    && error == "found 'is', expected: '=', '!=', '==', 'in', notin'"
                    && v["also_expected"]["ingress_after"] == v["service"]["statusIngress"]
            }
            Outcome::Written(c) => {
                let warn_expected = v["also_expected"]["log"]["msg"] == "No Nodes found with configured label selector";
                expected["ingress"] == json!(c.ingress) && c.no_nodes_warning == warn_expected
            }
        };
        if !ok {
            failures.push(format!("{name}: expected {expected}, got {outcome:?}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} vectors disagree:\n{}", failures.len(), all.len(), failures.join("\n"));
}
