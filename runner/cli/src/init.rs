//! `windup init`: scaffolds a project without overwriting anything that exists.

use std::path::Path;

use windup_engine::project::Layout;
use windup_model::ExitCode;

const CONFIG: &str = r#"# Windup: https://github.com/windup/action
# Where the app under test is served (or pass --base-url / set WINDUP_BASE_URL).
base_url = "{BASE_URL}"

[timeouts]
action_ms = 5000
navigation_ms = 15000
scenario_ms = 60000

# An LLM provider plans scenarios that have no verified plan yet; replays never call it.
# Keys come from the environment only.
# [providers.gemini]
# kind = "gemini"
# model = "gemini-2.5-flash"
# api_key_env = "GEMINI_API_KEY"
#
# [providers.openai]
# kind = "openai"               # also Ollama, llama.cpp's server, vLLM: set base_url
# model = "gpt-4.1-mini"
# api_key_env = "OPENAI_API_KEY"

[budget]
usd_per_run = 1.00              # no call is made that could overshoot it
"#;

const SCENARIO: &str = r#"id: home-page
task: Open the home page and check that its main heading is visible.
start_url: /
tags: [smoke]
"#;

const MANIFEST: &str = r#"# Accounts and the ENV names of their credentials. Never the values: those live in the
# environment or in .env.local (git-ignored), and plans refer to them by name (value_ref).
accounts: {}
#  admin:
#    email: ADMIN_EMAIL
#    password: ADMIN_PASSWORD
"#;

pub(crate) fn run(root: &Path, base_url: &str) -> ExitCode {
    if let Err(e) = windup_engine::base_url::parse_base_url("--base-url", base_url) {
        eprintln!(
            "error: {}: {}: {}\n  fix: {}",
            e.file, e.field, e.problem, e.fix
        );
        return ExitCode::BadInput;
    }
    let files = [
        (
            Layout::CONFIG_FILE.to_string(),
            CONFIG.replace("{BASE_URL}", base_url),
        ),
        (
            format!("{}/home-page.yaml", Layout::SCENARIOS_DIR),
            SCENARIO.to_string(),
        ),
        (Layout::MANIFEST_FILE.to_string(), MANIFEST.to_string()),
    ];
    for (rel, text) in files {
        let path = root.join(&rel);
        if path.exists() {
            println!("  kept     {rel} (exists)");
            continue;
        }
        if let Err(e) = windup_engine::fsutil::write_atomic(&path, text.as_bytes()) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::Infrastructure;
        }
        println!("  created  {rel}");
    }
    let gitignore = root.join(".gitignore");
    let existing = std::fs::read_to_string(&gitignore).unwrap_or_default();
    let present: Vec<&str> = existing.lines().map(str::trim).collect();
    let missing: Vec<&str> = Layout::GIT_IGNORED
        .iter()
        .copied()
        .filter(|l| !present.contains(l))
        .collect();
    if missing.is_empty() {
        println!("  kept     .gitignore (has Windup's entries)");
    } else {
        let mut text = existing.clone();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(
            "# Windup: run-local files (commit e2e/.windup/cache/: verified plans replay for $0)\n",
        );
        for l in &missing {
            text.push_str(l);
            text.push('\n');
        }
        if let Err(e) = windup_engine::fsutil::write_atomic(&gitignore, text.as_bytes()) {
            eprintln!("error: cannot write {}: {e}", gitignore.display());
            return ExitCode::Infrastructure;
        }
        println!("  updated  .gitignore (+{})", missing.join(", "));
    }
    println!(
        "\nNext: describe a flow in e2e/scenarios/<id>.yaml, configure a provider in windup.toml, then `windup run`.\nCommit e2e/.windup/cache/ so later runs, and CI, replay verified plans with no LLM call."
    );
    ExitCode::Success
}
