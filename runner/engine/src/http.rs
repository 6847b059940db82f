//! Outbound HTTP: the one TLS set-up of every client the engine builds (the LLM providers and
//! the team dashboard). A leaf.

/// rustls on ring with the bundled Mozilla roots, set per client rather than as the process's
/// default provider: no aws-lc-sys or OpenSSL to build, and the same roots on every machine.
pub(crate) fn tls_config() -> rustls::ClientConfig {
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
