//! One-time codes (RFC 6238: HMAC-SHA-1, 30-second steps, 6 digits) from a base32 secret, the
//! way authenticator apps make them, through `totp-rs`. A code is made at the input boundary
//! when a step types it, and for masking; neither the secret's bytes nor a code is ever
//! written anywhere.

use totp_rs::{Algorithm, Builder, Secret, Totp};

/// Seconds a code is valid for.
const STEP_SECONDS: u64 = 30;
/// Digits of a code.
const DIGITS: u8 = 6;
/// How far back masking looks: a code typed up to ten minutes ago is still masked in what the
/// run reports (a slow scenario's report is written after it ends).
const MASKED_STEPS_BACK: u64 = 20;

/// A decoded TOTP secret. Its `Debug` shows nothing of it.
#[derive(Clone)]
pub struct TotpSecret(Vec<u8>);

impl std::fmt::Debug for TotpSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TotpSecret(•••)")
    }
}

impl TotpSecret {
    /// Decodes a base32 secret as authenticator apps show it: any case, spaces, dashes and
    /// `=` padding allowed. None when it is not base32.
    pub fn parse(base32: &str) -> Option<TotpSecret> {
        let clean: String = base32
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-' && *c != '=')
            .map(|c| c.to_ascii_uppercase())
            .collect();
        if clean.is_empty() {
            return None;
        }
        Secret::try_from_base32(&clean)
            .ok()
            .map(|s| TotpSecret(s.as_bytes().to_vec()))
    }

    fn totp(&self) -> Totp {
        // `build_noncompliant`: sites still hand out 80-bit secrets, which RFC 4226's 128-bit
        // minimum (what `build` checks) would refuse; the code is the same either way.
        Builder::new()
            .with_algorithm(Algorithm::SHA1)
            .with_digits(DIGITS)
            .with_step_duration(STEP_SECONDS)
            .with_secret(self.0.clone())
            .build_noncompliant()
    }

    /// The code for the moment `unix_seconds`.
    pub fn code_at(&self, unix_seconds: u64) -> String {
        self.totp().generate(unix_seconds).to_string()
    }

    /// The code now.
    pub fn current(&self) -> String {
        self.code_at(now())
    }

    /// The codes of the last ten minutes and the next step, for masking.
    pub fn recent(&self) -> Vec<String> {
        let totp = self.totp();
        let now = now();
        (0..=MASKED_STEPS_BACK + 1)
            .map(|i| {
                let t = (now + STEP_SECONDS).saturating_sub(i * STEP_SECONDS);
                totp.generate(t).to_string()
            })
            .collect()
    }
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238, Appendix B: the SHA-1 key "12345678901234567890", 8-digit codes; the last 6
    /// digits are the 6-digit code (dynamic truncation takes the code modulo 10^digits).
    #[test]
    fn codes_match_the_rfc_6238_test_vectors() {
        let key = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"; // base32 of "12345678901234567890"
        let secret = TotpSecret::parse(key).unwrap();
        for (t, eight) in [
            (59, "94287082"),
            (1111111109, "07081804"),
            (1111111111, "14050471"),
            (1234567890, "89005924"),
            (2000000000, "69279037"),
            (20000000000, "65353130"),
        ] {
            assert_eq!(secret.code_at(t), eight[2..], "at {t}");
        }
    }

    #[test]
    fn secrets_are_read_as_apps_show_them_and_never_shown() {
        let a = TotpSecret::parse("gezd gnbv gy3t qojq").unwrap();
        let b = TotpSecret::parse("GEZDGNBVGY3TQOJQ").unwrap();
        assert_eq!(a.code_at(59), b.code_at(59));
        assert!(TotpSecret::parse("not base32!").is_none());
        assert!(TotpSecret::parse("").is_none());
        assert_eq!(format!("{a:?}"), "TotpSecret(•••)");
        assert!(b.recent().contains(&b.current()));
    }
}
