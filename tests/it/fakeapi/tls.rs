//! A certificate authority made for one test run, and the server certificate it signs for 127.0.0.1.

use std::sync::Arc;

pub struct Tls {
    pub ca_pem: String,
    cert_der: Vec<u8>,
    key_der: Vec<u8>,
}

impl Tls {
    pub fn generate() -> Tls {
        let ca_key = rcgen::KeyPair::generate().expect("CA key");
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA params");
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params.distinguished_name.push(rcgen::DnType::CommonName, "lbdoctor test CA");
        ca_params.key_usages = vec![rcgen::KeyUsagePurpose::KeyCertSign, rcgen::KeyUsagePurpose::CrlSign];
        let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).expect("CA certificate");
        let key = rcgen::KeyPair::generate().expect("server key");
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_string()]).expect("server params");
        params.subject_alt_names.push(rcgen::SanType::IpAddress("127.0.0.1".parse().expect("an IP")));
        params.distinguished_name.push(rcgen::DnType::CommonName, "fake-apiserver");
        let cert = params.signed_by(&key, &ca).expect("server certificate");
        Tls { ca_pem: ca.pem(), cert_der: cert.der().to_vec(), key_der: key.serialize_der() }
    }

    pub fn server_config(&self) -> Arc<rustls::ServerConfig> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let chain = vec![rustls::pki_types::CertificateDer::from(self.cert_der.clone())];
        let key = rustls::pki_types::PrivateKeyDer::Pkcs8(self.key_der.clone().into());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .expect("server certificate and key");
        Arc::new(config)
    }
}
