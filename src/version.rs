//! What `kubectl lbdoctor version` reports, as stamped by build.rs.

pub use crate::report::VersionInfo;

pub fn current() -> VersionInfo {
    VersionInfo {
        api_version: "lbdoctor/v1alpha1",
        kind: "Version",
        version: env!("CARGO_PKG_VERSION"),
        git_commit: env!("LBDOCTOR_GIT_COMMIT"),
        build_date: env!("LBDOCTOR_BUILD_DATE"),
        kubernetes_api: env!("LBDOCTOR_KUBERNETES_API"),
        metallb: "v0.16.1",
        platform: env!("LBDOCTOR_TARGET"),
    }
}

impl std::fmt::Display for VersionInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "kubectl-lbdoctor {}", self.version)?;
        writeln!(f, "git commit:      {}", self.git_commit)?;
        writeln!(f, "build date:      {}", self.build_date)?;
        writeln!(f, "kubernetes api:  {}", self.kubernetes_api)?;
        writeln!(f, "metallb:         {} by default (v0.13.0 … v0.16.1, main modelled)", self.metallb)?;
        writeln!(f, "platform:        {}", self.platform)
    }
}

#[cfg(test)]
#[path = "../build/civil.rs"]
mod civil;

#[cfg(test)]
mod tests {
    use super::civil;

    #[test]
    fn build_dates_are_rfc3339_utc() {
        // Epoch, a leap day, the end of a century leap year, before 1970, far ahead.
        for seconds in [0_i64, 951_782_400, 978_307_199, -86_401, 1_709_164_800, 4_107_542_399] {
            let want = jiff::Timestamp::from_second(seconds).unwrap().to_string();
            assert_eq!(civil::rfc3339(seconds), want, "{seconds}");
        }
    }
}
