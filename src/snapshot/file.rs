//! Loading snapshots from files, directories and stdin: multi-document YAML, JSON, `kind: List`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{DaemonSet, Deployment, EndpointSlice, Pod, Service};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Event, Namespace, Node};
use rayon::prelude::*;

use super::{cilium, crd, Snapshot, SnapshotInfo};

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: {}", crate::plain::io(source))]
    Io { path: String, source: std::io::Error },
    #[error("{path}: no *.yaml, *.yml or *.json files in this directory")]
    EmptyDirectory { path: String },
    #[error("{origin}: {}", crate::plain::decode(message))]
    Malformed { origin: String, message: String },
    /// An archive or collector tree that cannot or must not be read.
    #[error("{path}: {message}")]
    Bundle { path: String, message: String },
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
                // serde_json counts a position at the start of a line as column 0.
                write!(f, ":{}", col.max(1))?;
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
    let streamed: Vec<bool> = inputs.iter().map(|i| streamable(i)).collect();
    if !inputs.iter().any(|i| i == "-") && streamed.contains(&true) {
        if let Some(snap) = load_streaming(inputs, &streamed) {
            return Ok(snap);
        }
    }
    let Inputs { texts, bundles } = read_sources(inputs, stdin)?;
    let mut snap = load_texts(&texts)?;
    snap.bundles = bundles.into_iter().map(Arc::new).collect();
    Ok(snap)
}

/// A JSON file at least this large is read and decoded a piece at a time ([`load_streaming`]).
const STREAM_FROM: u64 = 4 << 20;
/// Items are decoded (in parallel) once this much of their text has arrived.
const STREAM_BATCH: usize = 2 << 20;
const STREAM_READ: usize = 1 << 20;

/// A plain file large enough to stream that starts as a JSON object.
fn streamable(input: &str) -> bool {
    let Ok(meta) = std::fs::metadata(input) else { return false };
    if !meta.is_file() || meta.len() < STREAM_FROM {
        return false;
    }
    let mut head = [0u8; 256];
    let Ok(n) = std::fs::File::open(input).and_then(|mut f| f.read(&mut head)) else { return false };
    let head = head[..n].strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head[..n]);
    head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// [`load_paths`] with each large JSON List file read and decoded a few megabytes at a time,
/// so that its text is never whole in memory: the same snapshot, objects in the same order.
/// `None` on anything unusual — an error of any kind, a file the scanner cannot follow — and
/// the caller reads every file whole, which reports errors as it always has.
/// `streamed`: per input, whether it is [`streamable`].
fn load_streaming(inputs: &[String], streamed: &[bool]) -> Option<Snapshot> {
    let mut collector = Collector::default();
    let mut bundles = Vec::new();
    for (input, &streamed) in inputs.iter().zip(streamed) {
        if streamed {
            stream_list(input, &mut collector)?;
            continue;
        }
        let read = read_sources(std::slice::from_ref(input), &mut std::io::empty()).ok()?;
        bundles.extend(read.bundles.into_iter().map(Arc::new));
        decode_texts_into(&read.texts, Depth::Snapshot, &mut collector).ok()?;
    }
    let mut snap = collector.finish(false);
    snap.bundles = bundles;
    Some(snap)
}

/// Reads one JSON List file into `collector`, its items decoded a batch at a time. A thread of
/// its own reads the file and finds the items of the next batch while the batch before is
/// decoded: finding them is sequential, and left the other core idle for a third of a load.
fn stream_list(input: &str, collector: &mut Collector) -> Option<()> {
    let file: Arc<str> = Path::new(input).display().to_string().into();
    let reader = std::fs::File::open(input).ok()?;
    let size = reader.metadata().ok()?.len();
    // A batch is handed over when the decoder takes it: the text in memory is the batch being
    // decoded, the one the scanner holds out and the piece it reads. Each batch in flight is
    // memory the sequential reader did not hold: 2 MiB batches keep the load's own peak 10 MB
    // above it (4 MiB: 14 MB), at the same speed.
    let (batches, arrived) = std::sync::mpsc::sync_channel::<Batch>(0);
    // Decoded batches' buffers go back to the scanner: a fresh 2 MiB buffer for each batch was
    // a fifth of the load's page faults, on the thread the decoders wait for.
    let (spent, reusable) = std::sync::mpsc::channel::<String>();
    std::thread::scope(|scope| {
        let scanning = scope.spawn(move || scan_batches(reader, batches, reusable));
        let decoded = decode_batches(&file, size, &arrived, &spent, collector);
        // A decoder that stopped early leaves the scanner blocked on a full channel: closing it
        // ends the scanner's sending, and so its thread.
        drop(arrived);
        let listed = scanning.join().ok().flatten();
        (decoded.is_some() && listed == Some(true)).then_some(())
    })
}

/// A batch of a streamed List's items: the text from the first one's start to the last one's
/// end, where each lies in it, and the file's line and column of its first byte.
struct Batch {
    text: String,
    items: Vec<std::ops::Range<usize>>,
    base: (u64, u64),
}

fn decode_batches(
    file: &Arc<str>,
    size: u64,
    arrived: &std::sync::mpsc::Receiver<Batch>,
    spent: &std::sync::mpsc::Sender<String>,
    collector: &mut Collector,
) -> Option<()> {
    let mut next_item = 0usize;
    // Adding a batch's objects to the snapshot is sequential: it happens beside the decoding
    // of the next batch, not between two decodings.
    let mut decoded: Option<(Vec<Result<Decoded, LoadError>>, f64)> = None;
    let mut read = 0u64;
    for batch in arrived.iter() {
        let first = next_item;
        next_item += batch.items.len();
        read += batch.text.len() as u64;
        let scale = (size as f64 / read as f64).max(1.0);
        let (parsed, added) = rayon::join(
            || {
                let lines = LineIndex::at(&batch.text, batch.base);
                let splits = (first..)
                    .zip(&batch.items)
                    .map(|(item, r)| {
                        let origin = Origin { file: file.clone(), line: None, column: None, item: Some(item) };
                        Split::Raw(RawItem { origin, raw: &batch.text[r.clone()], offset: r.start, lines: &lines })
                    })
                    .collect();
                decode_splits(splits, false, Depth::Snapshot)
            },
            || decoded.take().map_or(Ok(()), |(parsed, scale)| add_decoded(parsed, scale, collector)),
        );
        added.ok()?;
        decoded = Some((parsed, scale));
        // Nothing decoded borrows the text. A scanner already gone needs no buffer.
        let _ = spent.send(batch.text);
    }
    decoded.map_or(Ok(()), |(parsed, scale)| add_decoded(parsed, scale, collector)).ok()
}

/// Reads a JSON List file and sends its items a batch at a time; whether it was a List, once
/// it is read to the end. `None` on anything the scanner cannot follow, or when the decoder
/// stopped taking batches.
fn scan_batches(
    mut reader: std::fs::File,
    batches: std::sync::mpsc::SyncSender<Batch>,
    reusable: std::sync::mpsc::Receiver<String>,
) -> Option<bool> {
    let mut scanner = super::list_scan::ListScanner::new();
    let (mut buf, mut items) = (Vec::with_capacity(STREAM_BATCH + 2 * STREAM_READ), Vec::new());
    // The file's line and column of `buf[0]`.
    let mut base = (1u64, 1u64);
    let (mut first, mut sent) = (true, 0usize);
    loop {
        let len = buf.len();
        // Into the spare capacity, not zeroed first: `read_to_end` retries an interrupted read.
        let n = (&mut reader).take(STREAM_READ as u64).read_to_end(&mut buf).ok()?;
        debug_assert_eq!(buf.len(), len + n);
        if std::mem::take(&mut first) && buf.starts_with(b"\xEF\xBB\xBF") {
            // As `without_bom`: positions count from after it.
            buf.drain(..3);
        }
        let eof = n == 0;
        scanner.scan(&buf, eof, &mut items).ok()?;
        let pending: usize = items.iter().map(|r: &std::ops::Range<usize>| r.len()).sum();
        // The first batch small: nothing is decoded until it is found.
        let wanted = if sent == 0 { STREAM_BATCH / 4 } else { STREAM_BATCH };
        if !items.is_empty() && (eof || pending >= wanted) {
            let (start, end) = (items[0].start, items[items.len() - 1].end);
            // Room for the largest batch: a batch outgrowing its buffer would fault a fresh one.
            let mut text =
                reusable.try_recv().unwrap_or_else(|_| String::with_capacity(STREAM_BATCH + 2 * STREAM_READ));
            text.clear();
            text.push_str(std::str::from_utf8(&buf[start..end]).ok()?);
            let batch = Batch {
                text,
                items: items.drain(..).map(|r| r.start - start..r.end - start).collect(),
                base: advance(base, &buf[..start]),
            };
            batches.send(batch).ok()?;
            sent += 1;
        }
        let keep = items.first().map_or(scanner.keep_from(), |r| r.start);
        base = advance(base, &buf[..keep]);
        buf.drain(..keep);
        scanner.shift(keep);
        for r in &mut items {
            *r = r.start - keep..r.end - keep;
        }
        if eof {
            return Some(is_list(scanner.finish().ok()?.as_deref()));
        }
    }
}

/// The line and column after `bytes`, from `base` at their start.
fn advance(base: (u64, u64), bytes: &[u8]) -> (u64, u64) {
    match memchr::memrchr(b'\n', bytes) {
        None => (base.0, base.1 + bytes.len() as u64),
        Some(last) => (base.0 + memchr::memchr_iter(b'\n', bytes).count() as u64, (bytes.len() - last) as u64),
    }
}

/// What the inputs hold: the text of every object file, and what bundles held besides.
pub struct Inputs {
    pub texts: Vec<(Arc<str>, String)>,
    pub bundles: Vec<super::bundle::Bundle>,
}

/// The text of every input, named as errors name it: a file, each snapshot file of a directory,
/// or `<stdin>` for `-`.
pub fn read_inputs(inputs: &[String], stdin: &mut dyn Read) -> Result<Vec<(Arc<str>, String)>, LoadError> {
    read_sources(inputs, stdin).map(|i| i.texts)
}

/// As [`read_inputs`], with archives and collector trees opened as bundles
/// ([`super::bundle`]): their object files join the texts, their logs and layout are kept.
pub fn read_sources(inputs: &[String], stdin: &mut dyn Read) -> Result<Inputs, LoadError> {
    let mut texts: Vec<(Arc<str>, String)> = Vec::new();
    let mut bundles = Vec::new();
    let mut opened = |o: super::bundle::Opened, texts: &mut Vec<(Arc<str>, String)>| {
        texts.extend(o.texts);
        bundles.push(o.bundle);
    };
    for input in inputs {
        if input == "-" {
            let mut bytes = Vec::new();
            stdin.read_to_end(&mut bytes).map_err(|source| LoadError::Io { path: "<stdin>".into(), source })?;
            match super::bundle::archive_kind(&bytes) {
                Some(kind) => {
                    opened(super::bundle::read_archive(bytes, "<stdin>", kind, super::bundle::LIMITS)?, &mut texts)
                }
                None => texts.push(("<stdin>".into(), without_bom(utf8("<stdin>", bytes)?))),
            }
            continue;
        }
        let path = Path::new(input);
        let meta = std::fs::metadata(path).map_err(|source| LoadError::Io { path: input.clone(), source })?;
        let files = if meta.is_dir() && super::bundle::is_bundle_dir(path) {
            opened(super::bundle::read_dir(path, input, super::bundle::LIMITS)?, &mut texts);
            continue;
        } else if meta.is_dir() {
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
            let bytes = std::fs::read(&file).map_err(|source| LoadError::Io { path: name.clone(), source })?;
            // Told by its first bytes: `metallb_report.tgz`, a sysdump `.zip`, or a renamed one.
            if let Some(kind) = super::bundle::archive_kind(&bytes) {
                opened(super::bundle::read_archive(bytes, &name, kind, super::bundle::LIMITS)?, &mut texts);
                continue;
            }
            let text = utf8(&name, bytes)?;
            texts.push((name.into(), without_bom(text)));
        }
    }
    Ok(Inputs { texts, bundles })
}

/// Loads named texts already in memory (the embedded demo), exactly as files are loaded.
pub fn load_texts(texts: &[(Arc<str>, String)]) -> Result<Snapshot, LoadError> {
    load_texts_checked(texts, Depth::Snapshot)
}

/// As [`load_texts`], with `ignored_fields` checked over whole objects of every kind, as
/// `kubectl apply` checks a file (`simulate --apply`).
pub fn load_texts_strict(texts: &[(Arc<str>, String)]) -> Result<Snapshot, LoadError> {
    load_texts_checked(texts, Depth::Apply)
}

fn load_texts_checked(texts: &[(Arc<str>, String)], depth: Depth) -> Result<Snapshot, LoadError> {
    let mut collector = Collector::default();
    decode_texts_into(texts, depth, &mut collector)?;
    Ok(collector.finish(false))
}

/// Splits every text into its objects (all of them first, so that a syntax error anywhere is
/// reported before a decoding error) and adds them to `collector`.
fn decode_texts_into(texts: &[(Arc<str>, String)], depth: Depth, collector: &mut Collector) -> Result<(), LoadError> {
    let indexes: Vec<LineIndex> = texts.iter().map(|(_, t)| LineIndex::new(t)).collect();
    let mut pending = Vec::new();
    for ((file, text), lines) in texts.iter().zip(&indexes) {
        split_text(file, text, lines, &mut pending)?;
    }
    decode_into(pending, false, depth, collector)
}

/// How far unknown fields are looked for (`strict`): a snapshot's may be a newer version's.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Depth {
    /// MetalLB's and Cilium's kinds whole, built-ins at the top level and `metadata`.
    Snapshot,
    /// Every kind whole.
    Apply,
}

/// One object's JSON text as an API server sent it, with what it is and where it came from.
pub struct ObjectText {
    /// The request, for error messages: `GET /api/v1/nodes`.
    pub origin: Arc<str>,
    pub api_version: String,
    pub kind: String,
    pub text: String,
}

/// Builds a Snapshot from objects read live, through the same decoding and duplicate checks as
/// files.
pub fn from_texts<'a>(objects: impl IntoIterator<Item = &'a ObjectText>) -> Result<Snapshot, LoadError> {
    from_texts_early(objects.into_iter().map(|o| (o, None)))
}

/// A live object decoded as soon as its page arrived, while the next pages were still on their
/// way: decoding everything after the last page was a tenth of a large cluster's collection,
/// with both cores waiting on the network before it. Only a decoding that succeeded is kept
/// ([`from_texts_early`] decodes the others again, where their errors get their places).
pub struct Early(Option<Decoded>);

/// Decodes `objects` (in parallel) as [`from_texts`] would, before it is called.
pub fn decode_early(objects: &[ObjectText]) -> Vec<Early> {
    let pending = objects.iter().map(|o| ready(o, None)).collect();
    decode_splits(pending, true, Depth::Snapshot).into_iter().map(|d| Early(d.ok())).collect()
}

/// [`from_texts`] of objects some of which were decoded early: the snapshot is the same.
pub fn from_texts_early<'a>(
    objects: impl IntoIterator<Item = (&'a ObjectText, Option<Early>)>,
) -> Result<Snapshot, LoadError> {
    let mut decoded: Vec<Option<Result<Decoded, LoadError>>> = Vec::new();
    let mut late = Vec::new();
    for (i, (o, early)) in objects.into_iter().enumerate() {
        match early.and_then(|e| e.0) {
            Some(mut d) => {
                // Its place in the collection, which an error message of the loader would name.
                for p in d.items_mut() {
                    p.origin.item = Some(i);
                }
                decoded.push(Some(Ok(d)));
            }
            None => {
                late.push(ready(o, Some(i)));
                decoded.push(None);
            }
        }
    }
    let mut late = decode_splits(late, true, Depth::Snapshot).into_iter();
    let decoded = decoded.into_iter().map(|d| d.or_else(|| late.next()).expect("one late decoding per gap")).collect();
    let mut collector = Collector::default();
    add_decoded(decoded, 1.0, &mut collector)?;
    Ok(collector.finish(true))
}

/// A live object to decode (`decode_splits(…, true, …)`: without the managedFields no engine
/// reads, as a live snapshot's file holds it, so that the objects of a live run are those the
/// written file gives back).
fn ready(o: &ObjectText, item: Option<usize>) -> Split<'_> {
    Split::Ready(Pending {
        origin: Origin { file: o.origin.clone(), line: None, column: None, item },
        api_version: o.api_version.clone(),
        kind: o.kind.clone(),
        meta: None,
        doc: Doc::Text(&o.text),
    })
}

/// Decodes `pending` and adds the objects to `collector`, in order.
fn decode_into(pending: Vec<Split>, trim: bool, depth: Depth, collector: &mut Collector) -> Result<(), LoadError> {
    add_decoded(decode_splits(pending, trim, depth), 1.0, collector)
}

/// Each object decoded, in parallel: the expensive part, and each object is independent.
fn decode_splits(pending: Vec<Split>, trim: bool, depth: Depth) -> Vec<Result<Decoded, LoadError>> {
    pending
        .into_par_iter()
        .map(|split| {
            let mut decoded = split.decode(depth)?;
            for item in decoded.items_mut().iter_mut().filter(|_| trim) {
                if let Some(meta) = item.object.meta_mut() {
                    crate::snapshot::trim_managed_fields(meta);
                }
            }
            Ok(decoded)
        })
        .collect()
}

/// Adds decoded objects to the snapshot in order; the first error stops it. `scale`: 1 for a
/// whole input; for one batch of a streamed file, the file's size over the text read so far,
/// what each kind's count so far is projected by when its room runs out.
fn add_decoded(
    parsed: Vec<Result<Decoded, LoadError>>,
    scale: f64,
    collector: &mut Collector,
) -> Result<(), LoadError> {
    collector.reserve(parsed.iter().flatten().flat_map(Decoded::items), scale);
    for decoded in parsed {
        match decoded? {
            Decoded::One(item) => collector.add(item)?,
            Decoded::Many(items) => {
                for item in items {
                    collector.add(item)?;
                }
            }
        }
    }
    Ok(())
}

/// The text of a file, or where it stops being UTF-8.
fn utf8(name: &str, bytes: Vec<u8>) -> Result<String, LoadError> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&valid[line_start..]).chars().count() + 1;
        let byte = e.as_bytes()[valid.len()];
        LoadError::Malformed {
            origin: format!("{name}:{line}:{column}"),
            message: format!(
                "not UTF-8 text (byte 0x{byte:02X}): Kubernetes manifests are UTF-8; re-save the file as UTF-8"
            ),
        }
    })
}

/// Editors on some systems start UTF-8 files with a byte-order mark; neither parser wants it.
fn without_bom(mut text: String) -> String {
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    text
}

/// The snapshot files under `dir`, sorted. Each real directory is read once, however many
/// symlinks lead to it (`self -> .` would otherwise be walked until the path is too long), and
/// only regular files are taken: a FIFO or a device in a directory would block or never end.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut seen = std::collections::HashSet::new();
    walk_once(dir, out, &mut seen)
}

fn walk_once(dir: &Path, out: &mut Vec<PathBuf>, seen: &mut std::collections::HashSet<PathBuf>) -> std::io::Result<()> {
    if !seen.insert(std::fs::canonicalize(dir)?) {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        // Follows symlinks: a link to a file or a directory counts as what it points to.
        let Ok(meta) = std::fs::metadata(&path) else { continue };
        if meta.is_dir() {
            walk_once(&path, out, seen)?;
        } else if meta.is_file() && matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml" | "json")) {
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
    /// A YAML document as a value, with its place in the file when it is a whole document (not
    /// a List item): a decode error is then placed by decoding its text again.
    Value(serde_json::Value, Option<YamlPlace<'a>>),
    /// A YAML document or List item transcribed to JSON text (`yaml_block`), placed as `Value` is.
    Json(String, Option<YamlPlace<'a>>),
    /// A JSON object, with the byte offset of its text in the file and the file's line index.
    Raw(&'a str, usize, &'a LineIndex<'a>),
    /// A JSON object from an API response: no file position to report.
    Text(&'a str),
}

/// Where a whole YAML document sits in its file; its text is cut out only when an error needs it.
#[derive(Clone, Copy)]
struct YamlPlace<'a> {
    text: &'a str,
    lines: &'a LineIndex<'a>,
    /// The document's first line, and the next document's.
    line: u64,
    next: Option<u64>,
}

impl<'a> YamlPlace<'a> {
    /// From the document's first line to the `---` before the next one.
    fn own_text(&self) -> &'a str {
        let start_of = |line| self.lines.line_start(line, self.text.len());
        let end = self.next.map_or(self.text.len(), start_of);
        let own = &self.text[start_of(self.line).min(end)..end];
        match own.rfind("\n---").filter(|_| self.next.is_some()) {
            Some(separator) => &own[..separator + 1],
            None => own,
        }
    }
}

/// Where lines start, kept sparse: per 4 KiB block of text, the newlines before it and where
/// the last of them is; a position is found by reading one block again. An indented 50 MB
/// snapshot has 2.5 million lines, a compact one a single line of 27 MB: a list of every
/// newline would take 20 MB in the first, and counting from the start would take seconds in
/// the second.
struct LineIndex<'t> {
    text: &'t str,
    /// Per block: newlines before its start, and the offset of the last of them.
    blocks: Vec<(usize, Option<usize>)>,
    /// The file's line and column where `text` starts: a streamed piece of a file
    /// ([`load_streaming`]) starts in its middle.
    base: (u64, u64),
}

impl<'t> LineIndex<'t> {
    const BLOCK: usize = 4096;

    fn new(text: &'t str) -> LineIndex<'t> {
        let bytes = text.as_bytes();
        let mut blocks = Vec::with_capacity(bytes.len() / Self::BLOCK + 1);
        let (mut count, mut last) = (0, None);
        for start in (0..=bytes.len()).step_by(Self::BLOCK) {
            blocks.push((count, last));
            let chunk = &bytes[start..(start + Self::BLOCK).min(bytes.len())];
            count += memchr::memchr_iter(b'\n', chunk).count();
            if let Some(n) = memchr::memrchr(b'\n', chunk) {
                last = Some(start + n);
            }
        }
        LineIndex { text, blocks, base: (1, 1) }
    }

    /// For a piece of a file that starts at `base` (1-based line and column).
    fn at(text: &'t str, base: (u64, u64)) -> LineIndex<'t> {
        LineIndex { base, ..LineIndex::new(text) }
    }

    /// The offset of newline number `i` (0-based), if the text has that many.
    fn newline(&self, i: usize) -> Option<usize> {
        let block = self.blocks.partition_point(|&(before, _)| before <= i).checked_sub(1)?;
        let start = block * Self::BLOCK;
        let skip = i - self.blocks[block].0;
        memchr::memchr_iter(b'\n', &self.text.as_bytes()[start..]).nth(skip).map(|n| start + n)
    }

    /// The byte offset where a 1-based line starts (the text's end past its last line).
    fn line_start(&self, line: u64, text_len: usize) -> usize {
        match line.checked_sub(2) {
            None => 0,
            Some(i) => self.newline(i as usize).map_or(text_len, |n| n + 1),
        }
    }

    /// 1-based line and column of a byte offset.
    fn position(&self, offset: usize) -> (u64, u64) {
        let block = offset / Self::BLOCK;
        let (before, last) = self.blocks[block];
        let from = block * Self::BLOCK;
        let bytes = &self.text.as_bytes()[from..offset];
        let lines = before + memchr::memchr_iter(b'\n', bytes).count();
        let start = match memchr::memrchr(b'\n', bytes) {
            Some(n) => from + n + 1,
            None => last.map_or(0, |n| n + 1),
        };
        let (line, column) = (lines as u64 + 1, (offset - start) as u64 + 1);
        match line {
            1 => (self.base.0, self.base.1 + column - 1),
            _ => (self.base.0 + line - 1, column),
        }
    }
}

impl Doc<'_> {
    /// Borrows the document: an error message may still need its name from it.
    fn parse<T: DeserializeOwned>(&self, origin: &Origin) -> Result<T, (Origin, String)> {
        match self {
            Doc::Value(v, source) => T::deserialize(v).map_err(|e| yaml_error::<T>(origin, *source, e.to_string())),
            Doc::Json(text, source) => {
                serde_json::from_str(text).map_err(|e| yaml_error::<T>(origin, *source, strip_position(e.to_string())))
            }
            Doc::Text(t) => serde_json::from_str(t).map_err(|e| (origin.clone(), strip_position(e.to_string()))),
            Doc::Raw(raw, offset, lines) => serde_json::from_str(raw).map_err(|e| raw_error(e, origin, *offset, lines)),
        }
    }
}

/// Where in its file a YAML document's decoding failed: the value or the JSON text made from it
/// has no positions of the file, so the document's text, decoded straight into the type, says
/// where (the failure path only). A List item has no place of its own: `message` then.
fn yaml_error<T: DeserializeOwned>(origin: &Origin, source: Option<YamlPlace>, message: String) -> (Origin, String) {
    let located = source.and_then(|place| {
        let e = serde_saphyr::from_str_with_options::<T>(place.own_text(), yaml_options()).err()?;
        let loc = e.location()?;
        let mut at = origin.clone();
        at.line = Some(place.line + loc.line() - 1);
        at.column = Some(loc.column());
        Some((at, yaml_message(&e)))
    });
    located.unwrap_or_else(|| (origin.clone(), message))
}

/// Where in the file a JSON object's decoding failed: serde_json counts from the start of the
/// object's own text.
fn raw_error(e: serde_json::Error, origin: &Origin, offset: usize, lines: &LineIndex) -> (Origin, String) {
    let mut at = origin.clone();
    if e.line() > 0 {
        let (obj_line, obj_col) = lines.position(offset);
        at.line = Some(obj_line + e.line() as u64 - 1);
        at.column = Some(if e.line() == 1 { obj_col + e.column() as u64 - 1 } else { e.column() as u64 });
    }
    (at, strip_position(e.to_string()))
}

fn strip_position(message: String) -> String {
    let message = match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    };
    match message.strip_prefix("EOF while parsing ") {
        Some(what) => format!("the text ends inside {what} (a truncated file?)"),
        None => message,
    }
}

/// An object found in the input, with what is needed to decode it.
struct Pending<'a> {
    origin: Origin,
    api_version: String,
    kind: String,
    /// `None` when only the head was sniffed: the decoded object's metadata tells.
    meta: Option<(String, String)>,
    doc: Doc<'a>,
}

/// A JSON object whose head is still to be read: that read costs a full scan, so it runs in parallel.
struct RawItem<'a> {
    origin: Origin,
    raw: &'a str,
    offset: usize,
    lines: &'a LineIndex<'a>,
}

enum Split<'a> {
    Ready(Pending<'a>),
    Raw(RawItem<'a>),
}

impl<'a> Split<'a> {
    fn decode(self, depth: Depth) -> Result<Decoded, LoadError> {
        match self {
            Split::Ready(p) => Ok(Decoded::One(p.decode(depth)?)),
            Split::Raw(item) => {
                let mut found = Vec::new();
                split_raw(&item.origin.file, item.origin.item, item.raw, item.offset, item.lines, &mut found)?;
                if found.len() == 1 {
                    return found.pop().expect("one split").decode(depth);
                }
                let mut all = Vec::new();
                for split in found {
                    match split.decode(depth)? {
                        Decoded::One(p) => all.push(p),
                        Decoded::Many(v) => all.extend(v),
                    }
                }
                Ok(Decoded::Many(all))
            }
        }
    }
}

/// What a split holds: one object, as nearly every split does (held inline: a vector of one
/// per object was a fifth of the loader's peak memory), or a List's items.
#[allow(clippy::large_enum_variant)] // inline on purpose: a box per object is what this avoids
enum Decoded {
    One(Parsed),
    Many(Vec<Parsed>),
}

impl Decoded {
    fn items(&self) -> &[Parsed] {
        match self {
            Decoded::One(p) => std::slice::from_ref(p),
            Decoded::Many(v) => v,
        }
    }

    fn items_mut(&mut self) -> &mut [Parsed] {
        match self {
            Decoded::One(p) => std::slice::from_mut(p),
            Decoded::Many(v) => v,
        }
    }
}

/// The typed objects the engines read.
enum Object {
    Info(Box<SnapshotInfo>),
    Node(Box<Node>),
    Service(Box<Service>),
    Namespace(Box<Namespace>),
    Pod(Box<Pod>),
    Event(Box<Event>),
    ConfigMap(Box<ConfigMap>),
    EndpointSlice(Box<EndpointSlice>),
    DaemonSet(Box<DaemonSet>),
    Deployment(Box<Deployment>),
    IpAddressPool(Box<crd::IpAddressPool>),
    L2Advertisement(Box<crd::L2Advertisement>),
    BgpAdvertisement(Box<crd::BgpAdvertisement>),
    BgpPeer(Box<crd::BgpPeer>),
    Community(Box<crd::Community>),
    ServiceL2Status(Box<crd::ServiceL2Status>),
    BfdProfile(Box<crd::BfdProfile>),
    ServiceBgpStatus(Box<crd::ServiceBgpStatus>),
    FrrConfiguration(Box<crd::FrrConfiguration>),
    Lease(Box<Lease>),
    CiliumIpPool(Box<cilium::IpPool>),
    CiliumL2Policy(Box<cilium::L2Policy>),
    CiliumNode(Box<cilium::CiliumNode>),
    /// Counted by this label, never kept.
    Ignored(String),
    /// Of a kind the engines read, but in a form no API server serves (a kind spelled in another
    /// case, an apiVersion no served version has): never read, always reported.
    Refused {
        object: String,
        reason: String,
    },
}

struct Parsed {
    origin: Origin,
    /// API group, kind, namespace, name.
    key: ObjectKey,
    object: Object,
    /// Fields no server returns for this kind (`strict::snapshot_unknown`): read past, reported.
    unknown: Vec<super::strict::UnknownField>,
}

impl Pending<'_> {
    fn decode(self, depth: Depth) -> Result<Parsed, LoadError> {
        let Pending { origin, api_version, kind, meta, doc } = self;
        // Only an error message needs the name before decoding; read it then.
        let known_meta = meta.clone();
        let raw_text = match &doc {
            Doc::Raw(raw, ..) => Some(*raw),
            Doc::Text(t) => Some(*t),
            Doc::Json(t, _) => Some(t.as_str()),
            Doc::Value(..) => None,
        };
        let display = |kind: &str| {
            let (namespace, name) = known_meta.clone().unwrap_or_else(|| {
                raw_text
                    .and_then(|t| serde_json::from_str::<Head>(t).ok())
                    .and_then(|h| h.metadata)
                    .map(|m| (m.namespace.unwrap_or_default(), m.name.unwrap_or_default()))
                    .unwrap_or_default()
            });
            object_label(kind, &namespace, &name)
        };
        // A kind left undecoded is still checked to be JSON: nothing before read it whole.
        let syntax_checked = || match &doc {
            Doc::Raw(raw, offset, lines) => serde_json::from_str::<serde::de::IgnoredAny>(raw)
                .map(drop)
                .map_err(|e| malformed(raw_error(e, &origin, *offset, lines), &display(&kind))),
            _ => Ok(()),
        };
        let group = group_of(&api_version);
        if let Some(reason) = super::served::refusal(&api_version, &kind) {
            syntax_checked()?;
            let object = Object::Refused { object: display(&super::served::short(&kind)), reason };
            let key = (group, kind, String::new(), String::new());
            return Ok(Parsed { origin, key, object, unknown: Vec::new() });
        }
        // The kinds a cluster has by the ten thousand note their unread keys while they are
        // decoded, instead of being read a second time for them.
        let keys_noted = matches!((&doc, depth), (Doc::Raw(..) | Doc::Json(..), Depth::Snapshot))
            && matches!(
                (api_version.as_str(), kind.as_str()),
                ("v1", "Service" | "Pod")
                    | ("discovery.k8s.io/v1", "EndpointSlice")
                    | ("apps/v1", "DaemonSet" | "Deployment")
            );
        let mut unknown = match (&doc, depth) {
            _ if keys_noted => Vec::new(),
            // An API server's own answer.
            (Doc::Text(_), _) => Vec::new(),
            (Doc::Raw(raw, ..), Depth::Snapshot) => super::strict::snapshot_unknown(&api_version, &kind, raw),
            (Doc::Json(text, _), Depth::Snapshot) => super::strict::snapshot_unknown(&api_version, &kind, text),
            (Doc::Value(v, _), Depth::Snapshot) => super::strict::snapshot_unknown_value(&api_version, &kind, v),
            (Doc::Raw(raw, ..), Depth::Apply) => serde_json::from_str(raw)
                .map(|v| super::strict::unknown_fields(&api_version, &kind, &v))
                .unwrap_or_default(),
            (Doc::Value(v, _), Depth::Apply) => super::strict::unknown_fields(&api_version, &kind, v),
            (Doc::Json(text, _), Depth::Apply) => serde_json::from_str(text)
                .map(|v| super::strict::unknown_fields(&api_version, &kind, &v))
                .unwrap_or_default(),
        };
        let core = api_version == "v1";
        macro_rules! typed {
            ($variant:ident) => {
                Object::$variant(Box::new(doc.parse(&origin).map_err(|e| malformed(e, &display(&kind)))?))
            };
        }
        // As `typed!`, the object's unread keys checked in the same pass.
        macro_rules! noting_keys {
            ($variant:ident) => {{
                let checked: super::keys::Checked<$variant> = match &doc {
                    Doc::Raw(raw, offset, lines) => serde_json::from_str(raw)
                        .map_err(|e| malformed(raw_error(e, &origin, *offset, lines), &display(&kind)))?,
                    Doc::Json(text, source) => serde_json::from_str(text).map_err(|e| {
                        let message = strip_position(e.to_string());
                        malformed(yaml_error::<$variant>(&origin, *source, message), &display(&kind))
                    })?,
                    _ => unreachable!("keys are noted for JSON text only"),
                };
                unknown = super::strict::unknown_keys(&api_version, &kind, checked.other);
                Object::$variant(Box::new(checked.object))
            }};
        }
        let object = match (group.as_ref(), kind.as_str()) {
            ("lbdoctor", "SnapshotInfo") => {
                #[derive(Deserialize)]
                struct InfoDoc {
                    #[serde(default)]
                    spec: SnapshotInfo,
                }
                let info: InfoDoc = doc.parse(&origin).map_err(|e| malformed(e, &display(&kind)))?;
                Object::Info(Box::new(info.spec))
            }
            // Never keep a Secret, not even in memory.
            ("", "Secret") => Object::Ignored("Secret (v1, never stored)".into()),
            ("", "Node") if core => {
                let node: super::node::LeanNode = doc.parse(&origin).map_err(|e| malformed(e, &display(&kind)))?;
                Object::Node(Box::new(node.0))
            }
            ("", "Service") if core && keys_noted => noting_keys!(Service),
            ("", "Service") if core => typed!(Service),
            ("", "Namespace") if core => typed!(Namespace),
            ("", "Pod") if core && keys_noted => noting_keys!(Pod),
            ("", "Pod") if core => typed!(Pod),
            ("", "Event") if core => typed!(Event),
            ("", "ConfigMap") if core => typed!(ConfigMap),
            ("discovery.k8s.io", "EndpointSlice") if keys_noted => noting_keys!(EndpointSlice),
            ("discovery.k8s.io", "EndpointSlice") if api_version == "discovery.k8s.io/v1" => {
                typed!(EndpointSlice)
            }
            ("apps", "DaemonSet") if keys_noted => noting_keys!(DaemonSet),
            ("apps", "DaemonSet") if api_version == "apps/v1" => typed!(DaemonSet),
            ("apps", "Deployment") if keys_noted => noting_keys!(Deployment),
            ("apps", "Deployment") if api_version == "apps/v1" => typed!(Deployment),
            ("metallb.io", "IPAddressPool") => typed!(IpAddressPool),
            ("metallb.io", "L2Advertisement") => typed!(L2Advertisement),
            ("metallb.io", "BGPAdvertisement") => typed!(BgpAdvertisement),
            ("metallb.io", "BGPPeer") => typed!(BgpPeer),
            ("metallb.io", "Community") => typed!(Community),
            ("metallb.io", "ServiceL2Status") => typed!(ServiceL2Status),
            ("metallb.io", "BFDProfile") => typed!(BfdProfile),
            ("metallb.io", "ServiceBGPStatus") => typed!(ServiceBgpStatus),
            ("frrk8s.metallb.io", "FRRConfiguration") => typed!(FrrConfiguration),
            ("coordination.k8s.io", "Lease") if api_version == "coordination.k8s.io/v1" => typed!(Lease),
            ("cilium.io", "CiliumLoadBalancerIPPool") => typed!(CiliumIpPool),
            ("cilium.io", "CiliumL2AnnouncementPolicy") => typed!(CiliumL2Policy),
            ("cilium.io", "CiliumNode") => typed!(CiliumNode),
            _ => Object::Ignored(format!("{kind} ({api_version})")),
        };
        if let Object::Ignored(_) = object {
            syntax_checked()?;
        }
        let mut object = object;
        let (namespace, name) = meta.unwrap_or_else(|| object.key().unwrap_or_default());
        if name.is_empty() && !matches!(object, Object::Info(_) | Object::Ignored(_) | Object::Refused { .. }) {
            let what = if namespace.is_empty() { kind } else { format!("{kind} in namespace {namespace}") };
            return Err(LoadError::Malformed {
                origin: origin.to_string(),
                message: format!("{what} has no metadata.name: every object needs one (add `metadata: {{name: …}}`)"),
            });
        }
        if let (Some(reason), false) =
            (super::served::bad_name(&kind, &name), matches!(object, Object::Info(_) | Object::Ignored(_)))
        {
            let object =
                Object::Refused { object: object_label(&kind, &namespace, &super::served::short(&name)), reason };
            return Ok(Parsed { origin, key: (group, kind, namespace, name), object, unknown });
        }
        Ok(Parsed { origin, key: (group, kind, namespace, name), object, unknown })
    }
}

/// The API group of an apiVersion; the groups of the kinds the engines read need no allocation.
fn group_of(api_version: &str) -> Cow<'static, str> {
    const KNOWN: &[&str] = &[
        "",
        "discovery.k8s.io",
        "apps",
        "coordination.k8s.io",
        "metallb.io",
        "frrk8s.metallb.io",
        "cilium.io",
        "lbdoctor",
    ];
    let group = api_version.rsplit_once('/').map(|(g, _)| g).unwrap_or("");
    match KNOWN.iter().find(|k| **k == group) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(group.to_string()),
    }
}

fn object_label(kind: &str, namespace: &str, name: &str) -> String {
    if name.is_empty() {
        return if namespace.is_empty() { kind.to_string() } else { format!("{kind} in namespace {namespace}") };
    }
    if namespace.is_empty() {
        format!("{kind} {name}")
    } else {
        format!("{kind} {namespace}/{name}")
    }
}

impl Object {
    fn meta_mut(&mut self) -> Option<&mut ObjectMeta> {
        Some(match self {
            Object::Node(o) => &mut o.metadata,
            Object::Namespace(o) => &mut o.metadata,
            Object::Event(o) => &mut o.metadata,
            Object::ConfigMap(o) => &mut o.metadata,
            Object::IpAddressPool(o) => &mut o.metadata,
            Object::L2Advertisement(o) => &mut o.metadata,
            Object::BgpAdvertisement(o) => &mut o.metadata,
            Object::BgpPeer(o) => &mut o.metadata,
            Object::Community(o) => &mut o.metadata,
            Object::ServiceL2Status(o) => &mut o.metadata,
            Object::BfdProfile(o) => &mut o.metadata,
            Object::ServiceBgpStatus(o) => &mut o.metadata,
            Object::FrrConfiguration(o) => &mut o.metadata,
            Object::Lease(o) => &mut o.metadata,
            Object::CiliumIpPool(o) => &mut o.metadata,
            Object::CiliumL2Policy(o) => &mut o.metadata,
            Object::CiliumNode(o) => &mut o.metadata,
            Object::Service(_)
            | Object::EndpointSlice(_)
            | Object::Pod(_)
            | Object::DaemonSet(_)
            | Object::Deployment(_)
            | Object::Info(_)
            | Object::Ignored(_)
            | Object::Refused { .. } => return None,
        })
    }

    /// `namespace/name`, from metadata or where the object keeps them.
    fn key(&mut self) -> Option<(String, String)> {
        match self {
            Object::EndpointSlice(o) => Some((o.namespace.to_string(), o.name.to_string())),
            Object::Service(o) => Some(crate::snapshot::key_of(&o.metadata)),
            Object::Pod(o) => Some(crate::snapshot::key_of(&o.metadata)),
            Object::DaemonSet(o) | Object::Deployment(o) => Some(crate::snapshot::key_of(&o.metadata)),
            _ => self.meta_mut().map(|m| crate::snapshot::key_of(m)),
        }
    }
}

/// `apiVersion` and `kind` without reading the rest of the object (kubectl writes them first).
pub(crate) fn sniff(text: &str) -> Result<(Option<String>, Option<String>), serde_json::Error> {
    use serde::de::{Deserializer as _, Error as _, IgnoredAny, MapAccess, Visitor};
    const DONE: &str = "\u{0}lbdoctor-sniffed";
    struct Sniff<'s>(&'s mut (Option<String>, Option<String>));
    impl<'de> Visitor<'de> for Sniff<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a Kubernetes object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                match key.as_ref() {
                    "apiVersion" => self.0 .0 = map.next_value()?,
                    "kind" => self.0 .1 = map.next_value()?,
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                if self.0 .0.is_some() && self.0 .1.is_some() {
                    return Err(A::Error::custom(DONE));
                }
            }
            Ok(())
        }
    }
    let mut found = (None, None);
    let result = serde_json::Deserializer::from_str(text).deserialize_map(Sniff(&mut found));
    match result {
        Err(e) if e.to_string().starts_with(DONE) => Ok(found),
        Err(e) => Err(e),
        Ok(()) => Ok(found),
    }
}

/// Splits one file into objects (documents, JSON values, `kind: List` items) without decoding them.
fn split_text<'a>(
    file: &Arc<str>,
    text: &'a str,
    lines: &'a LineIndex<'a>,
    out: &mut Vec<Split<'a>>,
) -> Result<(), LoadError> {
    let trimmed = text.trim_start();
    // JSON documents joined by YAML's `---` (as `kubectl get -o json` output is often
    // concatenated) are YAML; no line of valid JSON can be a document separator.
    let yaml_stream = || text.lines().any(|l| l == "---" || l.starts_with("--- "));
    if (trimmed.starts_with('{') || trimmed.starts_with('[')) && !yaml_stream() {
        split_json(file, text, lines, out)
    } else {
        split_yaml(file, text, lines, out)
    }
}

fn split_json<'a>(
    file: &Arc<str>,
    text: &'a str,
    lines: &'a LineIndex<'a>,
    out: &mut Vec<Split<'a>>,
) -> Result<(), LoadError> {
    let whole = Origin { file: file.clone(), line: None, column: None, item: None };
    let malformed_json = |e: serde_json::Error| {
        let mut at = whole.clone();
        if e.line() > 0 {
            at.line = Some(e.line() as u64);
            at.column = Some(e.column() as u64);
        }
        LoadError::Malformed { origin: at.to_string(), message: strip_position(e.to_string()) }
    };
    let offset_of = |raw: &RawValue| raw.get().as_ptr() as usize - text.as_ptr() as usize;
    if text.trim_start().starts_with('[') {
        let items: Vec<&RawValue> = serde_json::from_str(text).map_err(malformed_json)?;
        for (i, raw) in items.into_iter().enumerate() {
            let origin = Origin { file: file.clone(), line: None, column: None, item: Some(i) };
            out.push(Split::Raw(RawItem { origin, raw: raw.get(), offset: offset_of(raw), lines }));
        }
        return Ok(());
    }
    // A `kind: List` is opened here; its items are read in parallel later.
    #[derive(Deserialize)]
    struct ListHead<'a> {
        #[serde(default)]
        kind: Option<String>,
        #[serde(default, borrow)]
        items: Option<Vec<&'a RawValue>>,
    }
    let head: ListHead = serde_json::from_str(text).map_err(malformed_json)?;
    match head.items.filter(|_| is_list(head.kind.as_deref())) {
        Some(items) => {
            for (i, item) in items.into_iter().enumerate() {
                let offset = offset_of(item);
                let origin = Origin { file: file.clone(), line: None, column: None, item: Some(i) };
                out.push(Split::Raw(RawItem { origin, raw: item.get(), offset, lines }));
            }
            Ok(())
        }
        None => {
            let raw: &RawValue = serde_json::from_str(text).map_err(malformed_json)?;
            split_raw(file, None, raw.get(), offset_of(raw), lines, out)
        }
    }
}

fn split_raw<'a>(
    file: &Arc<str>,
    item: Option<usize>,
    raw: &'a str,
    offset: usize,
    lines: &'a LineIndex<'a>,
    out: &mut Vec<Split<'a>>,
) -> Result<(), LoadError> {
    let (line, column) = lines.position(offset);
    let origin = Origin { file: file.clone(), line: Some(line), column: Some(column), item };
    let not_an_object = |e: serde_json::Error| LoadError::Malformed {
        origin: origin.to_string(),
        message: format!("not a Kubernetes object: {}", strip_position(e.to_string())),
    };
    let (api_version, kind) = match super::sniff::plain_api_version_and_kind(raw) {
        Some((api_version, kind)) => (Some(api_version), Some(kind)),
        None => sniff(raw).map_err(not_an_object)?,
    };
    if !is_list(kind.as_deref()) {
        let (Some(api_version), Some(kind)) = (api_version, kind) else {
            return Err(LoadError::Malformed {
                origin: origin.to_string(),
                message: "object has no apiVersion or kind".into(),
            });
        };
        out.push(Split::Ready(Pending { origin, api_version, kind, meta: None, doc: Doc::Raw(raw, offset, lines) }));
        return Ok(());
    }
    let head: Head = serde_json::from_str(raw).map_err(not_an_object)?;
    if let Some(items) = head.items.as_ref().filter(|_| is_list(head.kind.as_deref())) {
        for (i, raw_item) in items.iter().enumerate() {
            let off = raw_item.get().as_ptr() as usize - raw.as_ptr() as usize + offset;
            split_raw(file, Some(i), raw_item.get(), off, lines, out)?;
        }
        return Ok(());
    }
    out.push(Split::Ready(pending(origin, head, Doc::Raw(raw, offset, lines))?));
    Ok(())
}

fn split_yaml<'a>(
    file: &Arc<str>,
    text: &'a str,
    lines: &'a LineIndex<'a>,
    out: &mut Vec<Split<'a>>,
) -> Result<(), LoadError> {
    let docs = match super::yaml_pieces::documents(text, yaml_options) {
        Some(docs) => docs,
        None => {
            let docs: Vec<serde_saphyr::Spanned<serde_json::Value>> =
                serde_saphyr::from_multiple_with_options(text, yaml_options()).map_err(|e| {
                    let (line, column) =
                        e.location().map(|l| (Some(l.line()), Some(l.column()))).unwrap_or((None, None));
                    let origin = Origin { file: file.clone(), line, column, item: None };
                    LoadError::Malformed { origin: origin.to_string(), message: yaml_message(&e) }
                })?;
            docs.into_iter()
                .map(|d| super::yaml_pieces::Document {
                    line: d.referenced.line(),
                    column: d.referenced.column(),
                    body: super::yaml_pieces::Body::Value(d.value),
                    items: None,
                })
                .collect()
        }
    };
    let starts: Vec<u64> = docs.iter().map(|d| d.line).collect();
    for (i, doc) in docs.into_iter().enumerate() {
        let place = YamlPlace { text, lines, line: doc.line, next: starts.get(i + 1).copied() };
        let origin = Origin { file: file.clone(), line: Some(doc.line), column: Some(doc.column), item: None };
        match doc.items {
            None => split_body(origin, doc.body, Some(place), out)?,
            // A List cut before its items: the pieces saw `kind: …List` and `items:` at its margin.
            Some(items) => {
                for (i, item) in items.into_iter().enumerate() {
                    let mut at = origin.clone();
                    at.item = Some(i);
                    split_body(at, item, None, out)?;
                }
            }
        }
    }
    Ok(())
}

fn split_body<'a>(
    origin: Origin,
    body: super::yaml_pieces::Body,
    source: Option<YamlPlace<'a>>,
    out: &mut Vec<Split<'a>>,
) -> Result<(), LoadError> {
    let json = match body {
        super::yaml_pieces::Body::Value(value) => return split_value(origin, value, source, out),
        super::yaml_pieces::Body::Json(json) => json,
    };
    match sniff(&json) {
        Ok((Some(api_version), Some(kind))) if !is_list(Some(&kind)) => {
            out.push(Split::Ready(Pending { origin, api_version, kind, meta: None, doc: Doc::Json(json, source) }));
            Ok(())
        }
        // A List, or what is not an object: read as a value, as serde-saphyr's documents are.
        _ => match serde_json::from_str(&json) {
            Ok(value) => split_value(origin, value, source, out),
            Err(e) => Err(LoadError::Malformed { origin: origin.to_string(), message: strip_position(e.to_string()) }),
        },
    }
}

/// Every document of a YAML text as JSON values, read as snapshot files are (strict booleans).
pub fn yaml_documents(name: &str, text: &str) -> Result<Vec<serde_json::Value>, LoadError> {
    let docs: Vec<serde_json::Value> = serde_saphyr::from_multiple_with_options(text, yaml_options())
        .map_err(|e| LoadError::Malformed { origin: name.to_string(), message: yaml_message(&e) })?;
    Ok(docs.into_iter().filter(|d| !d.is_null()).collect())
}

fn split_value<'a>(
    origin: Origin,
    value: serde_json::Value,
    source: Option<YamlPlace<'a>>,
    out: &mut Vec<Split<'a>>,
) -> Result<(), LoadError> {
    if value.is_null() {
        return Ok(());
    }
    if !value.is_object() {
        return Err(LoadError::Malformed {
            origin: origin.to_string(),
            message: "not a Kubernetes object (expected a mapping with apiVersion and kind)".into(),
        });
    }
    let text = |v: Option<&serde_json::Value>| v.and_then(|v| v.as_str()).map(str::to_string);
    let head = Head {
        api_version: text(value.get("apiVersion")),
        kind: text(value.get("kind")),
        metadata: value
            .get("metadata")
            .map(|m| HeadMeta { name: text(m.get("name")), namespace: text(m.get("namespace")) }),
        items: None,
    };
    let mut value = value;
    if is_list(head.kind.as_deref()) {
        match value.get_mut("items").map(std::mem::take) {
            Some(serde_json::Value::Array(items)) => {
                for (i, item) in items.into_iter().enumerate() {
                    let mut at = origin.clone();
                    at.item = Some(i);
                    split_value(at, item, None, out)?;
                }
                return Ok(());
            }
            // No items: an empty list, as the JSON form reads it.
            None | Some(serde_json::Value::Null) => {}
            Some(other) => {
                let found = match other {
                    serde_json::Value::Object(_) => "a mapping",
                    serde_json::Value::String(_) => "a string",
                    _ => "a scalar",
                };
                return Err(LoadError::Malformed {
                    origin: origin.to_string(),
                    message: format!(
                        "{}: items must be a sequence of objects (`items:` then `- apiVersion: …` lines), not {found}",
                        head.kind.as_deref().unwrap_or("List")
                    ),
                });
            }
        }
    }
    out.push(Split::Ready(pending(origin, head, Doc::Value(value, source))?));
    Ok(())
}

fn pending<'a>(origin: Origin, head: Head, doc: Doc<'a>) -> Result<Pending<'a>, LoadError> {
    let (Some(api_version), Some(kind)) = (head.api_version, head.kind) else {
        return Err(LoadError::Malformed {
            origin: origin.to_string(),
            message: "object has no apiVersion or kind".into(),
        });
    };
    let meta = head.metadata.unwrap_or_default();
    Ok(Pending {
        origin,
        api_version,
        kind,
        meta: Some((meta.namespace.unwrap_or_default(), meta.name.unwrap_or_default())),
        doc,
    })
}

pub(crate) fn yaml_options() -> serde_saphyr::Options {
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

#[derive(Default)]
struct Collector {
    snap: Snapshot,
    seen: crate::fast_hash::HashMap<ObjectKey, Origin>,
    info_origin: Option<String>,
}

/// API group, kind, namespace, name.
type ObjectKey = (Cow<'static, str>, String, String, String);

/// Where each object of a file snapshot was read, as the loader kept them to find duplicates.
/// Named as findings name objects (`Kind namespace/name`) only when asked: SARIF alone reads
/// them, and naming the 27,000 objects of a large snapshot took 6-7 ms of every load, on one core.
#[derive(Debug, Clone, Default)]
pub struct Origins(crate::fast_hash::HashMap<ObjectKey, Origin>);

impl Origins {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Every object's place, by `Kind namespace/name`.
    pub fn labelled(&self) -> HashMap<String, crate::snapshot::ObjectOrigin> {
        self.0
            .iter()
            .map(|((_, kind, namespace, name), o)| {
                (
                    object_label(kind, namespace, name),
                    crate::snapshot::ObjectOrigin { file: o.file.clone(), line: o.line },
                )
            })
            .collect()
    }
}

impl Collector {
    /// Room for the large kinds at once: growing a Vec of thousands of Services by doubling
    /// copies them and leaves half-used memory behind. A file streamed in batches reserves for
    /// its count so far times `scale` (the file's size over what was read): room for each batch
    /// alone copied a kind's whole Vec once a batch. Room reserved and never used is address
    /// space, not memory: no page of it is touched.
    fn reserve<'a>(&mut self, parsed: impl Iterator<Item = &'a Parsed>, scale: f64) {
        let (mut nodes, mut services, mut slices, mut pods, mut events) = (0, 0, 0, 0, 0);
        for p in parsed {
            match p.object {
                Object::Node(_) => nodes += 1,
                Object::Service(_) => services += 1,
                Object::EndpointSlice(_) => slices += 1,
                Object::Pod(_) => pods += 1,
                Object::Event(_) => events += 1,
                _ => {}
            }
        }
        // How many more to make room for, when `len + more` outgrows `capacity`: the count
        // then times `scale`, rounded up so that a scale of 1 is the exact count.
        fn extra(len: usize, capacity: usize, more: usize, scale: f64) -> Option<usize> {
            let wanted = len + more;
            (wanted > capacity).then(|| ((wanted as f64 * scale).ceil() as usize).max(wanted) - len)
        }
        fn room<T>(v: &mut Vec<T>, more: usize, scale: f64) {
            if let Some(extra) = extra(v.len(), v.capacity(), more, scale) {
                v.reserve_exact(extra);
            }
        }
        let s = &mut self.snap;
        room(&mut s.nodes, nodes, scale);
        room(&mut s.services, services, scale);
        room(&mut s.endpoint_slices, slices, scale);
        room(&mut s.pods, pods, scale);
        room(&mut s.events, events, scale);
        let objects = nodes + services + slices + pods + events;
        if let Some(extra) = extra(self.seen.len(), self.seen.capacity(), objects, scale) {
            self.seen.reserve(extra);
        }
    }

    fn add(&mut self, parsed: Parsed) -> Result<(), LoadError> {
        let Parsed { origin, key, object, unknown } = parsed;
        // Named only for messages: built when one is written.
        let display = || match &object {
            Object::Refused { object, .. } => object.clone(),
            _ => object_label(&key.1, &key.2, &key.3),
        };
        let shown = if unknown.is_empty() { String::new() } else { display() };
        for field in unknown {
            self.snap.ignored_fields.push(crate::snapshot::IgnoredField {
                object: shown.clone(),
                at: origin.to_string(),
                file: origin.file.clone(),
                line: origin.line,
                field: field.path,
                keys: field.keys,
                nearest: field.nearest,
            });
        }
        let s = &mut self.snap;
        let m = &mut s.metallb;
        match object {
            Object::Ignored(label) => {
                *s.ignored_kinds.entry(label).or_default() += 1;
                return Ok(());
            }
            Object::Refused { object, reason } => {
                s.ignored_objects.push(crate::snapshot::IgnoredObject { object, at: origin.to_string(), reason });
                return Ok(());
            }
            Object::Info(info) => {
                if let Some(first) = &self.info_origin {
                    return Err(LoadError::Duplicate {
                        object: "SnapshotInfo".into(),
                        first: first.clone(),
                        second: origin.to_string(),
                    });
                }
                s.info = *info;
                self.info_origin = Some(origin.to_string());
                return Ok(());
            }
            Object::Node(o) => s.nodes.push(*o),
            Object::Service(o) => s.services.push(*o),
            Object::Namespace(o) => s.namespaces.push(*o),
            Object::Pod(o) => s.pods.push(*o),
            Object::Event(o) => s.events.push(*o),
            Object::ConfigMap(o) => s.config_maps.push(*o),
            Object::EndpointSlice(o) => s.endpoint_slices.push(*o),
            Object::DaemonSet(o) => s.daemon_sets.push(*o),
            Object::Deployment(o) => s.deployments.push(*o),
            Object::IpAddressPool(o) => m.ip_address_pools.push(*o),
            Object::L2Advertisement(o) => m.l2_advertisements.push(*o),
            Object::BgpAdvertisement(o) => m.bgp_advertisements.push(*o),
            Object::BgpPeer(o) => m.bgp_peers.push(*o),
            Object::Community(o) => m.communities.push(*o),
            Object::ServiceL2Status(o) => m.service_l2_statuses.push(*o),
            Object::BfdProfile(o) => m.bfd_profiles.push(*o),
            Object::ServiceBgpStatus(o) => m.service_bgp_statuses.push(*o),
            Object::FrrConfiguration(o) => m.frr_configurations.push(*o),
            Object::Lease(o) => s.leases.push(*o),
            Object::CiliumIpPool(o) => s.cilium.ip_pools.push(*o),
            Object::CiliumL2Policy(o) => s.cilium.l2_policies.push(*o),
            Object::CiliumNode(o) => s.cilium.nodes.push(*o),
        }
        match self.seen.entry(key) {
            std::collections::hash_map::Entry::Occupied(first) => {
                let (_, kind, namespace, name) = first.key();
                return Err(LoadError::Duplicate {
                    object: object_label(kind, namespace, name),
                    first: first.get().to_string(),
                    second: origin.to_string(),
                });
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(origin);
            }
        }
        Ok(())
    }
}

impl Collector {
    /// The snapshot of everything added; `live`: no file origins to keep.
    fn finish(self, live: bool) -> Snapshot {
        let mut snap = self.snap;
        if !live {
            snap.origins = Origins(self.seen);
        }
        snap
    }
}

fn is_list(kind: Option<&str>) -> bool {
    kind.is_some_and(|k| k == "List" || k.ends_with("List"))
}

fn malformed((origin, message): (Origin, String), object: &str) -> LoadError {
    LoadError::Malformed { origin: origin.to_string(), message: format!("{object}: {message}") }
}

pub(crate) fn yaml_message(e: &serde_saphyr::Error) -> String {
    // The location is already in the prefix; keep the first line without a second position.
    // The crate's words for users, not its hints about its own options.
    let text = e.render_with_formatter(&serde_saphyr::UserMessageFormatter);
    let first = text.lines().next().unwrap_or("invalid YAML").trim();
    let first = match first.rfind(" at line ") {
        Some(i) => &first[..i],
        None => first,
    };
    match first.find("limits breached: Depth") {
        Some(_) => "nested more than 128 levels deep: not a Kubernetes object".to_string(),
        None => first.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{
        decode_early, from_texts, from_texts_early, load_texts, yaml_documents, LineIndex, LoadError, ObjectText,
    };
    use crate::snapshot::Snapshot;
    use proptest::prelude::*;

    /// The objects of every scenario load alike from the testdata's YAML, from one JSON List,
    /// and from block YAML written by serde-saphyr as documents and as a kubectl `kind: List`
    /// (transcribed to JSON text by `yaml_block`, not read as values): the same objects, unread
    /// fields and refusals; only their places in the files differ.
    /// Live objects as an API server gives them, every scenario's, decoded early (a page at a
    /// time, in any grouping) or at the end: the same snapshot, the same first error.
    #[test]
    fn objects_decoded_early_build_the_snapshot_the_others_do() {
        let texts = |items: &[serde_json::Value]| -> Vec<ObjectText> {
            items
                .iter()
                .map(|item| ObjectText {
                    origin: "GET /apis/x".into(),
                    api_version: item["apiVersion"].as_str().unwrap_or("v1").into(),
                    kind: item["kind"].as_str().unwrap_or("").into(),
                    text: item.to_string(),
                })
                .collect()
        };
        let outcome = |r: Result<Snapshot, LoadError>| match r {
            Ok(snap) => format!("{snap:?}"),
            Err(e) => format!("error: {e}"),
        };
        let check = |objects: &[ObjectText], what: &str| {
            let want = outcome(from_texts(objects));
            let all = objects.iter().zip(decode_early(objects).into_iter().map(Some));
            assert_eq!(outcome(from_texts_early(all)), want, "{what}: all early");
            // Every other object early, as when some pages came before the others.
            let mut early = decode_early(objects).into_iter().enumerate().map(|(i, e)| (i % 2 == 0).then_some(e));
            let some = objects.iter().map(|o| (o, early.next().flatten()));
            assert_eq!(outcome(from_texts_early(some)), want, "{what}: some early");
        };
        for file in crate::snapshot::scenario_files() {
            let text = std::fs::read_to_string(&file).unwrap();
            check(&texts(&yaml_documents(&file, &text).unwrap()), &file);
        }
        // A value of the wrong type, and a duplicate: the first error names the object's place
        // in the whole collection.
        let svc = |name: &str, extra: serde_json::Value| {
            let mut s = serde_json::json!({"apiVersion": "v1", "kind": "Service",
                "metadata": {"name": name, "namespace": "a"}, "spec": {"type": "LoadBalancer"}});
            s.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            s
        };
        let wrong = serde_json::json!({"spec": {"ports": "80"}});
        let broken = texts(&[svc("a", serde_json::json!({})), svc("b", wrong.clone()), svc("c", wrong)]);
        assert!(
            outcome(from_texts(&broken)).starts_with("error: ") && outcome(from_texts(&broken)).contains("items[1]")
        );
        check(&broken, "a wrong type");
        let twice =
            texts(&[svc("a", serde_json::json!({})), svc("b", serde_json::json!({})), svc("a", serde_json::json!({}))]);
        assert!(outcome(from_texts(&twice)).contains("items[2]"), "{}", outcome(from_texts(&twice)));
        check(&twice, "a duplicate");
    }

    #[test]
    fn yaml_and_json_forms_of_every_scenario_load_alike() {
        let norm = |mut snap: Snapshot| {
            snap.origins.clear();
            for o in &mut snap.ignored_objects {
                o.at.clear();
            }
            for f in &mut snap.ignored_fields {
                f.at.clear();
                f.file = "".into();
                f.line = None;
            }
            format!("{snap:?}")
        };
        let load = |name: &str, text: String| load_texts(&[(name.into(), text)]).map(norm).unwrap();
        let (mut documents, mut transcribed) = (0, 0);
        for file in crate::snapshot::scenario_files() {
            let text = std::fs::read_to_string(&file).unwrap();
            let want = load(&file, text.clone());
            let items = yaml_documents(&file, &text).unwrap();
            let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
            assert_eq!(load("s.json", serde_json::to_string(&list).unwrap()), want, "{file} as JSON");
            let (mut docs, mut kubectl_list) = (String::new(), String::from("apiVersion: v1\nitems:\n"));
            for item in &items {
                let yaml = serde_saphyr::to_string(item).unwrap();
                documents += 1;
                transcribed += usize::from(super::super::yaml_block::mapping_document(&yaml).is_some());
                docs.push_str("---\n");
                docs.push_str(&yaml);
                for (i, line) in yaml.lines().enumerate() {
                    kubectl_list.push_str(if i == 0 { "- " } else { "  " });
                    kubectl_list.push_str(line);
                    kubectl_list.push('\n');
                }
            }
            kubectl_list.push_str("kind: List\nmetadata:\n  resourceVersion: \"\"\n");
            assert_eq!(load("s.yaml", docs), want, "{file} as YAML documents");
            assert_eq!(load("l.yaml", kubectl_list), want, "{file} as a kubectl List");
        }
        assert!(transcribed * 10 > documents * 9, "only {transcribed} of {documents} documents were transcribed");
    }

    proptest! {
        /// The sparse index answers as a list of every newline would.
        #[test]
        fn line_index_equals_the_full_one(text in "([a\n]{0,300}|a{4000,9000}\n[a\n]{0,20}){1,3}", probe in 0usize..30000, line in 1u64..700) {
            let index = LineIndex::new(&text);
            let newlines: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
            let offset = probe.min(text.len());
            let l = newlines.partition_point(|&n| n < offset);
            let start = if l == 0 { 0 } else { newlines[l - 1] + 1 };
            prop_assert_eq!(index.position(offset), (l as u64 + 1, (offset - start) as u64 + 1));
            let want = match line.checked_sub(2) {
                None => 0,
                Some(i) => newlines.get(i as usize).map_or(text.len(), |&n| n + 1),
            };
            prop_assert_eq!(index.line_start(line, text.len()), want);
        }
    }
}
