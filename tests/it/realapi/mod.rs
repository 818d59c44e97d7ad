//! Against a real kube-apiserver (`../shared/k8s/`): what the fake API server cannot show —
//! validation, RBAC, real pagination, TLS and authentication, the audit log, kubectl itself.
//! Root only (network namespaces); SKIPPED otherwise, as the wire tests are.

mod load;
mod server;
mod suite;
