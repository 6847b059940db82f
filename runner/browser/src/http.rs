//! Outbound HTTP: what every client Windup builds (the debugging port's preflight here, the
//! engine's LLM providers and team dashboard) shares: the TLS set-up and how a transport error is told. A leaf.

/// rustls on ring with the bundled Mozilla roots, set per client rather than as the process's
/// default provider: no aws-lc-sys or OpenSSL to build, and the same roots on every machine.
pub fn tls_config() -> rustls::ClientConfig {
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("ring supports the default TLS versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    config
}

/// A reqwest error with its causes, which hold the useful part ("connection refused").
pub fn error_chain(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}
