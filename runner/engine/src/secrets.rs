//! Credentials without committed secrets. A plan names an ENV variable (`value_ref`); its value
//! is looked up only here, at the input boundary, and never written anywhere.

/// Where `value_ref` names are resolved.
pub trait SecretSource: Send + Sync {
    fn resolve(&self, name: &str) -> Option<String>;
}

/// The process environment.
pub struct EnvSecrets;

impl SecretSource for EnvSecrets {
    fn resolve(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}
