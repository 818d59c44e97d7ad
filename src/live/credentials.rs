//! The kubeconfig user's credentials, settled once before any client exists: tokens trimmed as
//! kubectl trims them, a token file read once, an `exec:` plugin run once per process.
//!
//! kube builds its authentication per client, and runs an exec plugin each time it does (for the
//! TLS identity and again for the header), so a `check` ran a login helper three times and
//! `history` six. Handing kube a plain token or certificate instead makes it run nothing.

use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use base64::Engine as _;
use kube::config::{AuthInfo, ExecConfig, ExecInteractiveMode};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use super::LiveError;

/// What an exec plugin answered, by the plugin's configuration, for the life of the process.
static EXEC_ANSWERS: Mutex<Vec<(String, Settled)>> = Mutex::new(Vec::new());

#[derive(Clone)]
enum Settled {
    Token(String),
    Certificate { cert_pem: String, key_pem: String },
}

/// Replaces `auth_info`'s token file or exec plugin by what they yield, and checks that a token
/// can be sent at all. `user` names the kubeconfig user in messages.
pub fn settle(auth_info: &mut AuthInfo, user: &str) -> Result<(), LiveError> {
    // kube's order of precedence: auth-provider, basic, token, tokenFile, exec.
    if auth_info.auth_provider.is_some() || (auth_info.username.is_some() && auth_info.password.is_some()) {
        return Ok(());
    }
    if let Some(token) = &auth_info.token {
        let token = checked_token(token.expose_secret(), &format!("the token of kubeconfig user {user:?}"))?;
        auth_info.token = Some(SecretString::from(token));
        return Ok(());
    }
    if let Some(file) = auth_info.token_file.take() {
        let text = std::fs::read_to_string(&file).map_err(|e| {
            LiveError::Unauthorized(format!(
                "kubeconfig user {user:?}: tokenFile {file}: {}; fix the path or the file's permissions",
                crate::plain::io(&e)
            ))
        })?;
        let token = checked_token(&text, &format!("tokenFile {file} of kubeconfig user {user:?}"))?;
        auth_info.token = Some(SecretString::from(token));
        return Ok(());
    }
    if let Some(exec) = auth_info.exec.take() {
        match run_once(&exec, user)? {
            Settled::Token(token) => auth_info.token = Some(SecretString::from(token)),
            Settled::Certificate { cert_pem, key_pem } => {
                let b64 = base64::engine::general_purpose::STANDARD;
                auth_info.client_certificate_data = Some(b64.encode(cert_pem));
                auth_info.client_key_data = Some(SecretString::from(b64.encode(key_pem)));
                auth_info.client_certificate = None;
                auth_info.client_key = None;
            }
        }
    }
    Ok(())
}

/// A bearer token as kubectl sends it: surrounding whitespace dropped (what `echo TOKEN > file`
/// adds), and refused, not sent, when what is left cannot be an HTTP header value.
fn checked_token(raw: &str, what: &str) -> Result<String, LiveError> {
    let token = raw.trim();
    if token.is_empty() {
        return Err(LiveError::Unauthorized(format!("{what} is empty; put the token in it, or log in again")));
    }
    if http::HeaderValue::from_str(&format!("Bearer {token}")).is_err() {
        return Err(LiveError::Unauthorized(format!(
            "{what} cannot be sent: it contains a line break or another control character inside it; copy \
             the token again (`kubectl config view --raw --minify` shows it)"
        )));
    }
    Ok(token.to_string())
}

/// Drops what exec plugins answered, so the next `settle` runs them again: `--watch` after a 401.
pub fn forget() {
    EXEC_ANSWERS.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clear();
}

fn run_once(exec: &ExecConfig, user: &str) -> Result<Settled, LiveError> {
    let key = serde_json::to_string(exec).unwrap_or_default();
    let mut answers = EXEC_ANSWERS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, settled)) = answers.iter().find(|(k, _)| *k == key) {
        return Ok(settled.clone());
    }
    let settled = run(exec, user)?;
    answers.push((key, settled.clone()));
    Ok(settled)
}

#[derive(Serialize)]
struct ExecInfo<'a> {
    #[serde(rename = "apiVersion", skip_serializing_if = "Option::is_none")]
    api_version: Option<&'a str>,
    kind: &'static str,
    spec: ExecInfoSpec<'a>,
}

#[derive(Serialize)]
struct ExecInfoSpec<'a> {
    interactive: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster: Option<&'a kube::config::ExecAuthCluster>,
}

#[derive(Deserialize)]
struct ExecCredential {
    status: Option<ExecStatus>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ExecStatus {
    token: Option<String>,
    client_certificate_data: Option<String>,
    client_key_data: Option<String>,
}

/// Runs the plugin as client-go does: its args and env, `KUBERNETES_EXEC_INFO`, the terminal's
/// stdin unless `interactiveMode: Never`, its stderr passed through (prompts, its own errors).
fn run(exec: &ExecConfig, user: &str) -> Result<Settled, LiveError> {
    let Some(command) = &exec.command else {
        return Err(LiveError::Usage(format!("kubeconfig user {user:?}: exec has no command")));
    };
    let interactive = exec.interactive_mode != Some(ExecInteractiveMode::Never);
    let info = ExecInfo {
        api_version: exec.api_version.as_deref(),
        kind: "ExecCredential",
        spec: ExecInfoSpec { interactive, cluster: exec.cluster.as_ref().filter(|_| exec.provide_cluster_info) },
    };
    let env: HashMap<&str, &str> =
        exec.env.iter().flatten().filter_map(|e| Some((e.get("name")?.as_str(), e.get("value")?.as_str()))).collect();
    let mut cmd = Command::new(command);
    cmd.args(exec.args.iter().flatten())
        .envs(env)
        .env("KUBERNETES_EXEC_INFO", serde_json::to_string(&info).unwrap_or_default())
        .stdin(if interactive { Stdio::inherit() } else { Stdio::null() })
        .stderr(Stdio::inherit());
    let plugin = format!("the exec credential plugin {command:?} of kubeconfig user {user:?}");
    let out = cmd.output().map_err(|e| {
        let hint = exec.install_hint.as_deref().map(|h| format!("; {}", h.trim())).unwrap_or_default();
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "it is not installed or not on PATH".to_string(),
            _ => crate::plain::io(&e),
        };
        LiveError::Unauthorized(format!("{plugin} cannot be started: {why}{hint}"))
    })?;
    if !out.status.success() {
        return Err(LiveError::Unauthorized(format!(
            "{plugin} failed ({}); run it by hand to see why, or log in again",
            out.status
        )));
    }
    // client-go decodes the answer with a YAML-tolerant codec; JSON is YAML.
    let answer: ExecCredential = serde_saphyr::from_slice(&out.stdout).map_err(|e| {
        LiveError::Unauthorized(format!(
            "{plugin} printed no ExecCredential: {}",
            crate::snapshot::file::yaml_message(&e)
        ))
    })?;
    let status = answer.status.unwrap_or_default();
    match (status.token, status.client_certificate_data, status.client_key_data) {
        (_, Some(cert_pem), Some(key_pem)) => Ok(Settled::Certificate { cert_pem, key_pem }),
        (Some(token), _, _) => Ok(Settled::Token(checked_token(&token, &format!("the token {plugin} printed"))?)),
        _ => Err(LiveError::Unauthorized(format!(
            "{plugin} printed an ExecCredential without status.token or status.clientCertificateData/\
             clientKeyData; log in again"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_token(token: &str) -> AuthInfo {
        AuthInfo { token: Some(SecretString::from(token.to_string())), ..AuthInfo::default() }
    }

    #[test]
    fn a_token_loses_the_newline_an_editor_or_echo_adds() {
        let mut info = with_token("abc-123\n");
        settle(&mut info, "u").unwrap();
        assert_eq!(info.token.unwrap().expose_secret(), "abc-123");
    }

    #[test]
    fn a_token_with_a_line_break_inside_is_a_credentials_error_naming_the_user() {
        let mut info = with_token("abc\n123");
        let err = settle(&mut info, "alice").unwrap_err();
        assert!(matches!(err, LiveError::Unauthorized(_)), "{err:?}");
        assert!(err.to_string().contains("\"alice\""), "{err}");
        assert!(matches!(settle(&mut with_token("  \n"), "u"), Err(LiveError::Unauthorized(_))));
    }

    #[test]
    fn a_token_file_is_read_once_and_trimmed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "from-file\n").unwrap();
        let mut info = AuthInfo { token_file: Some(path.display().to_string()), ..AuthInfo::default() };
        settle(&mut info, "u").unwrap();
        assert_eq!(info.token.unwrap().expose_secret(), "from-file");
        assert!(info.token_file.is_none());
        let mut missing = AuthInfo { token_file: Some("/nonexistent/token".into()), ..AuthInfo::default() };
        let err = settle(&mut missing, "u").unwrap_err().to_string();
        assert!(err.contains("/nonexistent/token"), "{err}");
    }
}
