//! A literal credential from an instruction, registered: the manifest gets a new ENV name for
//! it (under an account), `.env.local` (git-ignored, owner-only) gets its value, and from then on
//! only the name appears anywhere. A value a declared credential already holds keeps its name.

use std::io::Write;
use std::path::Path;

use windup_model::{InputError, Problems};

use super::literals::Literal;
use crate::project::Layout;
use crate::secrets::ProjectSecrets;

/// Where a literal went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registered {
    /// The literal's value (kept in memory only, to check it appears nowhere else).
    pub value: String,
    /// The account it belongs to.
    pub account: String,
    /// Its field (`password`, `email`…).
    pub field: String,
    /// The ENV name it is known by.
    pub env_name: String,
    /// Whether this call registered it (false: a declared credential already held it).
    pub new: bool,
}

/// Registers each literal under `account` (a new account name when that one already has the
/// field): appends to `.env.local` (created 0600) and to the manifest's `accounts:`. The
/// manifest is read back; when it does not parse, both files are restored.
pub fn register(
    root: &Path,
    literals: &[Literal],
    account: &str,
    secrets: &ProjectSecrets,
) -> Result<Vec<Registered>, Problems> {
    let manifest = secrets.manifest();
    let declared = manifest.env_names();
    let mut out = Vec::new();
    let fresh: Vec<&Literal> = literals
        .iter()
        .filter(|l| {
            match declared
                .iter()
                .find(|n| secrets.lookup(n).as_deref() == Some(l.value.as_str()))
            {
                Some(name) => {
                    let (account, field) = manifest
                        .accounts
                        .iter()
                        .find_map(|(a, acc)| {
                            acc.fields
                                .iter()
                                .find(|(_, n)| n.env_name() == name.as_str())
                                .map(|(f, _)| (a.clone(), f.clone()))
                        })
                        .unwrap_or_default();
                    out.push(Registered {
                        value: l.value.clone(),
                        account,
                        field,
                        env_name: name.clone(),
                        new: false,
                    });
                    false
                }
                None => true,
            }
        })
        .collect();
    if fresh.is_empty() {
        return Ok(out);
    }
    // One account for the new values: the one named, unless it already has one of the fields.
    let base = slug(account);
    let mut name = base.clone();
    let mut n = 1;
    while manifest
        .accounts
        .get(&name)
        .is_some_and(|a| fresh.iter().any(|l| a.fields.contains_key(&l.field)))
    {
        n += 1;
        name = format!("{base}{n}");
    }
    let mut lines_env = String::new();
    let mut lines_manifest = String::new();
    if !manifest.accounts.contains_key(&name) {
        lines_manifest.push_str(&format!("  {name}:\n"));
    }
    let mut taken = declared.clone();
    for l in fresh {
        let stem = format!("{}_{}", name, l.field)
            .to_uppercase()
            .replace(['-', '.'], "_");
        let mut env_name = stem.clone();
        let mut k = 1;
        while taken.contains(&env_name) || secrets.lookup(&env_name).is_some() {
            k += 1;
            env_name = format!("{stem}_{k}");
        }
        taken.push(env_name.clone());
        lines_env.push_str(&format!("{env_name}={}\n", quote(&l.value)));
        lines_manifest.push_str(&format!("    {}: {env_name}\n", l.field));
        out.push(Registered {
            value: l.value.clone(),
            account: name.clone(),
            field: l.field.clone(),
            env_name,
            new: true,
        });
    }
    let env_path = root.join(Layout::ENV_LOCAL_FILE);
    let manifest_path = root.join(Layout::MANIFEST_FILE);
    let old_env = std::fs::read(&env_path).ok();
    let old_manifest = std::fs::read_to_string(&manifest_path).ok();
    let text = insert_account(
        old_manifest.as_deref().unwrap_or(""),
        &name,
        &lines_manifest,
    );
    let written = append_env(&env_path, &lines_env)
        .and_then(|()| crate::fsutil::write_atomic(&manifest_path, text.as_bytes()));
    let readable = written.is_ok()
        && ProjectSecrets::load(root, &crate::env::Env::process()).is_ok_and(|s| {
            out.iter()
                .all(|r| s.manifest().env_names().contains(&r.env_name))
        });
    if !readable {
        restore(&env_path, old_env.as_deref());
        restore(&manifest_path, old_manifest.as_deref().map(str::as_bytes));
        return Err(InputError::new(
            Layout::MANIFEST_FILE,
            "accounts",
            match written {
                Err(e) => format!("the new credential could not be registered: {e}"),
                Ok(()) => "the new credential could not be added to this manifest's layout".into(),
            },
            format!(
                "add it by hand: `accounts: {{{name}: {{<field>: <ENV_NAME>}}}}`, its value in .env.local; then write the instruction without the value"
            ),
        )
        .into());
    }
    Ok(out)
}

/// An account name from the instruction's words (`the admin` → `admin`), else `user`.
fn slug(account: &str) -> String {
    let s: String = account
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect::<String>()
        .to_lowercase();
    if s.is_empty() { "user".into() } else { s }
}

/// A value as `.env.local` holds it: single-quoted (taken literally), or double-quoted with
/// escapes when it holds a single quote.
fn quote(value: &str) -> String {
    if value.contains('\'') {
        format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        format!("'{value}'")
    }
}

/// The manifest with `lines` at the end of `account`'s block (or of `accounts:` for a new
/// account); `accounts:` is added when missing.
fn insert_account(text: &str, account: &str, lines: &str) -> String {
    let all: Vec<&str> = text.lines().collect();
    let Some(start) = all.iter().position(|l| l.trim_end() == "accounts:") else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("accounts:\n");
        out.push_str(lines);
        return out;
    };
    // The block to extend: the account's own lines, else the whole `accounts:` block.
    let in_block = |l: &str| l.is_empty() || l.starts_with(' ');
    let mut end = start + 1;
    let own = all
        .iter()
        .enumerate()
        .skip(start + 1)
        .take_while(|(_, l)| in_block(l))
        .find(|(_, l)| l.trim_end() == format!("  {account}:"))
        .map(|(i, _)| i);
    match own {
        Some(i) => {
            end = i + 1;
            while end < all.len() && (all[end].starts_with("    ") || all[end].trim().is_empty()) {
                end += 1;
            }
        }
        None => {
            while end < all.len() && in_block(all[end]) {
                end += 1;
            }
        }
    }
    // Blank lines at the end of the block stay after the new lines.
    while end > start + 1 && all[end - 1].trim().is_empty() {
        end -= 1;
    }
    let mut out = String::new();
    for l in &all[..end] {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(lines);
    for l in &all[end..] {
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// Appends to `.env.local`, creating it owner-only.
fn append_env(path: &Path, lines: &str) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    let starts_a_line = std::fs::read(path).map_or(true, |b| b.is_empty() || b.ends_with(b"\n"));
    if !starts_a_line {
        file.write_all(b"\n")?;
    }
    file.write_all(lines.as_bytes())
}

fn restore(path: &Path, old: Option<&[u8]>) {
    let _ = match old {
        Some(bytes) => std::fs::write(path, bytes),
        None => std::fs::remove_file(path),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_account_goes_at_the_end_of_the_accounts_block_and_an_existing_one_gets_its_field() {
        let text = "# Accounts\naccounts:\n  admin:\n    email: ADMIN_EMAIL\n\nother: 1\n";
        assert_eq!(
            insert_account(text, "bob", "  bob:\n    password: BOB_PASSWORD\n"),
            "# Accounts\naccounts:\n  admin:\n    email: ADMIN_EMAIL\n  bob:\n    password: BOB_PASSWORD\n\nother: 1\n"
        );
        assert_eq!(
            insert_account(text, "admin", "    password: ADMIN_PASSWORD\n"),
            "# Accounts\naccounts:\n  admin:\n    email: ADMIN_EMAIL\n    password: ADMIN_PASSWORD\n\nother: 1\n"
        );
        assert_eq!(
            insert_account("", "bob", "  bob:\n    pin: BOB_PIN\n"),
            "accounts:\n  bob:\n    pin: BOB_PIN\n"
        );
    }
}
