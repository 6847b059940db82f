//! Tokens, sessions and passwords. Project tokens and session ids are random, shown once, and
//! stored only as SHA-256 hashes; hashes are compared in constant time; passwords use argon2.

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
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

pub fn hash_password(password: &str) -> Result<String, argon2::password_hash::Error> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).expect("the operating system's random source failed");
    let salt = SaltString::encode_b64(&salt)?;
    Ok(Argon2::default()
        .hash_password(password.as_bytes(), &salt)?
        .to_string())
}

pub fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash)
        .map(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false)
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
    fn passwords_verify_only_themselves() {
        let hash = hash_password("correct horse").unwrap();
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password("correct horse", &hash));
        assert!(!verify_password("wrong", &hash));
        assert!(!verify_password("correct horse", "not a hash"));
    }

    #[test]
    fn scopes_round_trip() {
        for scope in Scope::ALL {
            assert_eq!(Scope::parse(scope.as_str()), Some(scope));
        }
        assert_eq!(Scope::parse("cache"), None);
    }
}
