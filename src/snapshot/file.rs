//! Loading snapshots from files, directories and stdin: multi-document YAML, JSON, `kind: List`.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Snapshot, SnapshotInfo};

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}: no *.yaml, *.yml or *.json files in this directory")]
    EmptyDirectory { path: String },
    #[error("{origin}: {message}")]
    Malformed { origin: String, message: String },
    #[error("{object} is defined twice: at {first} and at {second}")]
    Duplicate { object: String, first: String, second: String },
}

/// Where an object came from, for error messages.
#[derive(Debug, Clone)]
struct Origin {
    file: Arc<str>,
    line: Option<u64>,
    column: Option<u64>,
    item: Option<usize>,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(col) = self.column {
                write!(f, ":{col}")?;
            }
        }
        if let Some(item) = self.item {
            write!(f, " (items[{item}])")?;
        }
        Ok(())
    }
}

/// Loads and merges every input. `-` reads `stdin`.
pub fn load_paths(inputs: &[String], stdin: &mut dyn Read) -> Result<Snapshot, LoadError> {
    let mut collector = Collector::default();
    for input in inputs {
        if input == "-" {
            let mut text = String::new();
            stdin
                .read_to_string(&mut text)
                .map_err(|source| LoadError::Io { path: "<stdin>".into(), source })?;
            collector.add_text("<stdin>".into(), &text)?;
            continue;
        }
        let path = Path::new(input);
        let meta = std::fs::metadata(path).map_err(|source| LoadError::Io { path: input.clone(), source })?;
        let files = if meta.is_dir() {
            let mut files = Vec::new();
            walk(path, &mut files).map_err(|source| LoadError::Io { path: input.clone(), source })?;
            if files.is_empty() {
                return Err(LoadError::EmptyDirectory { path: input.clone() });
            }
            files
        } else {
            vec![path.to_path_buf()]
        };
        for file in files {
            let name = file.display().to_string();
            let text = std::fs::read_to_string(&file).map_err(|source| LoadError::Io { path: name.clone(), source })?;
            collector.add_text(name.into(), &text)?;
        }
    }
    Ok(collector.finish())
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, out)?;
        } else if matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml" | "json")) {
            out.push(path);
        }
    }
    Ok(())
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Head<'a> {
    #[serde(default)]
    api_version: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    metadata: Option<HeadMeta>,
    #[serde(default, borrow)]
    items: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize, Default)]
struct HeadMeta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
}

/// One document, still untyped.
enum Doc<'a> {
    Value(serde_json::Value),
    /// A JSON object, with the byte offset of its text in the file and the file's line index.
    Raw(&'a RawValue, usize, &'a LineIndex),
}

struct LineIndex {
    newlines: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        LineIndex { newlines: text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i).collect() }
    }
    /// 1-based line and column of a byte offset.
    fn position(&self, offset: usize) -> (u64, u64) {
        let line = self.newlines.partition_point(|&n| n < offset);
        let start = if line == 0 { 0 } else { self.newlines[line - 1] + 1 };
        (line as u64 + 1, (offset - start) as u64 + 1)
    }
}

impl Doc<'_> {
    fn parse<T: DeserializeOwned>(self, origin: &Origin) -> Result<T, (Origin, String)> {
        match self {
            Doc::Value(v) => serde_json::from_value(v).map_err(|e| (origin.clone(), e.to_string())),
            Doc::Raw(raw, offset, lines) => serde_json::from_str(raw.get()).map_err(|e| {
                // serde_json counts from the start of the object's own text.
                let mut at = origin.clone();
                if e.line() > 0 {
                    let (obj_line, obj_col) = lines.position(offset);
                    at.line = Some(obj_line + e.line() as u64 - 1);
                    at.column = Some(if e.line() == 1 { obj_col + e.column() as u64 - 1 } else { e.column() as u64 });
                }
                let message = e.to_string();
                let message = match message.rfind(" at line ") {
                    Some(i) => message[..i].to_string(),
                    None => message,
                };
                (at, message)
            }),
        }
    }
}

#[derive(Default)]
struct Collector {
    snap: Snapshot,
    seen: HashMap<(String, String, String, String), String>,
    info_origin: Option<String>,
}

fn yaml_options() -> serde_saphyr::Options {
    // The limits stay on, sized for whole-cluster dumps rather than config files.
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_events: 200_000_000,
            max_nodes: 50_000_000,
            max_documents: 1_000_000,
            max_depth: 128,
            max_total_scalar_bytes: 1024 * 1024 * 1024,
            max_reader_input_bytes: Some(1024 * 1024 * 1024),
        },
        strict_booleans: true,
        with_snippet: false,
    }
}

impl Collector {
    fn add_text(&mut self, file: Arc<str>, text: &str) -> Result<(), LoadError> {
        let trimmed = text.trim_start_matches('\u{feff}').trim_start();
        if trimmed.starts_with('{') || trimmed.starts_with('[') {
            self.add_json(file, text)
        } else {
            self.add_yaml(file, text)
        }
    }

    fn add_json(&mut self, file: Arc<str>, text: &str) -> Result<(), LoadError> {
        let lines = LineIndex::new(text);
        let whole = Origin { file: file.clone(), line: None, column: None, item: None };
        let malformed = |e: serde_json::Error| {
            let mut at = whole.clone();
            if e.line() > 0 {
                at.line = Some(e.line() as u64);
                at.column = Some(e.column() as u64);
            }
            let msg = e.to_string();
            let msg = msg.rfind(" at line ").map(|i| msg[..i].to_string()).unwrap_or(msg);
            LoadError::Malformed { origin: at.to_string(), message: msg }
        };
        let offset_of = |raw: &RawValue| raw.get().as_ptr() as usize - text.as_ptr() as usize;
        let trimmed = text.trim_start();
        if trimmed.starts_with('[') {
            let items: Vec<&RawValue> = serde_json::from_str(text).map_err(malformed)?;
            for (i, raw) in items.into_iter().enumerate() {
                self.add_raw(&file, Some(i), raw, offset_of(raw), &lines)?;
            }
            return Ok(());
        }
        let raw: &RawValue = serde_json::from_str(text).map_err(malformed)?;
        self.add_raw(&file, None, raw, offset_of(raw), &lines)
    }

    fn add_raw(
        &mut self,
        file: &Arc<str>,
        item: Option<usize>,
        raw: &RawValue,
        offset: usize,
        lines: &LineIndex,
    ) -> Result<(), LoadError> {
        let (line, column) = lines.position(offset);
        let origin = Origin { file: file.clone(), line: Some(line), column: Some(column), item };
        let head: Head = serde_json::from_str(raw.get()).map_err(|e| LoadError::Malformed {
            origin: origin.to_string(),
            message: format!("not a Kubernetes object: {e}"),
        })?;
        if let Some(items) = head.items.as_ref().filter(|_| is_list(head.kind.as_deref())) {
            for (i, raw_item) in items.iter().enumerate() {
                let off = raw_item.get().as_ptr() as usize - raw.get().as_ptr() as usize + offset;
                self.add_raw(file, Some(i), raw_item, off, lines)?;
            }
            return Ok(());
        }
        self.add_object(origin, &head, Doc::Raw(raw, offset, lines))
    }

    fn add_yaml(&mut self, file: Arc<str>, text: &str) -> Result<(), LoadError> {
        let docs: Vec<serde_saphyr::Spanned<serde_json::Value>> =
            serde_saphyr::from_multiple_with_options(text, yaml_options()).map_err(|e| {
                let origin = match e.location() {
                    Some(l) => Origin { file: file.clone(), line: Some(l.line()), column: Some(l.column()), item: None },
                    None => Origin { file: file.clone(), line: None, column: None, item: None },
                };
                LoadError::Malformed { origin: origin.to_string(), message: yaml_message(&e) }
            })?;
        for doc in docs {
            let origin = Origin {
                file: file.clone(),
                line: Some(doc.referenced.line()),
                column: Some(doc.referenced.column()),
                item: None,
            };
            self.add_value(origin, doc.value)?;
        }
        Ok(())
    }

    fn add_value(&mut self, origin: Origin, value: serde_json::Value) -> Result<(), LoadError> {
        if value.is_null() {
            return Ok(());
        }
        if !value.is_object() {
            return Err(LoadError::Malformed {
                origin: origin.to_string(),
                message: "not a Kubernetes object (expected a mapping with apiVersion and kind)".into(),
            });
        }
        let head = Head {
            api_version: value.get("apiVersion").and_then(|v| v.as_str()).map(str::to_string),
            kind: value.get("kind").and_then(|v| v.as_str()).map(str::to_string),
            metadata: value.get("metadata").map(|m| HeadMeta {
                name: m.get("name").and_then(|v| v.as_str()).map(str::to_string),
                namespace: m.get("namespace").and_then(|v| v.as_str()).map(str::to_string),
            }),
            items: None,
        };
        if is_list(head.kind.as_deref()) {
            if let Some(serde_json::Value::Array(items)) = value.get("items") {
                for (i, item) in items.iter().enumerate() {
                    let mut at = origin.clone();
                    at.item = Some(i);
                    self.add_value(at, item.clone())?;
                }
                return Ok(());
            }
        }
        self.add_object(origin, &head, Doc::Value(value))
    }

    fn add_object(&mut self, origin: Origin, head: &Head, doc: Doc) -> Result<(), LoadError> {
        let (Some(api_version), Some(kind)) = (head.api_version.as_deref(), head.kind.as_deref()) else {
            return Err(LoadError::Malformed {
                origin: origin.to_string(),
                message: "object has no apiVersion or kind".into(),
            });
        };
        let meta = head.metadata.as_ref();
        let name = meta.and_then(|m| m.name.clone()).unwrap_or_default();
        let namespace = meta.and_then(|m| m.namespace.clone()).unwrap_or_default();
        let display = if namespace.is_empty() { format!("{kind} {name}") } else { format!("{kind} {namespace}/{name}") };
        let group = api_version.rsplit_once('/').map(|(g, _)| g).unwrap_or("");

        if (group, kind) == ("lbdoctor", "SnapshotInfo") {
            if let Some(first) = &self.info_origin {
                return Err(LoadError::Duplicate { object: "SnapshotInfo".into(), first: first.clone(), second: origin.to_string() });
            }
            #[derive(Deserialize)]
            struct InfoDoc {
                #[serde(default)]
                spec: SnapshotInfo,
            }
            let info: InfoDoc = doc.parse(&origin).map_err(|e| malformed(e, &display))?;
            self.snap.info = info.spec;
            self.info_origin = Some(origin.to_string());
            return Ok(());
        }
        // Never keep a Secret, not even in memory.
        if (group, kind) == ("", "Secret") {
            *self.snap.ignored_kinds.entry("Secret (v1, never stored)".into()).or_default() += 1;
            return Ok(());
        }

        let key = (group.to_string(), kind.to_string(), namespace.clone(), name.clone());
        let known = is_known(group, api_version, kind);
        if known {
            if let Some(first) = self.seen.get(&key) {
                return Err(LoadError::Duplicate { object: display, first: first.clone(), second: origin.to_string() });
            }
        }
        let s = &mut self.snap;
        let m = &mut s.metallb;
        let result = match (group, kind) {
            ("", "Node") if api_version == "v1" => doc.parse(&origin).map(|o| s.nodes.push(o)),
            ("", "Service") if api_version == "v1" => doc.parse(&origin).map(|o| s.services.push(o)),
            ("", "Namespace") if api_version == "v1" => doc.parse(&origin).map(|o| s.namespaces.push(o)),
            ("", "Pod") if api_version == "v1" => doc.parse(&origin).map(|o| s.pods.push(o)),
            ("", "Event") if api_version == "v1" => doc.parse(&origin).map(|o| s.events.push(o)),
            ("", "ConfigMap") if api_version == "v1" => doc.parse(&origin).map(|o| s.config_maps.push(o)),
            ("discovery.k8s.io", "EndpointSlice") if api_version == "discovery.k8s.io/v1" => {
                doc.parse(&origin).map(|o| s.endpoint_slices.push(o))
            }
            ("apps", "DaemonSet") if api_version == "apps/v1" => doc.parse(&origin).map(|o| s.daemon_sets.push(o)),
            ("apps", "Deployment") if api_version == "apps/v1" => doc.parse(&origin).map(|o| s.deployments.push(o)),
            ("metallb.io", "IPAddressPool") => doc.parse(&origin).map(|o| m.ip_address_pools.push(o)),
            ("metallb.io", "L2Advertisement") => doc.parse(&origin).map(|o| m.l2_advertisements.push(o)),
            ("metallb.io", "BGPAdvertisement") => doc.parse(&origin).map(|o| m.bgp_advertisements.push(o)),
            ("metallb.io", "BGPPeer") => doc.parse(&origin).map(|o| m.bgp_peers.push(o)),
            ("metallb.io", "Community") => doc.parse(&origin).map(|o| m.communities.push(o)),
            ("metallb.io", "ServiceL2Status") => doc.parse(&origin).map(|o| m.service_l2_statuses.push(o)),
            _ => {
                *s.ignored_kinds.entry(format!("{kind} ({api_version})")).or_default() += 1;
                return Ok(());
            }
        };
        result.map_err(|e| malformed(e, &display))?;
        self.seen.insert(key, origin.to_string());
        Ok(())
    }

    fn finish(self) -> Snapshot {
        self.snap
    }
}

fn is_known(group: &str, api_version: &str, kind: &str) -> bool {
    matches!(
        (group, kind),
        ("", "Node" | "Service" | "Namespace" | "Pod" | "Event" | "ConfigMap") if api_version == "v1"
    ) || matches!((group, kind), ("discovery.k8s.io", "EndpointSlice") | ("apps", "DaemonSet" | "Deployment"))
        || (group == "metallb.io"
            && matches!(kind, "IPAddressPool" | "L2Advertisement" | "BGPAdvertisement" | "BGPPeer" | "Community" | "ServiceL2Status"))
}

fn is_list(kind: Option<&str>) -> bool {
    kind.is_some_and(|k| k == "List" || k.ends_with("List"))
}

fn malformed((origin, message): (Origin, String), object: &str) -> LoadError {
    LoadError::Malformed { origin: origin.to_string(), message: format!("{object}: {message}") }
}

fn yaml_message(e: &serde_saphyr::Error) -> String {
    // The location is already in the prefix; keep the first line of the message only.
    let text = e.to_string();
    text.lines().next().unwrap_or("invalid YAML").trim().to_string()
}
