//! Which fields a credential may be typed into: one rule for the planner's check of an answer,
//! the plan boundary, healing, `windup mcp` and the executor at input time (which asks the page
//! what the field is just before it sets the value). A secret goes only into a password or
//! one-time-code field, an identifier only into a one-line text, email or telephone input, a
//! one-time code only into a one-line input; never into a text area, an editable region or a
//! search box, where a page shows or sends what is typed.

/// What a credential is, by its account field's name (`password`, `email`, `otp: {totp_secret}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CredentialKind {
    /// A password, passcode, PIN or other secret the person knows.
    Secret,
    /// The current code of a TOTP secret.
    OneTimeCode,
    /// What names the account: an email, a user name, a phone number.
    Identifier,
}

pub use windup_browser::FieldFacts;

/// What kind of field it is, in words for a message.
fn kind_of_field(field: &FieldFacts) -> String {
    match (field.tag.as_str(), &field.input_type) {
        ("input", Some(t)) => format!("an input of type {t}"),
        ("input", None) => "an input".into(),
        ("textarea", _) => "a text area".into(),
        (tag, _) => format!("a <{tag}> (an editable region, not a form field)"),
    }
}

/// Whether the field's `autocomplete` holds one of `tokens`.
fn has_token(field: &FieldFacts, tokens: &[&str]) -> bool {
    field
        .autocomplete
        .as_deref()
        .is_some_and(|a| a.split_whitespace().any(|t| tokens.contains(&t)))
}

/// Input types a person types one line of text into.
const LINE_TYPES: [&str; 3] = ["text", "email", "tel"];

/// Why a credential may not be typed into a field: what it goes into, and what the field is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Misfit {
    /// The field is not of a kind the credential goes into.
    #[error(
        "the credential {name} goes only into {wants}, and this field is {field} (fix: target the account's own field on the sign-in form)"
    )]
    Field {
        /// The credential's ENV name.
        name: String,
        /// The kinds of field it goes into.
        wants: &'static str,
        /// The field, as a kind ("a search box", "a text area").
        field: String,
    },
    /// The name is no credential of the project.
    #[error("`{0}` is not a credential of this project")]
    Undeclared(String),
}

/// Whether the credential `name`, of kind `kind`, may be typed into the field `field`; else why
/// not, naming the field's kind and the fix.
pub fn credential_fits(name: &str, kind: CredentialKind, field: &FieldFacts) -> Result<(), Misfit> {
    let input_type = field.input_type.as_deref().unwrap_or("text");
    let search = input_type == "search"
        || field.role.as_deref() == Some("searchbox")
        || has_token(field, &["search"]);
    let fits = field.tag == "input"
        && !search
        && match kind {
            CredentialKind::Secret => {
                input_type == "password"
                    || has_token(
                        field,
                        &["one-time-code", "current-password", "new-password"],
                    )
            }
            CredentialKind::OneTimeCode => {
                input_type == "password"
                    || LINE_TYPES.contains(&input_type)
                    || input_type == "number"
            }
            CredentialKind::Identifier => {
                LINE_TYPES.contains(&input_type) || has_token(field, &["username", "email", "tel"])
            }
        };
    if fits {
        return Ok(());
    }
    let wants = match kind {
        CredentialKind::Secret => "a password field (or a one-time-code field)",
        CredentialKind::OneTimeCode => "a one-line input",
        CredentialKind::Identifier => "a text, email or telephone input",
    };
    let what = if search {
        "a search box".to_string()
    } else {
        kind_of_field(field)
    };
    Err(Misfit::Field {
        name: name.to_string(),
        wants,
        field: what,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(t: &str) -> FieldFacts {
        FieldFacts {
            tag: "input".into(),
            input_type: Some(t.into()),
            ..FieldFacts::default()
        }
    }

    #[test]
    fn a_secret_goes_only_into_a_password_or_one_time_code_field() {
        let s = CredentialKind::Secret;
        assert!(credential_fits("P", s, &input("password")).is_ok());
        let otp = FieldFacts {
            autocomplete: Some("one-time-code".into()),
            ..input("text")
        };
        assert!(credential_fits("P", s, &otp).is_ok());
        for bad in [input("text"), input("email"), input("search")] {
            let e = credential_fits("P", s, &bad).unwrap_err().to_string();
            assert!(
                e.contains("the credential P goes only into a password field"),
                "{e}"
            );
        }
        let area = FieldFacts {
            tag: "textarea".into(),
            ..FieldFacts::default()
        };
        assert!(
            credential_fits("P", s, &area)
                .unwrap_err()
                .to_string()
                .contains("a text area")
        );
    }

    #[test]
    fn an_identifier_goes_into_a_line_never_a_search_box_a_text_area_or_an_editable_region() {
        let id = CredentialKind::Identifier;
        for ok in ["text", "email", "tel"] {
            assert!(credential_fits("E", id, &input(ok)).is_ok(), "{ok}");
        }
        let user = FieldFacts {
            autocomplete: Some("section-login username".into()),
            ..input("url")
        };
        assert!(credential_fits("E", id, &user).is_ok());
        let searchbox = FieldFacts {
            role: Some("searchbox".into()),
            ..input("text")
        };
        for bad in [input("search"), searchbox] {
            let e = credential_fits("E", id, &bad).unwrap_err().to_string();
            assert!(e.contains("a search box"), "{e}");
        }
        for (tag, what) in [("textarea", "a text area"), ("div", "an editable region")] {
            let f = FieldFacts {
                tag: tag.into(),
                ..FieldFacts::default()
            };
            assert!(
                credential_fits("E", id, &f)
                    .unwrap_err()
                    .to_string()
                    .contains(what)
            );
        }
        assert!(credential_fits("E", id, &input("password")).is_err());
    }

    #[test]
    fn a_one_time_code_goes_into_a_one_line_input() {
        let c = CredentialKind::OneTimeCode;
        for ok in ["text", "number", "tel", "password"] {
            assert!(credential_fits("T", c, &input(ok)).is_ok(), "{ok}");
        }
        assert!(credential_fits("T", c, &input("search")).is_err());
    }
}
