//! A real kube-apiserver with etcd (`../shared/k8s/apiserver.sh`), one per test, each in its own
//! directory and loopback-only network namespace; stopped when the handle drops.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

use crate::util::{skipped, which, BIN, ROOT};

pub struct Server {
    dir: tempfile::TempDir,
}

fn shared_k8s() -> PathBuf {
    PathBuf::from(ROOT).join("../shared/k8s")
}

/// The server binary, decompressed once per test run and linked into every server's directory
/// (apiserver.sh would decompress 120 MB for each).
fn cached_binary() -> Option<&'static Path> {
    static BINARY: OnceLock<Option<PathBuf>> = OnceLock::new();
    BINARY
        .get_or_init(|| {
            let dir = PathBuf::from(ROOT).join("target/realapi");
            std::fs::create_dir_all(&dir).ok()?;
            let path = dir.join("kube-apiserver");
            if !path.is_file() {
                let tmp = dir.join(format!("kube-apiserver.{}", std::process::id()));
                let out = std::fs::File::create(&tmp).ok()?;
                let ok = Command::new("xz")
                    .arg("-dc")
                    .arg(shared_k8s().join("kube-apiserver-v1.36.2.xz"))
                    .stdout(out)
                    .status()
                    .ok()?
                    .success();
                if !ok {
                    return None;
                }
                use std::os::unix::fs::PermissionsExt as _;
                std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755)).ok()?;
                std::fs::rename(&tmp, &path).ok()?;
            }
            Some(path)
        })
        .as_deref()
}

/// Why the real server cannot run here, if it cannot.
fn unavailable() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("needs root (network namespaces)".into());
    }
    for tool in ["etcd", "openssl", "xz", "curl", "ip"] {
        if which(tool).is_none() {
            return Some(format!("{tool} is missing (apt-get install etcd-server openssl xz-utils curl iproute2)"));
        }
    }
    if !shared_k8s().join("apiserver.sh").is_file() {
        return Some("../shared/k8s/apiserver.sh is missing".into());
    }
    None
}

impl Server {
    /// A running server with the CRDs installed; `None` (and a SKIPPED line) where one cannot run.
    /// Under CI a server that cannot run fails the test instead.
    pub fn start(test: &str) -> Option<Server> {
        if let Some(why) = unavailable() {
            assert!(std::env::var_os("CI").is_none() || why.starts_with("needs root"), "{test}: {why}");
            skipped(test, &why);
            return None;
        }
        let dir = tempfile::Builder::new().prefix("lbd-k8s-").tempdir().unwrap();
        if let Some(binary) = cached_binary() {
            let _ = std::fs::hard_link(binary, dir.path().join("kube-apiserver"))
                .or_else(|_| std::fs::copy(binary, dir.path().join("kube-apiserver")).map(|_| ()));
        }
        let server = Server { dir };
        // Dual stack, as the test data's dual-stack Services need.
        let out = Command::new(shared_k8s().join("apiserver.sh"))
            .arg("start")
            .arg(server.dir())
            .env("SERVICE_CIDR", "10.96.0.0/16,fd00:10:96::/112")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{test}: apiserver.sh start failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(server.dir().join("logs/apiserver.log")).unwrap_or_default()
        );
        super::load::install_crds(&server);
        Some(server)
    }

    /// Leaves the server running after the test; its directory.
    pub fn keep(self) -> PathBuf {
        let this = std::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is never dropped or used again; the TempDir is moved out once.
        let dir = unsafe { std::ptr::read(&this.dir) };
        dir.keep()
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    pub fn pki(&self, file: &str) -> PathBuf {
        self.dir().join("pki").join(file)
    }

    pub fn url(&self) -> &'static str {
        "https://127.0.0.1:16443"
    }

    /// `CMD ARGS…` inside the server's network namespace, with its kubeconfig and nothing of the
    /// caller's (no HOME, no colour settings).
    pub fn exec(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(shared_k8s().join("apiserver.sh"));
        cmd.arg("exec").arg(self.dir()).arg(program);
        cmd.env_remove("NO_COLOR").env_remove("COLUMNS").env("HOME", "/nonexistent");
        cmd
    }

    /// The plugin against this server: stdout, stderr, exit code.
    pub fn lbdoctor(&self, args: &[&str]) -> (String, String, i32) {
        self.lbdoctor_with(args, |_| {})
    }

    pub fn lbdoctor_with(&self, args: &[&str], tweak: impl FnOnce(&mut Command)) -> (String, String, i32) {
        let mut cmd = self.exec(BIN);
        cmd.args(args);
        tweak(&mut cmd);
        let out = cmd.output().unwrap();
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
            out.status.code().unwrap_or(-1),
        )
    }

    /// curl as the cluster admin (client certificate): the HTTP code and the body.
    pub fn curl(&self, method: &str, path: &str, content_type: &str, body: Option<&Value>) -> (u16, String) {
        let mut cmd = self.exec("curl");
        cmd.args(["-sS", "-o", "-", "-w", "\n%{http_code}", "-X", method, "-H"])
            .arg(format!("Content-Type: {content_type}"))
            .arg("--cacert")
            .arg(self.pki("ca.crt"))
            .arg("--cert")
            .arg(self.pki("admin.crt"))
            .arg("--key")
            .arg(self.pki("admin.key"))
            .arg(format!("{}{path}", self.url()));
        if let Some(body) = body {
            cmd.args(["--data-binary", &body.to_string()]);
        }
        let out = cmd.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let (body, code) = text.rsplit_once('\n').unwrap_or(("", &text));
        (code.trim().parse().unwrap_or(0), body.to_string())
    }

    /// The audit log so far: one JSON object per request.
    pub fn audit(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir().join("audit.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    pub fn apiserver_pid(&self) -> i32 {
        self.pid("run/apiserver.pid")
    }

    pub fn stop(&self) {
        let _ = Command::new(shared_k8s().join("apiserver.sh")).arg("stop").arg(self.dir()).output();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Its data is thrown away: SIGKILL spares the server's graceful shutdown (5 s), and ends a
        // frozen (SIGSTOPped) one too. apiserver.sh stop then removes the network namespace.
        for pid in ["run/apiserver.pid", "run/etcd.pid"].map(|f| self.pid(f)) {
            if pid > 0 {
                // SAFETY: kill has no memory preconditions; the pid is the one this test started.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
        self.stop();
    }
}

impl Server {
    fn pid(&self, file: &str) -> i32 {
        std::fs::read_to_string(self.dir().join(file)).ok().and_then(|s| s.trim().parse().ok()).unwrap_or(0)
    }
}
