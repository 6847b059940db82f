//! Masking: every secret value, in the spellings a page or a URL gives it, replaced before a
//! string is shown, stored or sent.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::totp::TotpSecret;

/// What replaces a secret value.
pub const MASK: &str = "•••";

/// The values to mask, longest first (a value containing another is masked whole), and the
/// TOTP secrets whose recent codes are masked too (worked out when a text could hold one).
#[derive(Debug, Default, Clone)]
pub struct Masks {
    values: Vec<String>,
    totp: Vec<TotpSecret>,
}

impl Masks {
    /// Masks for `values` and their URL- and form-encoded spellings. Values shorter than 3
    /// characters are not masked: they would mask every such run of text.
    pub fn new(values: impl IntoIterator<Item = String>) -> Masks {
        let mut out: Vec<String> = Vec::new();
        for v in values.into_iter().filter(|v| v.chars().count() >= 3) {
            out.extend(url_spellings(&v));
            out.push(v);
        }
        Masks {
            values: longest_first(out),
            totp: Vec::new(),
        }
    }

    /// These masks, and the recent one-time codes of `secrets`.
    pub(super) fn with_totp(mut self, secrets: Vec<TotpSecret>) -> Masks {
        self.totp = secrets;
        self
    }

    /// Whether there is nothing to mask.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty() && self.totp.is_empty()
    }

    /// `text` with every value masked, and every recent one-time code.
    pub fn redact(&self, text: &str) -> String {
        let codes = self.codes_in(text);
        if codes.is_empty() && !self.values.iter().any(|v| text.contains(v.as_str())) {
            return text.to_string();
        }
        let out = self
            .values
            .iter()
            .fold(text.to_string(), |out, v| out.replace(v.as_str(), MASK));
        codes
            .iter()
            .fold(out, |out, c| out.replace(c.as_str(), MASK))
    }

    /// Whether `text` holds a value in any spelling masking would catch, or in another case
    /// ("HUNTER2" for "hunter2"), or split by spaces: for refusing to write a text down at
    /// all (a note, a task, a typed value), where masking it would keep the rest.
    pub fn reveals(&self, text: &str) -> bool {
        if self.redact(text) != text {
            return true;
        }
        let folded = |s: &str| -> String {
            s.chars()
                .filter(|c| !c.is_whitespace())
                .flat_map(char::to_lowercase)
                .collect()
        };
        let text = folded(text);
        self.values.iter().any(|v| {
            let v = folded(v);
            v.chars().count() >= 3 && text.contains(&v)
        })
    }

    /// The recent codes of the TOTP secrets that `text` holds; none is worked out unless it
    /// has a run of six digits.
    fn codes_in(&self, text: &str) -> Vec<String> {
        if self.totp.is_empty() || !has_digit_run(text, 6) {
            return Vec::new();
        }
        self.totp
            .iter()
            .flat_map(TotpSecret::recent)
            .filter(|c| text.contains(c.as_str()))
            .collect()
    }

    /// `value` with every string in it masked (keys included), whatever its type: the one way
    /// an artifact (report, ledger record, stale evidence) is made safe to store or send.
    pub fn redact_all<T: Serialize + DeserializeOwned>(&self, value: T) -> T {
        if self.is_empty() {
            return value;
        }
        let Ok(mut json) = serde_json::to_value(&value) else {
            return value;
        };
        if !self.mask_value(&mut json) {
            return value;
        }
        // A masked string may no longer parse as what it was (a URL field, say): the field keeps
        // the mask, and a value that cannot take it at all is not returned unmasked.
        serde_json::from_value(json).unwrap_or(value)
    }

    /// Masks every string in `v`; returns whether anything changed.
    fn mask_value(&self, v: &mut Value) -> bool {
        match v {
            Value::String(s) => {
                let masked = self.redact(s);
                let changed = masked != *s;
                *s = masked;
                changed
            }
            Value::Array(items) => {
                let mut changed = false;
                for i in items {
                    changed |= self.mask_value(i);
                }
                changed
            }
            Value::Object(map) => {
                let mut changed = false;
                let keys: Vec<String> = map.keys().cloned().collect();
                for k in keys {
                    let masked = self.redact(&k);
                    if masked != k
                        && let Some(inner) = map.remove(&k)
                    {
                        map.insert(masked, inner);
                        changed = true;
                    }
                }
                for i in map.values_mut() {
                    changed |= self.mask_value(i);
                }
                changed
            }
            _ => false,
        }
    }
}

/// The secrets of every project this process has loaded, for its log lines: the log is
/// process-wide, so what masks it is too.
static FOR_LOGS: std::sync::RwLock<Masks> = std::sync::RwLock::new(Masks {
    values: Vec::new(),
    totp: Vec::new(),
});

/// Masks these values in every log line from now on (see [`redact_log`]).
pub(super) fn mask_in_logs(masks: &Masks) {
    let mut all = FOR_LOGS.write().unwrap_or_else(|e| e.into_inner());
    let values = std::mem::take(&mut all.values)
        .into_iter()
        .chain(masks.values.iter().cloned())
        .collect();
    all.values = longest_first(values);
    all.totp.extend(masks.totp.iter().cloned());
}

/// Whether `text` has `n` ASCII digits in a row.
fn has_digit_run(text: &str, n: usize) -> bool {
    let mut run = 0;
    for b in text.bytes() {
        run = if b.is_ascii_digit() { run + 1 } else { 0 };
        if run >= n {
            return true;
        }
    }
    false
}

/// A log line with every secret of every project loaded so far masked: the CLI's log writer
/// passes every line through it.
pub fn redact_log(line: &str) -> String {
    FOR_LOGS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .redact(line)
}

/// Unique values, longest first, so a value containing another is masked whole.
fn longest_first(mut values: Vec<String>) -> Vec<String> {
    values.sort();
    values.dedup();
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    values
}

/// How a value looks percent-encoded in a URL (`%20` or `+` for a space) or a form body, when
/// that differs; lower-case hex escapes too.
fn url_spellings(value: &str) -> Vec<String> {
    let form: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
    let mut out = Vec::new();
    if form != value {
        let path = form.replace('+', "%20");
        for s in [form, path] {
            let lower = lower_hex(&s);
            if lower != s {
                out.push(lower);
            }
            out.push(s);
        }
    }
    out
}

/// `%2F` as `%2f`: some encoders write lower-case escapes.
fn lower_hex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        let esc = rest.get(i..i + 3).unwrap_or(&rest[i..]);
        out.push_str(&esc.to_ascii_lowercase());
        rest = &rest[i + esc.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_is_masked_and_longest_first() {
        let m = Masks::new([
            "hunter two/7".to_string(),
            "hunter".to_string(),
            "ab".into(),
        ]);
        assert_eq!(
            m.redact("a hunter two/7 b hunter+two%2F7 c hunter%20two%2f7 d hunter ab"),
            "a ••• b ••• c ••• d ••• ab"
        );
    }

    #[test]
    fn a_value_is_revealed_in_any_case_or_spacing() {
        let m = Masks::new(["Hunter Two".to_string(), "ab".into()]);
        for shown in [
            "x hunter two",
            "HUNTER TWO!",
            "huntertwo",
            "h u n t e r two",
            "hunter%20two",
        ] {
            assert!(m.reveals(shown), "{shown}");
        }
        for not in ["hunter", "two hunters", "ab", "AB"] {
            assert!(!m.reveals(not), "{not}");
        }
    }

    #[test]
    fn every_string_of_a_value_is_masked_keys_included() {
        let m = Masks::new(["s3cret-value".to_string()]);
        let v = serde_json::json!({"final_url": "http://h/cb?p=s3cret-value", "n": 3,
            "list": ["x s3cret-value"], "s3cret-value": {"deep": "s3cret-value"}});
        let out = m.redact_all(v);
        assert!(!out.to_string().contains("s3cret"), "{out}");
        assert_eq!(out["n"], 3);
        assert_eq!(out["final_url"], "http://h/cb?p=•••");
    }

    #[test]
    fn log_lines_are_masked_for_every_loaded_secret() {
        assert_eq!(redact_log("a log-canary-77 b"), "a log-canary-77 b");
        mask_in_logs(&Masks::new(["log-canary-77".to_string()]));
        assert_eq!(redact_log("a log-canary-77 b"), "a ••• b");
    }
}
