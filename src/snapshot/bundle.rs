//! Bundles: what people already collect, read as it is. An archive (`.tgz`, `.tar.gz`, `.tar`,
//! `.zip`, told by its first bytes, not its name) or a collector's unpacked tree: MetalLB's
//! troubleshooting report (`report/crds/<kind>.yaml` from `kubectl get -o yaml`, and per Pod
//! `report/pods/<pod>/speaker.log` or `controller.log`), a Cilium sysdump
//! (`cilium-sysdump-<ts>/k8s-nodes-<ts>.yaml`, …), or any tree of `kubectl get -o yaml|json` files.
//!
//! Nothing is extracted to disk: entries are read into memory, and only the ones something reads
//! (object files, the MetalLB Pods' logs, FRR's dumps) are kept. A hostile archive is refused before it
//! costs memory or time: entries that climb out of the bundle (`..`, absolute paths), links,
//! sizes no collector writes, and decompression far beyond what text compresses to.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::{self, Read};
use std::path::{Component, Path};
use std::rc::Rc;
use std::sync::Arc;

use super::file::LoadError;

/// How a bundle is laid out, which tells what it holds and what it lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Layout {
    /// MetalLB's `metallb_report.tgz`: MetalLB's configuration and its Pods' logs only.
    MetallbReport,
    /// `cilium sysdump`: the cluster's objects, Cilium's own, and its agents' logs.
    CiliumSysdump,
    /// Any other tree of object files.
    Objects,
}

impl Layout {
    /// As JSON names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::MetallbReport => "metallbReport",
            Layout::CiliumSysdump => "ciliumSysdump",
            Layout::Objects => "objects",
        }
    }

    pub fn words(self) -> &'static str {
        match self {
            Layout::MetallbReport => "MetalLB's troubleshooting report",
            Layout::CiliumSysdump => "a Cilium sysdump",
            Layout::Objects => "a bundle of object files",
        }
    }

    /// The kinds every answer needs that this kind of bundle never holds (as `kubectl get` names
    /// them), to be taken from another `--from`.
    pub fn lacks(self) -> &'static [&'static str] {
        match self {
            Layout::MetallbReport => &["nodes", "services", "endpointslices", "pods"],
            Layout::CiliumSysdump => &["endpointslices"],
            Layout::Objects => &[],
        }
    }
}

/// Which container of a Pod a log is from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Container {
    Speaker,
    Controller,
}

/// One Pod's log as the bundle holds it.
#[derive(Debug, Clone)]
pub struct PodLog {
    pub pod: String,
    pub container: Container,
    /// Where in the bundle, for messages: `metallb_report.tgz/report/pods/speaker-x7k2p/speaker.log`.
    pub entry: String,
    pub text: String,
    /// A speaker's: the IPs it still announces over layer 2 after its last line (its last
    /// `serviceAnnounced` not followed by a withdraw or a restart), as MetalLB writes IPs.
    pub layer2_at_end: std::collections::BTreeSet<String>,
    /// A controller's: per Service (`namespace/name`), the last allocation it logged as failed.
    pub allocation_failures: BTreeMap<String, LoggedFailure>,
}

pub use crate::report::LoggedFailure;

/// FRR's own view of one speaker's node (MetalLB's report in FRR mode: `pods/<pod>/frr/logs/`
/// `dump_frr`, with `frr.conf` standing in for a running configuration the dump lacks).
#[derive(Debug, Clone)]
pub struct PodFrr {
    pub pod: String,
    /// Where in the bundle: the dump, else `frr.conf`.
    pub entry: String,
    pub dump: crate::metallb::bgp::frr_dump::FrrDump,
}

/// What a bundle held besides its objects.
#[derive(Debug, Clone)]
pub struct Bundle {
    /// As given to `--from`.
    pub path: String,
    pub layout: Layout,
    /// The files of objects read from it.
    pub object_files: usize,
    pub logs: Vec<PodLog>,
    pub frr: Vec<PodFrr>,
    /// Entries read past, each with why (`cilium-sysdump-x/cilium-helm-values-x.yaml: no Kubernetes objects (no `kind`)`).
    pub skipped: Vec<String>,
}

impl Bundle {
    /// The speakers' logs, not the controller's.
    pub fn speaker_logs(&self) -> impl Iterator<Item = &PodLog> {
        self.logs.iter().filter(|l| l.container == Container::Speaker)
    }
}

/// The object files of a bundle, named `BUNDLE/ENTRY` as errors name them, and the rest.
pub struct Opened {
    pub texts: Vec<(Arc<str>, String)>,
    pub bundle: Bundle,
}

/// What no collector writes: past these the bundle is refused, not read.
#[derive(Clone, Copy)]
pub struct Limits {
    pub entries: usize,
    /// One entry, decompressed.
    pub entry_bytes: u64,
    /// Every entry kept (objects and logs), decompressed.
    pub kept_bytes: u64,
    /// Every entry read, kept or not, decompressed.
    pub read_bytes: u64,
    /// Decompressed bytes per compressed byte, once `ratio_after` bytes were decompressed: text
    /// compresses 5 to 20 times, a bomb a thousand times.
    pub ratio: u64,
    pub ratio_after: u64,
}

pub const LIMITS: Limits = Limits {
    entries: 200_000,
    entry_bytes: 1 << 30,
    kept_bytes: 2 << 30,
    read_bytes: 8 << 30,
    ratio: 200,
    ratio_after: 64 << 20,
};

/// The archive format of a file, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Archive {
    Gzip,
    Tar,
    Zip,
}

pub fn archive_kind(head: &[u8]) -> Option<Archive> {
    if head.starts_with(&[0x1f, 0x8b]) {
        Some(Archive::Gzip)
    } else if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Some(Archive::Zip)
    } else if head.len() >= 262 && &head[257..262] == b"ustar" {
        Some(Archive::Tar)
    } else {
        None
    }
}

/// Whether a directory is a collector's tree rather than a folder of object files: MetalLB's
/// report (`crds/` beside `pods/`, or `report/` holding them) or a sysdump (`k8s-nodes-<ts>.yaml`).
pub fn is_bundle_dir(dir: &Path) -> bool {
    let has = |p: &Path| p.exists();
    let report = |d: &Path| has(&d.join("crds")) && has(&d.join("pods"));
    if report(dir) || report(&dir.join("report")) {
        return true;
    }
    let names: Vec<String> = std::fs::read_dir(dir)
        .map(|r| r.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.iter().any(|n| n.starts_with("k8s-nodes-") && n.ends_with(".yaml"))
}

/// Reads an archive (shown as `shown`) from its bytes: the compressed form is small beside what
/// it unpacks to, and a `--from <(…)` pipe cannot be read twice.
pub fn read_archive(bytes: Vec<u8>, shown: &str, kind: Archive, limits: Limits) -> Result<Opened, LoadError> {
    let mut reader = Reader::new(shown, limits);
    let data = io::Cursor::new(bytes);
    match kind {
        Archive::Zip => read_zip(data, &mut reader)?,
        Archive::Gzip => {
            let counted = Counted { inner: data, count: Rc::new(Cell::new(0)) };
            reader.compressed = Some(counted.count.clone());
            let mut gz = flate2::read::GzDecoder::new(counted);
            let mut head = Vec::with_capacity(512);
            (&mut gz)
                .take(512)
                .read_to_end(&mut head)
                .map_err(|e| reader.refuse(&format!("not a readable gzip file: {}", crate::plain::io(&e))))?;
            if archive_kind(&head) != Some(Archive::Tar) {
                return Err(reader.refuse(
                    "a gzip of one file, not a tar archive of a bundle: unpack it (`gunzip`) and pass the file",
                ));
            }
            read_tar(io::Cursor::new(head).chain(gz), &mut reader)?
        }
        Archive::Tar => read_tar(data, &mut reader)?,
    }
    reader.finish()
}

/// Reads a collector's unpacked tree at `dir` (shown as `shown`).
pub fn read_dir(dir: &Path, shown: &str, limits: Limits) -> Result<Opened, LoadError> {
    let mut reader = Reader::new(shown, limits);
    let mut files = Vec::new();
    walk(dir, dir, &mut files).map_err(|source| LoadError::Io { path: shown.to_string(), source })?;
    files.sort();
    for relative in files {
        let full = dir.join(&relative);
        let name = relative.to_string_lossy().replace('\\', "/");
        let size = std::fs::metadata(&full).map(|m| m.len()).unwrap_or(0);
        let open =
            std::fs::File::open(&full).map_err(|source| LoadError::Io { path: format!("{shown}/{name}"), source })?;
        reader.entry(&name, size, open)?;
    }
    reader.finish()
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<std::path::PathBuf>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        // A collector writes regular files and directories; a link could lead out of the tree.
        if kind.is_dir() {
            walk(root, &entry.path(), out)?;
        } else if kind.is_file() {
            out.push(entry.path().strip_prefix(root).map(Path::to_path_buf).unwrap_or_else(|_| entry.path()));
        }
    }
    Ok(())
}

/// Counts the compressed bytes the decoder has taken, for the ratio check (shared with the
/// [`Reader`], since the decoder owns this).
struct Counted<R> {
    inner: R,
    count: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}

/// Why a read was stopped, carried through `io::Error` to the bundle's refusal.
#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// Reads one entry and stops, as the bytes come and not after, when it passes a limit: the
/// entry's own (a size header that lies), the whole bundle's, or the compression ratio.
struct Guard<'r, 's, R> {
    inner: R,
    entry: u64,
    reader: &'r mut Reader<'s>,
}

impl<R: Read> Read for Guard<'_, '_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let limits = self.reader.limits;
        self.entry += n as u64;
        self.reader.read += n as u64;
        let stop = |why: String| Err(io::Error::other(Refused(why)));
        if self.entry > limits.entry_bytes {
            return stop(format!("unpacks to more than {} bytes, more than its header says", limits.entry_bytes));
        }
        if self.reader.read > limits.read_bytes {
            return stop(format!("unpacks to more than {} bytes in all", limits.read_bytes));
        }
        if let Some(compressed) = &self.reader.compressed {
            let packed = compressed.get().max(1);
            let read = self.reader.read;
            if read > limits.ratio_after && read / packed > limits.ratio {
                return stop(format!(
                    "{read} bytes unpacked from {packed}: a compression bomb, not a collector's archive"
                ));
            }
        }
        Ok(n)
    }
}

fn read_tar(input: impl Read, reader: &mut Reader) -> Result<(), LoadError> {
    let mut archive = tar::Archive::new(input);
    let bad =
        |reader: &Reader, e: io::Error| reader.refuse(&format!("not a readable tar archive: {}", crate::plain::io(&e)));
    let entries = archive.entries().map_err(|e| bad(reader, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| bad(reader, e))?;
        let header = entry.header();
        let path = entry.path().map_err(|e| bad(reader, e))?.into_owned();
        let name = safe_name(reader, &path)?;
        let kind = header.entry_type();
        if kind.is_symlink() || kind.is_hard_link() {
            let target = entry.link_name().ok().flatten().map(|t| t.display().to_string()).unwrap_or_default();
            return Err(reader.refuse(&format!(
                "{name} is a link (to {target}): a collector writes files; links are refused, they can lead out of the bundle"
            )));
        }
        if kind.is_dir() || kind.is_pax_global_extensions() || kind.is_pax_local_extensions() || kind.is_gnu_longname()
        {
            continue;
        }
        if !kind.is_file() {
            reader.skipped.push(format!("{name}: not a regular file"));
            continue;
        }
        let size = entry.size();
        reader.entry(&name, size, entry)?;
    }
    Ok(())
}

fn read_zip(data: io::Cursor<Vec<u8>>, reader: &mut Reader) -> Result<(), LoadError> {
    let mut archive =
        zip::ZipArchive::new(data).map_err(|e| reader.refuse(&format!("not a readable zip archive: {e}")))?;
    if archive.len() > reader.limits.entries {
        return Err(reader.refuse(&format!(
            "{} entries, more than the {} a collector writes",
            archive.len(),
            reader.limits.entries
        )));
    }
    for i in 0..archive.len() {
        let entry = archive.by_index(i).map_err(|e| reader.refuse(&format!("entry {i}: {e}")))?;
        let raw = String::from_utf8_lossy(entry.name_raw()).into_owned();
        let name = safe_name(reader, Path::new(&raw))?;
        if entry.enclosed_name().is_none() {
            return Err(reader.refuse(&format!("{raw} points outside the bundle")));
        }
        if entry.is_symlink() {
            return Err(reader.refuse(&format!(
                "{name} is a link: a collector writes files; links are refused, they can lead out of the bundle"
            )));
        }
        if entry.is_dir() {
            continue;
        }
        let (size, compressed) = (entry.size(), entry.compressed_size());
        if size > reader.limits.ratio_after && size / compressed.max(1) > reader.limits.ratio {
            return Err(reader.refuse(&format!(
                "{name} unpacks to {size} bytes from {compressed}: a compression bomb, not a collector's file"
            )));
        }
        reader.entry(&name, size, entry)?;
    }
    Ok(())
}

/// The entry's path inside the bundle, `/`-separated, without `./`; refused when it climbs out.
fn safe_name(reader: &Reader, path: &Path) -> Result<String, LoadError> {
    let mut parts = Vec::new();
    for c in path.components() {
        match c {
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(reader.refuse(&format!(
                    "{} points outside the bundle (absolute, or through `..`): refused",
                    path.display()
                )));
            }
        }
    }
    Ok(parts.join("/"))
}

struct Reader<'s> {
    shown: &'s str,
    limits: Limits,
    entries: usize,
    kept: u64,
    read: u64,
    /// Compressed bytes taken so far, for a gzip stream.
    compressed: Option<Rc<Cell<u64>>>,
    texts: Vec<(Arc<str>, String)>,
    logs: Vec<PodLog>,
    /// By Pod: the dump's entry and text, `frr.conf`'s.
    frr: BTreeMap<String, (Option<Named>, Option<Named>)>,
    skipped: Vec<String>,
    layout: Option<Layout>,
}

/// An entry kept: its name as messages show it, and its text.
type Named = (String, String);

/// What an entry is, from its path alone.
enum Role {
    Objects,
    Log(String, Container),
    /// A file of FRR's in a speaker's directory: `dump_frr` (true) or `frr.conf`.
    Frr(String, bool),
    /// Read past, with why.
    Skip(&'static str),
}

impl<'s> Reader<'s> {
    fn new(shown: &'s str, limits: Limits) -> Reader<'s> {
        Reader {
            shown,
            limits,
            entries: 0,
            kept: 0,
            read: 0,
            compressed: None,
            texts: Vec::new(),
            logs: Vec::new(),
            frr: BTreeMap::new(),
            skipped: Vec::new(),
            layout: None,
        }
    }

    fn refuse(&self, why: &str) -> LoadError {
        LoadError::Bundle { path: self.shown.to_string(), message: why.to_string() }
    }

    fn entry(&mut self, name: &str, size: u64, data: impl Read) -> Result<(), LoadError> {
        self.entries += 1;
        if self.entries > self.limits.entries {
            return Err(self.refuse(&format!("more than {} entries: no collector writes so many", self.limits.entries)));
        }
        if size > self.limits.entry_bytes {
            return Err(self.refuse(&format!(
                "{name} is {size} bytes, more than the {} a collector's file can be: refused",
                self.limits.entry_bytes
            )));
        }
        let role = role(name);
        let keep = !matches!(role, Role::Skip(_));
        if keep && self.kept + size > self.limits.kept_bytes {
            return Err(self.refuse(&format!(
                "what it holds to read passes {} bytes at {name}: more than a collector writes",
                self.limits.kept_bytes
            )));
        }
        let mut bytes = Vec::with_capacity(if keep { size as usize } else { 0 });
        let mut guard = Guard { inner: data, entry: 0, reader: self };
        // A skipped entry is read through all the same: a bomb hidden in it still costs time.
        let done = if keep {
            guard.read_to_end(&mut bytes).map(drop)
        } else {
            io::copy(&mut guard, &mut io::sink()).map(drop)
        };
        if let Err(e) = done {
            return Err(match e.get_ref().and_then(|inner| inner.downcast_ref::<Refused>()) {
                Some(Refused(why)) => self.refuse(&format!("{why} (at {name})")),
                None => self.refuse(&format!("{name}: cannot be read: {}", crate::plain::io(&e))),
            });
        }
        let Role::Skip(why) = role else {
            self.kept += bytes.len() as u64;
            return self.keep(name, role, bytes);
        };
        self.skipped.push(format!("{name}: {why}"));
        Ok(())
    }

    fn keep(&mut self, name: &str, role: Role, bytes: Vec<u8>) -> Result<(), LoadError> {
        let shown = format!("{}/{name}", self.shown);
        let Ok(text) = String::from_utf8(bytes) else {
            self.skipped.push(format!("{name}: not UTF-8 text"));
            return Ok(());
        };
        let text = match text.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_string(),
            None => text,
        };
        // A sysdump writes what client-go's typed clients return: no apiVersion or kind on the
        // List or its items. Its file names say what they hold.
        let text = match sysdump_type(file_name(name)) {
            Some(typed) if matches!(role, Role::Objects) && !holds_objects(&text) => typed.stamp(&text),
            _ => text,
        };
        match role {
            Role::Objects if holds_objects(&text) => self.texts.push((shown.into(), text)),
            Role::Objects => self.skipped.push(format!("{name}: no Kubernetes objects (no `kind`)")),
            Role::Log(pod, container) => {
                let (layer2_at_end, allocation_failures) = match container {
                    Container::Speaker => (layer2_at_end(&text), BTreeMap::new()),
                    Container::Controller => (Default::default(), allocation_failures(&text)),
                };
                self.logs.push(PodLog { pod, container, entry: shown, text, layer2_at_end, allocation_failures })
            }
            Role::Frr(pod, dump) => {
                let files = self.frr.entry(pod).or_default();
                *(if dump { &mut files.0 } else { &mut files.1 }) = Some((shown, text));
            }
            Role::Skip(_) => {}
        }
        self.note_layout(name);
        Ok(())
    }

    fn note_layout(&mut self, name: &str) {
        let layout = if is_report_entry(name) {
            Layout::MetallbReport
        } else if sysdump_type(file_name(name)).is_some() {
            Layout::CiliumSysdump
        } else {
            Layout::Objects
        };
        self.layout = match (self.layout, layout) {
            (Some(Layout::Objects) | None, found) => Some(found),
            (kept, _) => kept,
        };
    }

    fn finish(self) -> Result<Opened, LoadError> {
        if self.texts.is_empty() && self.logs.is_empty() && self.frr.is_empty() {
            let seen = if self.skipped.is_empty() {
                "it is empty".to_string()
            } else {
                format!("of its {} entries none is a Kubernetes object file or a MetalLB Pod's log", self.skipped.len())
            };
            return Err(self.refuse(&format!("nothing to read: {seen}")));
        }
        let frr = self
            .frr
            .into_iter()
            .map(|(pod, (dump, conf))| {
                let parsed =
                    |file: &Option<Named>| file.as_ref().map(|(_, text)| crate::metallb::bgp::frr_dump::parse(text));
                let (from_dump, from_conf) = (parsed(&dump), parsed(&conf));
                let mut view = from_dump.clone().unwrap_or_default();
                if view.config.is_none() {
                    view.config = from_conf.and_then(|c| c.config);
                }
                let entry = dump.or(conf).map(|(entry, _)| entry).unwrap_or_default();
                PodFrr { pod, entry, dump: view }
            })
            .collect();
        let bundle = Bundle {
            path: self.shown.to_string(),
            layout: self.layout.unwrap_or(Layout::Objects),
            object_files: self.texts.len(),
            logs: self.logs,
            frr,
            skipped: self.skipped,
        };
        Ok(Opened { texts: self.texts, bundle })
    }
}

/// Per Service, the last allocation failure a controller's log records. The controller logs
/// `IP allocation failed` (with the error) under a logger that names no Service; the reconcile
/// then ends with `failed to handle service` naming it (one reconcile at a time). An allocation
/// that succeeds, or a reconcile that ends otherwise, clears what is pending.
fn allocation_failures(text: &str) -> BTreeMap<String, LoggedFailure> {
    #[derive(serde::Deserialize)]
    struct Line {
        #[serde(default)]
        msg: Option<String>,
        #[serde(default)]
        event: Option<String>,
        #[serde(default)]
        error: Option<serde_json::Value>,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        ts: Option<String>,
    }
    let mut out = BTreeMap::new();
    let mut pending: Option<LoggedFailure> = None;
    for raw in text.lines() {
        // kubectl's --timestamps and --prefix put text before the object.
        let Some(start) = raw.find('{') else { continue };
        let Ok(line) = serde_json::from_str::<Line>(&raw[start..]) else { continue };
        match (line.msg.as_deref(), line.event.as_deref()) {
            (Some("IP allocation failed"), _) => {
                let error = match line.error {
                    Some(serde_json::Value::String(s)) => s,
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                pending = Some(LoggedFailure { at: line.ts, error });
            }
            (_, Some("failed to handle service")) => {
                if let (Some(failure), Some(name)) = (pending.take(), line.name) {
                    out.insert(name, failure);
                }
            }
            (_, Some("ipAllocated" | "serviceUpdated" | "force service reload")) => pending = None,
            _ => {}
        }
    }
    out
}

/// The IPs a speaker's log leaves it announcing over layer 2.
fn layer2_at_end(text: &str) -> std::collections::BTreeSet<String> {
    // Reading from memory cannot fail; a log that is not MetalLB's leaves nothing announced.
    let Ok(stats) = crate::history::logs::scan(text.as_bytes(), None) else { return Default::default() };
    stats
        .ips
        .into_iter()
        .filter(|(_, counts)| counts.announcing_at_end && counts.protocol.contains_key("layer2"))
        .map(|(ip, _)| crate::k8s::ip::parse_go_ip(&ip).map(crate::k8s::ip::go_ip_string).unwrap_or(ip))
        .collect()
}

fn file_name(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// `…/crds/<kind>.yaml` or `…/pods/<pod>/<container>.log` as MetalLB's collector writes them.
fn is_report_entry(name: &str) -> bool {
    let parts: Vec<&str> = name.split('/').collect();
    let n = parts.len();
    (n >= 2 && parts[n - 2] == "crds")
        || (n >= 3 && parts[n - 3] == "pods" && parts[n - 1].ends_with(".log"))
        || (n >= 5 && parts[n - 5] == "pods" && parts[n - 3] == "frr")
}

fn role(name: &str) -> Role {
    let parts: Vec<&str> = name.split('/').collect();
    let n = parts.len();
    let file = parts[n - 1];
    if n >= 3 && parts[n - 3] == "pods" {
        let pod = parts[n - 2].to_string();
        return match file {
            "speaker.log" => Role::Log(pod, Container::Speaker),
            "controller.log" => Role::Log(pod, Container::Controller),
            "frr.log" | "reloader.log" | "frr-metrics.log" => Role::Skip("an FRR container's log, not read"),
            _ if file.ends_with(".yaml") || file.ends_with(".yml") || file.ends_with(".json") => Role::Objects,
            _ => Role::Skip("not a file lbdoctor reads"),
        };
    }
    if n >= 5 && parts[n - 5] == "pods" && parts[n - 3] == "frr" && parts[n - 2] == "logs" {
        let pod = parts[n - 4].to_string();
        return match file {
            "dump_frr" => Role::Frr(pod, true),
            "frr.conf" => Role::Frr(pod, false),
            _ => Role::Skip("an FRR file that shows nothing MetalLB configures"),
        };
    }
    match file.rsplit_once('.').map(|(_, ext)| ext) {
        Some("yaml" | "yml" | "json") => Role::Objects,
        _ => Role::Skip("not a file lbdoctor reads"),
    }
}

/// What a sysdump file holds, by its name (`k8s-nodes-<ts>.yaml`): the kinds the engines read.
struct SysdumpType {
    api_version: &'static str,
    kind: &'static str,
    /// A List of them, rather than one object.
    list: bool,
}

fn sysdump_type(file: &str) -> Option<SysdumpType> {
    const FILES: [(&str, &str, &str, bool); 12] = [
        ("k8s-nodes-", "v1", "Node", true),
        ("k8s-services-", "v1", "Service", true),
        ("k8s-pods-", "v1", "Pod", true),
        ("k8s-namespaces-", "v1", "Namespace", true),
        ("k8s-events-", "v1", "Event", true),
        ("k8s-leases-", "coordination.k8s.io/v1", "Lease", true),
        ("ciliumnodes-", "cilium.io/v2", "CiliumNode", true),
        ("ciliumloadbalancerippools-", "cilium.io/v2alpha1", "CiliumLoadBalancerIPPool", true),
        ("ciliuml2announcementpolicies-", "cilium.io/v2alpha1", "CiliumL2AnnouncementPolicy", true),
        ("cilium-configmap-", "v1", "ConfigMap", false),
        ("cilium-daemonset-", "apps/v1", "DaemonSet", false),
        ("cilium-operator-deployment-", "apps/v1", "Deployment", false),
    ];
    if !file.ends_with(".yaml") {
        return None;
    }
    FILES.iter().find(|(prefix, ..)| file.starts_with(prefix)).map(|&(_, api_version, kind, list)| SysdumpType {
        api_version,
        kind,
        list,
    })
}

impl SysdumpType {
    /// The text with `apiVersion` and `kind` written where kubectl writes them: first in the
    /// object, or in each item of the List (`- metadata:` becomes `- apiVersion: v1`, `  kind:
    /// Node`, `  metadata:`), items being the lines at the margin that start with `- `.
    fn stamp(&self, text: &str) -> String {
        let head = format!("apiVersion: {}\nkind: {}\n", self.api_version, self.kind);
        if !self.list {
            return head + text;
        }
        let item = format!("- apiVersion: {}\n  kind: {}\n  ", self.api_version, self.kind);
        let mut out = String::with_capacity(text.len() + text.len() / 20);
        out.push_str("apiVersion: v1\nkind: List\n");
        for line in text.split_inclusive('\n') {
            match line.strip_prefix("- ") {
                Some(rest) => {
                    out.push_str(&item);
                    out.push_str(rest);
                }
                None => out.push_str(line),
            }
        }
        out
    }
}

/// Whether a text has a `kind` key where objects have it: YAML at the start of a line (a
/// document's, or a List item's `- kind:`), or JSON's `"kind"`. Helm values, Hubble flows and
/// the like have none.
fn holds_objects(text: &str) -> bool {
    text.starts_with("kind:")
        || text.contains("\nkind:")
        || text.contains("\n- kind:")
        || text.contains("\n  kind:")
        || text.contains("\"kind\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::io::Write;

    const NODE: &[u8] = b"apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n";

    fn tar_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut tar = tar::Builder::new(Vec::new());
        for (name, data) in entries {
            let mut header = tar::Header::new_gnu();
            header.set_size(data.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            tar.append_data(&mut header, name, *data).unwrap();
        }
        tar.into_inner().unwrap()
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(bytes).unwrap();
        gz.finish().unwrap()
    }

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
        for (name, data) in entries {
            zip.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
            zip.write_all(data).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    fn open(bytes: Vec<u8>, limits: Limits) -> Result<Opened, LoadError> {
        let kind = archive_kind(&bytes).expect("an archive");
        read_archive(bytes, "b.tgz", kind, limits)
    }

    fn refusal(result: Result<Opened, LoadError>) -> String {
        match result {
            Err(LoadError::Bundle { message, .. }) => message,
            Err(e) => panic!("not a refusal: {e}"),
            Ok(_) => panic!("read"),
        }
    }

    #[test]
    fn a_report_is_told_apart_from_a_sysdump_and_a_tree_of_dumps() {
        let report = [
            ("./report/crds/l2advertisements.yaml", NODE),
            ("./report/pods/speaker-a/speaker.log", b"{}\n".as_slice()),
            ("./report/pods/controller-b/controller.log", b"{}\n".as_slice()),
            ("./report/pods/speaker-a/frr/logs/dump_frr", b"###### show bgp neighbor\n".as_slice()),
            ("./report/pods/speaker-a/frr/logs/daemons", b"bgpd=yes\n".as_slice()),
        ];
        let got = open(gzip(&tar_of(&report)), LIMITS).unwrap();
        assert_eq!(got.bundle.layout, Layout::MetallbReport);
        assert_eq!(got.texts.len(), 1);
        assert_eq!(&*got.texts[0].0, "b.tgz/report/crds/l2advertisements.yaml");
        let logs: Vec<(&str, &Container)> = got.bundle.logs.iter().map(|l| (l.pod.as_str(), &l.container)).collect();
        assert_eq!(logs, [("speaker-a", &Container::Speaker), ("controller-b", &Container::Controller)]);
        assert_eq!(got.bundle.skipped.len(), 1, "{:?}", got.bundle.skipped);
        assert_eq!(got.bundle.frr.len(), 1);
        assert_eq!(got.bundle.frr[0].entry, "b.tgz/report/pods/speaker-a/frr/logs/dump_frr");
        assert_eq!(got.bundle.frr[0].dump.sessions, Some(Default::default()));

        let sysdump =
            [("cilium-sysdump-x/k8s-nodes-20261206-101500.yaml", b"items:\n- metadata:\n    name: a\n".as_slice())];
        let got = open(zip_of(&sysdump), LIMITS).unwrap();
        assert_eq!(got.bundle.layout, Layout::CiliumSysdump);
        assert_eq!(
            got.texts[0].1,
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n"
        );

        let dumps = [("dumps/nodes.yaml", NODE), ("dumps/notes.txt", b"x".as_slice())];
        let got = open(tar_of(&dumps), LIMITS).unwrap();
        assert_eq!(got.bundle.layout, Layout::Objects);
        assert_eq!(got.bundle.skipped, ["dumps/notes.txt: not a file lbdoctor reads"]);
    }

    #[test]
    fn every_limit_refuses_with_what_it_is() {
        let small =
            Limits { entries: 2, entry_bytes: 100, kept_bytes: 120, read_bytes: 300, ratio: 10, ratio_after: 1000 };
        let three = [("a.yaml", NODE), ("b.yaml", NODE), ("c.yaml", NODE)];
        assert!(refusal(open(tar_of(&three), small)).contains("more than 2 entries"));
        let big = vec![b'#'; 101];
        assert!(refusal(open(tar_of(&[("a.yaml", &big)]), small)).contains("a.yaml is 101 bytes, more than the 100"));
        let kept = Limits { entries: 10, ..small };
        assert!(refusal(open(tar_of(&three), kept)).contains("passes 120 bytes at c.yaml"));
        // Skipped entries count toward what is unpacked.
        let skipped = [("a.txt", &big[..90]), ("b.txt", &big[..90]), ("c.txt", &big[..90]), ("d.txt", &big[..90])];
        assert!(refusal(open(tar_of(&skipped), kept)).contains("unpacks to more than 300 bytes in all"));
        // The ratio, as the bytes come.
        let zeros = vec![0u8; 50_000];
        let ratio = Limits {
            entries: 10,
            entry_bytes: 1 << 20,
            kept_bytes: 1 << 20,
            read_bytes: 1 << 20,
            ratio: 10,
            ratio_after: 1000,
        };
        assert!(refusal(open(gzip(&tar_of(&[("z.log", &zeros)])), ratio)).contains("a compression bomb"));
        let zipped = zip_of(&[("z.yaml", &zeros)]);
        assert!(refusal(open(zipped, ratio)).contains("a compression bomb"));
    }

    #[test]
    fn an_archive_of_nothing_readable_says_so() {
        assert!(
            refusal(open(tar_of(&[("notes.txt", b"x")]), LIMITS)).contains("nothing to read: of its 1 entries none")
        );
        assert!(refusal(open(tar_of(&[("values.yaml", b"replicas: 1\n")]), LIMITS)).contains("nothing to read"));
    }

    /// As MetalLB's controller logs them (v0.13.0 to v0.16.1 alike): the failure names no
    /// Service, the reconcile's end does.
    #[test]
    fn a_controller_log_names_each_services_last_allocation_failure() {
        let log = r#"{"branch":"HEAD","caller":"main.go:189","level":"info","msg":"MetalLB controller starting version 0.16.1 (commit 791dfcc6, branch HEAD)","ts":"2026-12-01T10:00:00Z","version":"0.16.1"}
{"caller":"service.go:179","error":"no available IPs","level":"error","msg":"IP allocation failed","op":"allocateIPs","ts":"2026-12-01T10:00:01Z"}
{"caller":"service_controller.go:112","controller":"ServiceReconciler","endpoints":"{}","event":"failed to handle service","level":"error","name":"default/new","service":"{}","ts":"2026-12-01T10:00:01Z"}
{"caller":"service.go:186","event":"ipAllocated","ip":["198.51.100.9"],"level":"info","msg":"IP address assigned by controller","ts":"2026-12-01T10:00:02Z"}
{"caller":"main.go:136","event":"serviceUpdated","level":"info","msg":"updated service object","ts":"2026-12-01T10:00:02Z"}
2026-12-01T10:00:03.000000001Z {"caller":"service.go:179","error":"[\"198.51.100.8\"] is not allowed in config","level":"error","msg":"IP allocation failed","op":"allocateIPs","ts":"2026-12-01T10:00:03Z"}
{"caller":"service_controller.go:112","controller":"ServiceReconciler","event":"failed to handle service","level":"error","name":"default/pinned","ts":"2026-12-01T10:00:03Z"}
{"caller":"service.go:179","error":"no available IPs","level":"error","msg":"IP allocation failed","op":"allocateIPs","ts":"2026-12-01T10:00:04Z"}
{"caller":"service_controller.go:106","controller":"ServiceReconciler","event":"force service reload","level":"info","ts":"2026-12-01T10:00:04Z"}
{"caller":"service_controller.go:112","controller":"ServiceReconciler","event":"failed to handle service","level":"error","name":"default/other","ts":"2026-12-01T10:00:05Z"}
"#;
        let got = allocation_failures(log);
        let failure = |at: &str, error: &str| LoggedFailure { at: Some(at.into()), error: error.into() };
        assert_eq!(
            got,
            BTreeMap::from([
                ("default/new".to_string(), failure("2026-12-01T10:00:01Z", "no available IPs")),
                (
                    "default/pinned".to_string(),
                    failure("2026-12-01T10:00:03Z", "[\"198.51.100.8\"] is not allowed in config")
                ),
            ]),
            "a failure whose reconcile ends without naming its Service is nobody's"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
        /// A damaged archive (bytes changed, cut short) is read or refused, never a panic.
        #[test]
        fn damaged_archives_are_read_or_refused(
            form in 0usize..3,
            flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
            cut in any::<prop::sample::Index>(),
            truncate in any::<bool>(),
        ) {
            let entries = [("report/crds/x.yaml", NODE), ("report/pods/speaker-a/speaker.log", b"{\"msg\":\"x\"}\n".as_slice())];
            let mut bytes = match form {
                0 => gzip(&tar_of(&entries)),
                1 => zip_of(&entries),
                _ => tar_of(&entries),
            };
            for (at, b) in flips {
                let i = at.index(bytes.len());
                bytes[i] = b;
            }
            if truncate {
                bytes.truncate(cut.index(bytes.len()).max(1));
            }
            if let Some(kind) = archive_kind(&bytes) {
                let _ = read_archive(bytes, "b", kind, LIMITS);
            }
        }
    }
}
