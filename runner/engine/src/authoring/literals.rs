//! Credentials written into an instruction ("sign in as bob@acme.test with password hunter2"):
//! a value after a secret's keyword (password, passcode, PIN, token, secret, API key), and an
//! email address in an instruction that also holds such a value (the account's user name).

/// What a literal is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiteralKind {
    /// A password, passcode, PIN, token or key.
    Secret,
    /// The account's email address (its user name).
    Email,
}

/// A credential's value found in the instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Literal {
    /// What it is.
    pub kind: LiteralKind,
    /// The field name the manifest gets (`password`, `token`, `email`…).
    pub field: String,
    /// The value, as written.
    pub value: String,
}

/// Keywords after which a secret's value is written, with the manifest field each gives.
const KEYWORDS: &[(&str, &str)] = &[
    ("password", "password"),
    ("passcode", "password"),
    ("passphrase", "password"),
    ("passwd", "password"),
    ("pwd", "password"),
    ("pin", "pin"),
    ("token", "token"),
    ("secret", "secret"),
    ("key", "key"),
];
/// Words between a keyword and its value.
const LINKS: &[&str] = &["is", "of", "=", ":", "as"];

/// The credentials written into `instruction`, each once, in order.
pub fn find_literals(instruction: &str) -> Vec<Literal> {
    let words = tokens(instruction);
    let mut out: Vec<Literal> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        // `PIN=4321`, `password:x`: the keyword and its value in one word.
        if let Some((k, v)) = words[i].split_once(['=', ':'])
            && let Some((_, field)) = KEYWORDS.iter().find(|(w, _)| w.eq_ignore_ascii_case(k))
            && is_value(&clean(v))
            && !out.iter().any(|l| l.value == clean(v))
        {
            out.push(Literal {
                kind: LiteralKind::Secret,
                field: (*field).to_string(),
                value: clean(v),
            });
            i += 1;
            continue;
        }
        let bare = words[i]
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        let keyword = KEYWORDS.iter().find(|(k, _)| *k == bare);
        if let Some((_, field)) = keyword {
            let mut j = i + 1;
            // "password: x" ends the keyword with its link; "password is x", "password = x".
            while j < words.len() && LINKS.contains(&words[j].to_lowercase().as_str()) {
                j += 1;
            }
            if let Some(value) = words.get(j).map(|w| clean(w))
                && is_value(&value)
                && !out.iter().any(|l| l.value == value)
            {
                out.push(Literal {
                    kind: LiteralKind::Secret,
                    field: (*field).to_string(),
                    value,
                });
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    if out.is_empty() {
        return out;
    }
    for w in &words {
        let value = clean(w);
        if is_email(&value) && !out.iter().any(|l| l.value == value) {
            out.insert(
                0,
                Literal {
                    kind: LiteralKind::Email,
                    field: "email".into(),
                    value,
                },
            );
        }
    }
    out
}

/// Words, a quoted run ("two words" or 'x') kept whole with its quotes.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut word = String::new();
        if matches!(c, '"' | '\'' | '`' | '“') {
            let close = if c == '“' { '”' } else { c };
            word.push(chars.next().expect("peeked"));
            for d in chars.by_ref() {
                word.push(d);
                if d == close {
                    break;
                }
            }
        } else {
            while let Some(&d) = chars.peek() {
                if d.is_whitespace() {
                    break;
                }
                word.push(d);
                chars.next();
            }
        }
        out.push(word);
    }
    out
}

/// A word without its quotes and trailing punctuation.
fn clean(word: &str) -> String {
    let w = word.trim_end_matches([',', ';', ')', '!', '?']);
    let w = if w.len() > 1 && w.ends_with('.') && !w.starts_with(['"', '\'', '`', '“']) {
        &w[..w.len() - 1]
    } else {
        w
    };
    w.trim_matches(|c| matches!(c, '"' | '\'' | '`' | '“' | '”'))
        .to_string()
}

/// Whether a word can be a secret's value, not an ordinary word of the sentence ("the
/// password field", "a password").
fn is_value(value: &str) -> bool {
    const ORDINARY: &[&str] = &[
        "the",
        "a",
        "an",
        "and",
        "field",
        "box",
        "input",
        "form",
        "page",
        "reset",
        "forgotten",
        "from",
        "in",
        "into",
        "to",
        "with",
        "for",
        "it",
        "their",
        "his",
        "her",
        "its",
        "your",
        "manager",
        "again",
        "can",
        "must",
        "should",
        "will",
        "was",
        "has",
        "had",
        "may",
        "does",
        "did",
        "not",
        "been",
        "change",
        "changes",
        "policy",
        "strength",
        "rules",
        "expired",
        "expires",
        "works",
        "fails",
        "field.",
        "fields",
    ];
    !value.is_empty()
        && value.chars().count() >= 3
        && !ORDINARY.contains(&value.to_lowercase().as_str())
}

fn is_email(value: &str) -> bool {
    let Some((user, domain)) = value.split_once('@') else {
        return false;
    };
    !user.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && value.chars().all(|c| !c.is_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<(String, String)> {
        find_literals(text)
            .into_iter()
            .map(|l| (l.field, l.value))
            .collect()
    }

    #[test]
    fn values_after_a_secret_s_keyword_and_the_account_s_email_are_found() {
        assert_eq!(
            values("sign in as bob@acme.test with password hunter2 and archive Apollo."),
            [
                ("email".to_string(), "bob@acme.test".to_string()),
                ("password".to_string(), "hunter2".to_string())
            ]
        );
        assert_eq!(
            values(
                "log in (password: \"correct horse battery\"), then check the API token is s3cr3t-t0k3n"
            ),
            [
                ("password".to_string(), "correct horse battery".to_string()),
                ("token".to_string(), "s3cr3t-t0k3n".to_string())
            ]
        );
        assert_eq!(values("PIN=4321 unlocks it")[0].1, "4321");
    }

    #[test]
    fn ordinary_sentences_about_passwords_hold_no_literal() {
        for text in [
            "fill in the password field and submit",
            "check that a forgotten password can be reset",
            "invite carol@acme.test to the project",
            "sign in as the admin and archive the first project",
        ] {
            assert!(find_literals(text).is_empty(), "{text}");
        }
    }
}
