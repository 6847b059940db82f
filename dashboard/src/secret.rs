//! Tokens, sessions and passwords. Project tokens and session ids are random, shown once, and
//! stored only as SHA-256 hashes; hashes are compared in constant time. Passwords use argon2,
//! on its own threads (`argon`).

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

pub const TOKEN_PREFIX: &str = "wdp_";

/// 32 random bytes from the operating system, hex-encoded.
pub fn random_hex() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system's random source failed");
    hex::encode(bytes)
}

pub fn new_project_token() -> String {
    format!("{TOKEN_PREFIX}{}", random_hex())
}

pub fn sha256_hex(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// The indexed part of a hash: finds candidates without comparing secrets in the database.
pub fn lookup(hash: &str) -> &str {
    &hash[..16.min(hash.len())]
}

pub fn same(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Ingest,
    CacheRead,
    CacheWrite,
    Admin,
}

impl Scope {
    pub const ALL: [Scope; 4] = [
        Scope::Ingest,
        Scope::CacheRead,
        Scope::CacheWrite,
        Scope::Admin,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Ingest => "ingest",
            Scope::CacheRead => "cache:read",
            Scope::CacheWrite => "cache:write",
            Scope::Admin => "admin",
        }
    }

    pub fn parse(s: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|scope| scope.as_str() == s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_prefixed_random_and_hashed() {
        let a = new_project_token();
        let b = new_project_token();
        assert!(a.starts_with("wdp_") && a.len() == 4 + 64);
        assert_ne!(a, b);
        assert_eq!(sha256_hex("abc").len(), 64);
        assert!(same(&sha256_hex(&a), &sha256_hex(&a)));
        assert!(!same(&sha256_hex(&a), &sha256_hex(&b)));
    }

    #[test]
    fn scopes_round_trip() {
        for scope in Scope::ALL {
            assert_eq!(Scope::parse(scope.as_str()), Some(scope));
        }
        assert_eq!(Scope::parse("cache"), None);
    }
}
