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

/// The scanned logs by source, and the reads that failed, as prose.
pub type Read = (Vec<(String, LogStats)>, Vec<String>);

/// Per speaker Pod (`namespace`, `name`): its scanned log, named `pods/NAME/log`. Refused or
/// failed reads are returned as prose, not as an error: the history is still worth showing.
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
                    (name, result)
                })
            })
            .collect();
        let mut scanned = Vec::new();
        let mut failed = Vec::new();
        for task in tasks {
            match task.await {
                Ok((name, Ok(stats))) => scanned.push((format!("pods/{name}/log"), stats)),
                Ok((name, Err(why))) => failed.push(format!("pods/{name}/log: {why}")),
                Err(e) => failed.push(format!("a log reader failed: {e}")),
            }
        }
        Ok((scanned, failed))
    })
}

async fn one(client: &kube::Client, ns: &str, name: &str, since: Option<Timestamp>) -> Result<LogStats, String> {
    let mut query = "container=speaker".to_string();
    if let Some(t) = since {
        query.push_str(&format!("&sinceTime={}", t.strftime("%Y-%m-%dT%H:%M:%SZ")));
    }
    let path = format!("/api/v1/namespaces/{ns}/pods/{name}/log?{query}");
    let req = http::Request::get(path).body(Vec::new()).map_err(|e| e.to_string())?;
    let mut body = client.request_stream(req).await.map_err(|e| match e {
        kube::Error::Api(s) if s.code == 403 => "forbidden (get pods/log)".to_string(),
        kube::Error::Api(s) => format!("{} {}", s.code, s.message),
        other => other.to_string(),
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
    scanner.await.map_err(|e| e.to_string())?.map_err(|e| format!("reading the log: {e}"))
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
