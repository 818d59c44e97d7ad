//! Speaker logs read live: `GET pods/NAME/log?container=speaker` (never a write, never a Secret),
//! streamed into the log scanner chunk by chunk, so a large log costs bounded memory.

use futures::io::AsyncBufReadExt;
use jiff::Timestamp;

use super::{connect, LiveError, LiveOptions};
use crate::history::logs::{self, LogStats};

/// Chunks in flight between the network and the scanner.
const CHANNEL: usize = 16;
/// Logs read at once.
const PARALLEL: usize = 4;

/// The scanned logs by source, and the reads that failed.
pub type Read = (Vec<(String, LogStats)>, Vec<Failed>);

/// A speaker log that could not be read.
#[derive(Debug, Clone)]
pub struct Failed {
    pub namespace: String,
    pub pod: String,
    /// The HTTP status, when the server answered.
    pub code: Option<u16>,
    pub why: String,
}

/// Per speaker Pod (`namespace`, `name`): its scanned log, named `pods/NAME/log`. Refused or
/// failed reads are returned, not an error: the history is still worth showing.
pub fn read(opts: &LiveOptions, pods: &[(String, String)], since: Option<Timestamp>) -> Result<Read, LiveError> {
    super::runtime()?.block_on(async {
        let conn = connect::connect(opts).await?;
        let server = conn.config.cluster_url.to_string();
        let client = super::client(conn.config, &server)?;
        let gate = std::sync::Arc::new(tokio::sync::Semaphore::new(PARALLEL));
        let tasks: Vec<_> = pods
            .iter()
            .cloned()
            .map(|(ns, name)| {
                let (client, gate) = (client.clone(), gate.clone());
                tokio::spawn(async move {
                    let _permit = gate.acquire().await.expect("the semaphore is never closed");
                    let result = one(&client, &ns, &name, since).await;
                    (ns, name, result)
                })
            })
            .collect();
        let mut scanned = Vec::new();
        let mut failed = Vec::new();
        for (task, (ns, name)) in tasks.into_iter().zip(pods) {
            match task.await {
                Ok((_, name, Ok(stats))) => scanned.push((format!("pods/{name}/log"), stats)),
                Ok((namespace, pod, Err((code, why)))) => failed.push(Failed { namespace, pod, code, why }),
                Err(e) => failed.push(Failed {
                    namespace: ns.clone(),
                    pod: name.clone(),
                    code: None,
                    why: format!("the log reader failed: {e}"),
                }),
            }
        }
        Ok((scanned, failed))
    })
}

async fn one(
    client: &kube::Client,
    ns: &str,
    name: &str,
    since: Option<Timestamp>,
) -> Result<LogStats, (Option<u16>, String)> {
    let mut query = "container=speaker".to_string();
    if let Some(t) = since {
        query.push_str(&format!("&sinceTime={}", t.strftime("%Y-%m-%dT%H:%M:%SZ")));
    }
    let path = format!("/api/v1/namespaces/{ns}/pods/{name}/log?{query}");
    let req = http::Request::get(path).body(Vec::new()).map_err(|e| (None, e.to_string()))?;
    let mut body = client.request_stream(req).await.map_err(|e| match e {
        kube::Error::Api(s) if s.code == 403 => (Some(403), "forbidden (get pods/log)".to_string()),
        kube::Error::Api(s) => (Some(s.code), format!("{} {}", s.code, s.message)),
        other => (None, other.to_string()),
    })?;
    let (tx, rx) = tokio::sync::mpsc::channel::<std::io::Result<Vec<u8>>>(CHANNEL);
    let scanner = tokio::task::spawn_blocking(move || {
        logs::scan(std::io::BufReader::new(Chunks { rx, chunk: Vec::new(), pos: 0 }), since)
    });
    loop {
        let chunk = match body.fill_buf().await {
            Ok([]) => break,
            Ok(c) => c.to_vec(),
            Err(e) => {
                let _ = tx.send(Err(e)).await;
                break;
            }
        };
        body.consume_unpin(chunk.len());
        if tx.send(Ok(chunk)).await.is_err() {
            break;
        }
    }
    drop(tx);
    scanner.await.map_err(|e| (None, e.to_string()))?.map_err(|e| (None, format!("reading the log: {e}")))
}

/// The network's chunks as a blocking reader, for the scanner's thread.
struct Chunks {
    rx: tokio::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    pos: usize,
}

impl std::io::Read for Chunks {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.pos == self.chunk.len() {
            match self.rx.blocking_recv() {
                None => return Ok(0),
                Some(Err(e)) => return Err(e),
                Some(Ok(c)) => {
                    self.chunk = c;
                    self.pos = 0;
                }
            }
        }
        let n = buf.len().min(self.chunk.len() - self.pos);
        buf[..n].copy_from_slice(&self.chunk[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}
