//! Snapshot loading: every input form, and errors that name the file, the position and the object.

use std::fs;

use lbdoctor::snapshot::{load_paths, LoadError};

fn load(paths: &[&str]) -> Result<lbdoctor::snapshot::Snapshot, LoadError> {
    let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
    load_paths(&paths, &mut std::io::empty())
}

const NODE_YAML: &str = "apiVersion: v1\nkind: Node\nmetadata:\n  name: worker-a\n  labels:\n    answer: yes\n";

#[test]
fn multi_document_yaml_with_list_and_unknown_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.yaml");
    let text = format!(
        "{NODE_YAML}---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {{name: web, namespace: default}}\n- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {{name: w}}\n---\napiVersion: v1\nkind: Secret\nmetadata: {{name: s}}\ndata: {{password: aHVudGVyMg==}}\n"
    );
    fs::write(&file, text).unwrap();
    let snap = load(&[file.to_str().unwrap()]).unwrap();
    assert_eq!(snap.nodes.len(), 1);
    // An unquoted `yes` stays a string: labels keep the text kubectl would show.
    assert_eq!(snap.nodes[0].metadata.labels.as_ref().unwrap()["answer"], "yes");
    assert_eq!(snap.services.len(), 1);
    assert_eq!(snap.ignored_kinds["Widget (example.com/v1)"], 1);
    assert_eq!(snap.ignored_kinds["Secret (v1, never stored)"], 1);
}

#[test]
fn json_object_array_and_list_and_directories() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("nested/deeper");
    fs::create_dir_all(&sub).unwrap();
    fs::write(
        dir.path().join("list.json"),
        r#"{"items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}}],"kind":"List","apiVersion":"v1"}"#,
    )
    .unwrap();
    fs::write(sub.join("array.json"), r#"[{"apiVersion":"v1","kind":"Node","metadata":{"name":"b"}}]"#).unwrap();
    fs::write(sub.join("one.yml"), "apiVersion: v1\nkind: Node\nmetadata:\n  name: c\n").unwrap();
    fs::write(sub.join("notes.txt"), "not a snapshot").unwrap();
    let snap = load(&[dir.path().to_str().unwrap()]).unwrap();
    let mut names: Vec<String> = snap.nodes.iter().map(|n| n.metadata.name.clone().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["a", "b", "c"]);
}

#[test]
fn stdin_and_repeated_inputs_merge() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("n.yaml");
    fs::write(&file, NODE_YAML).unwrap();
    let mut stdin = "apiVersion: v1\nkind: Node\nmetadata:\n  name: worker-b\n".as_bytes();
    let snap = load_paths(&[file.to_str().unwrap().to_string(), "-".to_string()], &mut stdin).unwrap();
    assert_eq!(snap.nodes.len(), 2);
}

#[test]
fn duplicates_name_both_sources() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.yaml");
    let b = dir.path().join("b.yaml");
    fs::write(&a, NODE_YAML).unwrap();
    fs::write(&b, format!("---\n{NODE_YAML}")).unwrap();
    let err = load(&[a.to_str().unwrap(), b.to_str().unwrap()]).unwrap_err().to_string();
    assert!(err.starts_with("Node worker-a is defined twice"), "{err}");
    assert!(err.contains("a.yaml:1:1") && err.contains("b.yaml:2:1"), "{err}");
}

#[test]
fn malformed_yaml_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.yaml");
    fs::write(&file, "apiVersion: v1\nkind: Node\nmetadata:\n  name: [unclosed\n").unwrap();
    let err = load(&[file.to_str().unwrap()]).unwrap_err().to_string();
    assert!(err.contains("bad.yaml:"), "{err}");
    assert!(matches!(load(&[file.to_str().unwrap()]), Err(LoadError::Malformed { .. })));
}

#[test]
fn type_errors_name_the_object_and_the_position_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.json");
    fs::write(
        &file,
        "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"ok\"}},\n{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"broken\",\n\"labels\":[\"a\"]}}]}\n",
    )
    .unwrap();
    let err = load(&[file.to_str().unwrap()]).unwrap_err().to_string();
    assert!(err.contains("Node broken"), "{err}");
    assert!(err.contains("bad.json:4:"), "{err}");
}

/// Services and EndpointSlices decode only the fields an engine reads: a wrong type there is
/// refused with the object and the position, a wrong type anywhere else is read past (but for
/// an EndpointSlice's `ports`, checked for its shape).
#[test]
fn services_and_slices_refuse_bad_fields_the_engines_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.json");
    let svc = |spec: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"Service","metadata":{{"name":"web","namespace":"d","labels":{{"app":"web"}}}},"spec":{spec}}}"#
        )
    };
    fs::write(&file, svc(r#"{"type":"LoadBalancer","sessionAffinity":5,"healthCheckNodePort":"x"}"#)).unwrap();
    let snap = load(&[file.to_str().unwrap()]).unwrap();
    assert_eq!(snap.services[0].spec.as_ref().unwrap().type_.as_deref(), Some("LoadBalancer"));
    assert_eq!(snap.services[0].metadata.labels.as_ref().unwrap().get("app"), Some("web"));
    fs::write(&file, svc(r#"{"type":"LoadBalancer","externalTrafficPolicy":5}"#)).unwrap();
    let err = load(&[file.to_str().unwrap()]).unwrap_err().to_string();
    assert!(err.contains("Service d/web") && err.contains("wrong type"), "{err}");

    let slice = |endpoint: &str| {
        format!(
            r#"{{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","addressType":"IPv4","metadata":{{"name":"web-1","namespace":"d","labels":{{"kubernetes.io/service-name":"web"}}}},"endpoints":[{endpoint}]}}"#
        )
    };
    fs::write(
        &file,
        slice(r#"{"addresses":["192.0.2.1"],"nodeName":"a","zone":7,"targetRef":{"kind":"Pod","uid":1}}"#),
    )
    .unwrap();
    let snap = load(&[file.to_str().unwrap()]).unwrap();
    let e = &snap.endpoint_slices[0];
    assert_eq!(
        (e.service.as_deref(), e.endpoints[0].node_name.as_deref(), e.endpoints[0].targets_pod),
        (Some("web"), Some("a"), true)
    );
    fs::write(&file, slice(r#"{"addresses":["192.0.2.1"],"conditions":{"ready":"yes"}}"#)).unwrap();
    let err = load(&[file.to_str().unwrap()]).unwrap_err().to_string();
    assert!(err.contains("EndpointSlice d/web-1") && err.contains("wrong type"), "{err}");

    // `ports`, which no engine reads, is still a list of objects or nothing: anything else is a
    // broken file, not a field to read past.
    let with_ports = |ports: &str| {
        slice(r#"{"addresses":["192.0.2.1"]}"#).replacen(
            "\"endpoints\"",
            &format!("\"ports\":{ports},\"endpoints\""),
            1,
        )
    };
    for ok in ["null", "[]", r#"[{"name":"http","port":80,"protocol":"TCP","extra":[1]}]"#] {
        fs::write(&file, with_ports(ok)).unwrap();
        assert_eq!(load(&[file.to_str().unwrap()]).unwrap().endpoint_slices.len(), 1, "ports {ok}");
    }
    for bad in ["5", r#""str""#, r#"{"a":1}"#, "true", "[1,2]"] {
        fs::write(&file, with_ports(bad)).unwrap();
        let err = load(&[file.to_str().unwrap()]).unwrap_err().to_string();
        assert!(
            err.contains("s.json") && err.contains("EndpointSlice d/web-1") && err.contains("wrong type"),
            "{bad}: {err}"
        );
    }
}

/// Pods, DaemonSets and Deployments as well: null reads as Kubernetes reads it (an empty list,
/// an empty name), a wrong type in a field an engine reads is refused, anywhere else read past.
#[test]
fn pods_and_workloads_refuse_bad_fields_the_engines_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.json");
    let pod = |container: &str, status: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"speaker-a","namespace":"metallb-system","labels":{{"component":"speaker"}}}},"spec":{{"nodeName":"a","volumes":7,"containers":[{container}]}},"status":{status}}}"#
        )
    };
    fs::write(
        &file,
        pod(
            r#"{"name":"speaker","image":"quay.io/metallb/speaker:v0.14.9","ports":[{"containerPort":"x"}],"env":[{"name":"METALLB_ML_BIND_ADDR","valueFrom":{"fieldRef":{"fieldPath":"status.podIP"}}},{"name":null,"value":"v"}],"envFrom":[{"prefix":1}]}"#,
            r#"{"phase":"Running","hostIP":9,"conditions":[{"type":"Ready","status":"True","lastProbeTime":false}],"containerStatuses":[{"name":"speaker","restartCount":3,"image":[],"lastState":{"terminated":{"exitCode":137,"reason":"OOMKilled"}}}]}"#,
        ),
    )
    .unwrap();
    let snap = load(&[file.to_str().unwrap()]).unwrap();
    let p = &snap.pods[0];
    assert_eq!(p.node_name(), Some("a"));
    let c = &p.spec.as_ref().unwrap().containers[0];
    assert_eq!(c.image.as_deref(), Some("quay.io/metallb/speaker:v0.14.9"));
    let env = c.env.as_ref().unwrap();
    assert!(env[0].value.is_none() && env[0].value_from.is_some());
    assert_eq!((env[1].name.as_str(), env[1].value.as_deref()), ("", Some("v")));
    assert_eq!(c.env_from.as_ref().map(Vec::len), Some(1));
    let status = p.status.as_ref().unwrap();
    assert_eq!(status.conditions.as_ref().unwrap()[0].type_, "Ready");
    let speaker = &status.container_statuses.as_ref().unwrap()[0];
    assert_eq!(speaker.restart_count, 3);
    let ended = speaker.last_state.as_ref().and_then(|s| s.terminated.as_ref()).unwrap();
    assert_eq!((ended.exit_code, ended.reason.as_deref()), (137, Some("OOMKilled")));

    fs::write(&file, pod(r#"{"name":"speaker","args":"--port=7472"}"#, "{}")).unwrap();
    let err = load(&[file.to_str().unwrap()]).unwrap_err().to_string();
    assert!(err.contains("Pod metallb-system/speaker-a") && err.contains("wrong type"), "{err}");
    fs::write(&file, pod(r#"{"name":"speaker"}"#, r#"{"containerStatuses":[{"restartCount":"3"}]}"#)).unwrap();
    let err = load(&[file.to_str().unwrap()]).unwrap_err().to_string();
    assert!(err.contains("Pod metallb-system/speaker-a") && err.contains("wrong type"), "{err}");

    let daemon_set = |template: &str| {
        format!(
            r#"{{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{{"name":"speaker","namespace":"metallb-system"}},"spec":{{"selector":5,"template":{template}}}}}"#
        )
    };
    fs::write(
        &file,
        daemon_set(
            r#"{"metadata":{"labels":{"component":"speaker"},"annotations":1},"spec":{"containers":null,"nodeSelector":{"kubernetes.io/os":"linux"},"tolerations":[{"key":"k","operator":"Exists"}]}}"#,
        ),
    )
    .unwrap();
    let snap = load(&[file.to_str().unwrap()]).unwrap();
    let d = &snap.daemon_sets[0];
    assert_eq!(d.pod_labels().and_then(|l| l.get("component")), Some("speaker"));
    let spec = d.pod_spec().unwrap();
    assert!(spec.containers.is_empty());
    assert_eq!(spec.tolerations.as_ref().unwrap()[0].key.as_deref(), Some("k"));
    fs::write(&file, daemon_set(r#"{"spec":{"nodeSelector":["linux"]}}"#)).unwrap();
    let err = load(&[file.to_str().unwrap()]).unwrap_err().to_string();
    assert!(err.contains("DaemonSet metallb-system/speaker") && err.contains("wrong type"), "{err}");
}

#[test]
fn objects_without_kind_and_scalars_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.yaml");
    fs::write(&file, "- just\n- a list\n").unwrap();
    assert!(load(&[file.to_str().unwrap()]).unwrap_err().to_string().contains("not a Kubernetes object"));
    fs::write(&file, "metadata:\n  name: x\n").unwrap();
    assert!(load(&[file.to_str().unwrap()]).unwrap_err().to_string().contains("no apiVersion or kind"));
}

#[test]
fn missing_paths_and_empty_directories_are_errors() {
    assert!(matches!(load(&["/nonexistent/snapshot.yaml"]), Err(LoadError::Io { .. })));
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(load(&[dir.path().to_str().unwrap()]), Err(LoadError::EmptyDirectory { .. })));
}

#[test]
fn snapshot_info_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("i.yaml");
    let info = "apiVersion: lbdoctor/v1alpha1\nkind: SnapshotInfo\nspec:\n  capturedAt: \"2026-11-29T00:00:00Z\"\n  metallb:\n    memberlist: disabled\n    ignoreExcludeLB: true\n";
    fs::write(&file, info).unwrap();
    let snap = load(&[file.to_str().unwrap()]).unwrap();
    assert_eq!(snap.info.metallb.memberlist, Some(lbdoctor::snapshot::Memberlist::Disabled));
    assert_eq!(snap.info.metallb.ignore_exclude_lb, Some(true));
    fs::write(&file, format!("{info}---\n{info}")).unwrap();
    assert!(matches!(load(&[file.to_str().unwrap()]), Err(LoadError::Duplicate { .. })));
}

mod never_panics {
    use proptest::prelude::*;

    fn load_text(text: &str) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("x.yaml");
        std::fs::write(&file, text).unwrap();
        // Any outcome is fine except a panic.
        let _ = lbdoctor::snapshot::load_paths(&[file.to_str().unwrap().to_string()], &mut std::io::empty());
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        #[test]
        fn on_arbitrary_text(text in ".{0,400}") {
            load_text(&text);
        }

        #[test]
        fn on_mangled_kubernetes_objects(cut in 0usize..400, junk in "[\\[\\]{}:,\"' \\n-]{0,6}") {
            let base = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"a\",\"labels\":{\"x\":\"y\"}}},{\"apiVersion\":\"discovery.k8s.io/v1\",\"kind\":\"EndpointSlice\",\"metadata\":{\"name\":\"s\"},\"addressType\":\"IPv4\",\"endpoints\":[{\"addresses\":[\"10.0.0.1\"],\"conditions\":{\"ready\":false}}]}]}";
            let cut = cut.min(base.len());
            load_text(&format!("{}{}{}", &base[..cut], junk, &base[cut..]));
            let yaml = "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels:\n    x: y\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: d}\nspec: {type: LoadBalancer}\n";
            let cut = cut.min(yaml.len());
            load_text(&format!("{}{}{}", &yaml[..cut], junk, &yaml[cut..]));
        }
    }
}

#[test]
fn a_byte_order_mark_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("bom.json", "\u{feff}{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"a\"}}"),
        ("bom.yaml", "\u{feff}apiVersion: v1\nkind: Node\nmetadata:\n  name: b\n"),
    ] {
        let file = dir.path().join(name);
        fs::write(&file, text).unwrap();
        assert_eq!(load(&[file.to_str().unwrap()]).unwrap().nodes.len(), 1, "{name}");
    }
}

#[test]
fn json_documents_joined_by_yaml_separators_are_a_yaml_stream() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("joined.json");
    let node = |n: &str| format!(r#"{{"apiVersion":"v1","kind":"Node","metadata":{{"name":"{n}"}}}}"#);
    fs::write(&file, format!("{}\n---\n{}\n", node("a"), node("b"))).unwrap();
    let snap = load(&[file.to_str().unwrap()]).unwrap();
    assert_eq!(snap.nodes.len(), 2);
    // Plain JSON keeps its JSON errors, with positions.
    fs::write(&file, format!("{}\n{}\n", node("a"), node("b"))).unwrap();
    let err = load(&[file.to_str().unwrap()]).unwrap_err().to_string();
    assert!(err.contains("joined.json:2:1: trailing characters"), "{err}");
}

/// What a real API server would refuse in the test data, checked without one (the real-server
/// suite needs root): node ports inside the default --service-node-port-range, none used twice.
#[test]
fn testdata_services_use_node_ports_a_real_server_accepts() {
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["testdata/clusters", "testdata/scenarios"] {
        for entry in fs::read_dir(dir).unwrap() {
            files.push(entry.unwrap().path());
        }
    }
    let mut checked = 0;
    for path in files.iter().filter(|p| p.extension().is_some_and(|e| e == "yaml")) {
        // Read as Kubernetes' own type: the loader keeps only the fields the engines read.
        let docs: Vec<serde_json::Value> = serde_saphyr::from_multiple(&fs::read_to_string(path).unwrap()).unwrap();
        let mut used = std::collections::BTreeSet::new();
        for doc in docs.iter().flat_map(|d| d["items"].as_array().cloned().unwrap_or_else(|| vec![d.clone()])) {
            if doc["kind"] != "Service" {
                continue;
            }
            let svc: k8s_openapi::api::core::v1::Service = serde_json::from_value(doc).unwrap();
            let name = svc.metadata.name.clone().unwrap_or_default();
            let Some(spec) = &svc.spec else { continue };
            let ports = spec.ports.iter().flatten().filter_map(|p| p.node_port);
            for port in ports.chain(spec.health_check_node_port) {
                assert!((30000..=32767).contains(&port), "{}: Service {name}: node port {port}", path.display());
                assert!(used.insert(port), "{}: Service {name}: node port {port} used twice", path.display());
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "only {checked} node ports in the test data");
}

/// One rule for objects of the kinds the engines read: a kind spelled in another case, or an
/// apiVersion no server serves, is not read, and is reported on stderr with its place and in
/// the JSON's `source.ignoredObjects`; kinds no engine reads are counted in one line.
#[test]
fn objects_no_server_would_hold_are_reported_never_dropped_silently() {
    let homelab = std::fs::read_to_string(crate::util::HOMELAB).unwrap();
    let extra = "---\napiVersion: v1\nkind: service\nmetadata: {name: web, namespace: default}\nspec: {type: LoadBalancer}\n\
                 ---\napiVersion: v2\nkind: Node\nmetadata: {name: worker-z}\n\
                 ---\napiVersion: metallb.io/v1beta2\nkind: L2Advertisement\nmetadata: {name: made-up, namespace: metallb-system}\n\
                 ---\napiVersion: metallb.io/v1beta1\nkind: Pool\nmetadata: {name: p, namespace: metallb-system}\n\
                 ---\napiVersion: v1\nkind: \"ää\"\nmetadata: {name: x}\n\
                 ---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs, namespace: default}\n";
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("s.yaml");
    std::fs::write(&path, format!("{homelab}\n{extra}")).unwrap();
    let file = path.to_str().unwrap();
    let (stdout, stderr, code) = crate::util::run(&["check", "--from", file, "-o", "json"]);
    let (_, _, plain) = crate::util::run(&["check", "--from", crate::util::HOMELAB]);
    assert_eq!(code, plain, "the verdicts are those of the snapshot without the ignored objects");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let ignored = report["source"]["ignoredObjects"].as_array().unwrap();
    let objects: Vec<&str> = ignored.iter().map(|o| o["object"].as_str().unwrap()).collect();
    assert_eq!(
        objects,
        [
            "service default/web",
            "Node worker-z",
            "L2Advertisement metallb-system/made-up",
            "Pool metallb-system/p",
            "ää x"
        ]
    );
    for o in ignored {
        let at = o["at"].as_str().unwrap();
        assert!(at.starts_with(&format!("{file}:")), "{at}");
        assert!(
            stderr.contains(&format!(
                "warning: {at}: {} ignored: {}",
                o["object"].as_str().unwrap(),
                o["reason"].as_str().unwrap()
            )),
            "{stderr}"
        );
    }
    assert!(report["services"].as_array().unwrap().iter().all(|s| s["name"] != "web"));
    assert_eq!(report["source"]["ignoredKinds"]["ReplicaSet (apps/v1)"], 1);
    assert!(stderr.contains("note: 1 object of kinds no engine reads skipped: ReplicaSet (apps/v1) ×1"), "{stderr}");
}

/// A server prunes fields its schema lacks, so a field no server returns is a hand edit's typo
/// (or a newer version's): `metadata.label` for `labels` silently lost every label before. It is
/// still not read, but said: on stderr and in `source.ignoredFields`.
#[test]
fn fields_no_server_returns_are_reported() {
    let homelab = std::fs::read_to_string(crate::util::HOMELAB).unwrap();
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("s.yaml");
    let extra = "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: worker-z\n  label: {node-role.kubernetes.io/worker: \"\"}\n\
                 ---\napiVersion: metallb.io/v1beta1\nkind: L2Advertisement\nmetadata: {name: extra, namespace: metallb-system}\n\
                 spec:\n  nodeSelector:\n  - matchLabels: {a: b}\n";
    std::fs::write(&path, format!("{homelab}\n{extra}")).unwrap();
    let (stdout, stderr, _) = crate::util::run(&["check", "--from", path.to_str().unwrap(), "-o", "json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let fields: Vec<(&str, &str, &str)> = report["source"]["ignoredFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["object"].as_str().unwrap(), f["field"].as_str().unwrap(), f["nearest"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(
        fields,
        [
            ("Node worker-z", "metadata.label", "metadata.labels"),
            ("L2Advertisement metallb-system/extra", "spec.nodeSelector", "spec.nodeSelectors")
        ]
    );
    assert!(
        stderr.contains("Node worker-z: unknown field metadata.label (did you mean metadata.labels?) not read"),
        "{stderr}"
    );
    // The bundled snapshots hold nothing a server would not return.
    let (_, stderr, _) = crate::util::run(&["check", "--from", crate::util::HOMELAB]);
    assert!(stderr.is_empty(), "{stderr}");
}

/// A List file past 4 MiB is read and decoded a piece at a time; it must give what the same
/// text read whole gives: the objects in order, their lines and columns, and the same errors.
#[test]
fn a_large_list_read_in_pieces_loads_as_read_whole() {
    use lbdoctor::snapshot::load_texts;
    use std::sync::Arc;
    let items: Vec<serde_json::Value> = (0..6000)
        .flat_map(|i| {
            let name = format!("svc-{i:05}");
            [
                serde_json::json!({"apiVersion": "v1", "kind": "Service",
                    "metadata": {"name": name, "namespace": format!("ns-{}", i % 7), "labels": {"app": name, "note": "}]\"\\{["}},
                    "spec": {"type": "LoadBalancer", "ports": [{"port": 80, "protocol": "TCP"}], "selector": {"app": name}},
                    "status": {"loadBalancer": {"ingress": [{"ip": format!("192.0.2.{}", i % 250)}]}}}),
                serde_json::json!({"apiVersion": "v1", "kind": "Widget", "metadata": {"name": name}, "pad": "x".repeat(700)}),
            ]
        })
        .collect();
    let list = |items: &[serde_json::Value]| {
        let list = serde_json::json!({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}});
        // A BOM, and lines: positions count from after the BOM.
        format!("\u{feff}{}\n", serde_json::to_string_pretty(&list).unwrap())
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    let name = path.to_str().unwrap().to_string();
    let whole = |text: &str| load_texts(&[(Arc::from(name.as_str()), text.trim_start_matches('\u{feff}').to_string())]);
    let shown = |snap: lbdoctor::snapshot::Snapshot| {
        let mut snap = snap;
        let origins: std::collections::BTreeMap<_, _> =
            snap.origins.labelled().into_iter().map(|(k, o)| (k, (o.file.to_string(), o.line))).collect();
        snap.origins.clear();
        format!("{snap:?}\n{origins:?}")
    };

    let text = list(&items);
    assert!(text.len() > 8 << 20, "large enough to be read in several pieces: {}", text.len());
    fs::write(&path, &text).unwrap();
    let streamed = load(&[&name]).unwrap();
    assert_eq!(streamed.services.len(), 6000);
    assert_eq!(
        streamed.origins.labelled()["Service ns-6/svc-05998"].line,
        whole(&text).unwrap().origins.labelled()["Service ns-6/svc-05998"].line
    );
    assert_eq!(shown(streamed), shown(whole(&text).unwrap()));

    // A wrong type late in the file: the error names the same line and column.
    let mut bad = items.clone();
    bad[11000]["spec"]["ports"] = serde_json::json!(5);
    let text = list(&bad);
    fs::write(&path, &text).unwrap();
    let (a, b) = (load(&[&name]).unwrap_err().to_string(), whole(&text).unwrap_err().to_string());
    assert!(a.contains("(items[11000]): Service ns-5/svc-05500: wrong type"), "{a}");
    assert_eq!(a, b);

    // Broken JSON late in an object of a kind nobody decodes, past its kind: read whole, it is
    // the whole-file reader's error, not an object skipped.
    let text = list(&items);
    let pad = text.rfind("\"pad\": \"x").expect("a Widget's pad");
    let value_end = pad + text[pad..].find("x\"").expect("the pad's end") + 2;
    let broken = format!("{}\"pad\": [1,,2]{}", &text[..pad], &text[value_end..]);
    fs::write(&path, &broken).unwrap();
    let message = whole(&broken).unwrap_err().to_string();
    assert!(message.contains("expected value"), "{message}");
    assert_eq!(load(&[&name]).unwrap_err().to_string(), message);

    // Cut short, and followed by a second document: the whole-file reader's messages.
    fs::write(&path, &text[..text.len() - 40]).unwrap();
    assert!(load(&[&name]).unwrap_err().to_string().contains("the text ends inside"));
    let list_then_more = format!("{}{{\"kind\": \"List\"}}\n", list(&items));
    fs::write(&path, &list_then_more).unwrap();
    assert_eq!(load(&[&name]).unwrap_err().to_string(), whole(&list_then_more).unwrap_err().to_string());
}
