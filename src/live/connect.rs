//! Reaching the API server exactly as kubectl would: the same kubeconfig files, merged the same
//! way, the same context/cluster/user overrides, or the Pod's service account in a cluster.

use std::path::{Path, PathBuf};

use kube::config::{Config, KubeConfigOptions, Kubeconfig};

use super::{credentials, LiveError, LiveOptions};

/// The client configuration and the context name it came from (`None` in-cluster).
pub struct Connection {
    pub config: Config,
    pub context: Option<String>,
}

/// The kubeconfig kubectl would use: `--kubeconfig`, else `$KUBECONFIG` merged, else
/// `~/.kube/config`; `None` when there is none (in-cluster).
pub fn find_kubeconfig(opts: &LiveOptions) -> Result<Option<Kubeconfig>, LiveError> {
    Ok(match &opts.kubeconfig {
        // Like kubectl, --kubeconfig names one file and it must exist.
        Some(path) => Some(read(path)?),
        None => match &opts.env.kubeconfig {
            Some(list) => merged(list)?,
            None => match opts.env.home.as_ref().map(|h| h.join(".kube").join("config")) {
                Some(path) if path.exists() => Some(read(&path)?),
                _ => None,
            },
        },
    })
}

pub async fn connect(opts: &LiveOptions) -> Result<Connection, LiveError> {
    let kc_opts =
        KubeConfigOptions { context: opts.context.clone(), cluster: opts.cluster.clone(), user: opts.user.clone() };
    let kubeconfig = find_kubeconfig(opts)?;
    let Some(kubeconfig) = kubeconfig else {
        let looked = match &opts.env.kubeconfig {
            Some(list) => format!("none of the files in $KUBECONFIG ({}) exists", list.to_string_lossy()),
            None => "$KUBECONFIG is unset and ~/.kube/config does not exist".to_string(),
        };
        if opts.context.is_some() || opts.cluster.is_some() || opts.user.is_some() {
            return Err(LiveError::Usage(format!(
                "--context, --cluster and --user need a kubeconfig, and none was found ({looked})"
            )));
        }
        return in_cluster(opts, &looked);
    };
    let context = opts.context.clone().or_else(|| kubeconfig.current_context.clone());
    // kube would quietly fall back to no credentials for an unknown user; kubectl refuses.
    if let Some(name) = &opts.context {
        if !kubeconfig.contexts.iter().any(|c| &c.name == name) {
            return Err(LiveError::Usage(format!("context {name:?} is not in the kubeconfig")));
        }
    }
    if let Some(name) = &opts.cluster {
        if !kubeconfig.clusters.iter().any(|c| &c.name == name) {
            return Err(LiveError::Usage(format!("cluster {name:?} is not in the kubeconfig")));
        }
    }
    if let Some(name) = &opts.user {
        if !kubeconfig.auth_infos.iter().any(|u| &u.name == name) {
            return Err(LiveError::Usage(format!("user {name:?} is not in the kubeconfig")));
        }
    }
    let user = opts.user.clone().or_else(|| {
        let name = context.as_ref()?;
        kubeconfig.contexts.iter().find(|c| &c.name == name)?.context.as_ref()?.user.clone()
    });
    let mut config = Config::from_custom_kubeconfig(kubeconfig, &kc_opts).await.map_err(|e| {
        LiveError::Usage(format!("the kubeconfig cannot be used: {e}; check `kubectl config view --minify`"))
    })?;
    credentials::settle(&mut config.auth_info, user.as_deref().unwrap_or("(none)"))?;
    finish(&mut config, opts);
    Ok(Connection { config, context })
}

fn in_cluster(opts: &LiveOptions, looked: &str) -> Result<Connection, LiveError> {
    match Config::incluster() {
        Ok(mut config) => {
            credentials::settle(&mut config.auth_info, "(the Pod's service account)")?;
            finish(&mut config, opts);
            Ok(Connection { config, context: None })
        }
        Err(e) => {
            // Outside a Pod the variable is simply unset: kube's words for that are noise.
            let why = match std::env::var_os("KUBERNETES_SERVICE_HOST") {
                None => "KUBERNETES_SERVICE_HOST is unset".to_string(),
                Some(_) => e.to_string(),
            };
            Err(LiveError::Unreachable(format!(
                "no cluster to read: no kubeconfig ({looked}) and not running inside a Pod ({why}). Pass \
                 --kubeconfig, or read a snapshot with --from FILE."
            )))
        }
    }
}

fn read(path: &Path) -> Result<Kubeconfig, LiveError> {
    Kubeconfig::read_from(path).map_err(|e| {
        // kube's message repeats the path, quoted twice; say what the system said about it.
        let why = match &e {
            kube::config::KubeconfigError::ReadConfig(io, _) => io.to_string(),
            other => other.to_string(),
        };
        LiveError::Usage(format!("kubeconfig {}: {why}", path.display()))
    })
}

/// `$KUBECONFIG` as kubectl reads it: a path list, merged first-wins, missing files skipped.
fn merged(list: &std::ffi::OsStr) -> Result<Option<Kubeconfig>, LiveError> {
    let paths: Vec<PathBuf> = std::env::split_paths(list).filter(|p| !p.as_os_str().is_empty()).collect();
    let mut merged: Option<Kubeconfig> = None;
    for path in paths.iter().filter(|p| p.exists()) {
        let next = read(path)?;
        merged = Some(match merged {
            None => next,
            Some(m) => m.merge(next).map_err(|e| LiveError::Usage(format!("$KUBECONFIG: {e}")))?,
        });
    }
    Ok(merged)
}

fn finish(config: &mut Config, opts: &LiveOptions) {
    // The whole request, connecting included, is bounded where it is sent (api.rs), so that the
    // message can name the flag; a connect timeout of the same length would fire first.
    if opts.request_timeout.is_some() {
        config.connect_timeout = None;
    }
    if let Ok(agent) = http::HeaderValue::from_str(&user_agent()) {
        config.headers.push((http::header::USER_AGENT, agent));
    }
}

/// As kubectl's `kubectl/v1.32.4 (linux/amd64) kubernetes/abc1234`, so audit logs can tell
/// lbdoctor's requests apart.
pub fn user_agent() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    format!(
        "kubectl-lbdoctor/{} ({}/{arch}) {}",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::OS,
        env!("LBDOCTOR_GIT_COMMIT")
    )
}
