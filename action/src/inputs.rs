//! The Action's inputs: `INPUT_<NAME>` variables (GitHub upper-cases the name and keeps its
//! dashes), validated into typed values before anything runs.

use std::fmt;

use secrecy::SecretString;

/// One declared input and the default `action.yml` gives it (applied here too, so the
/// entrypoint behaves the same when run outside GitHub). A test holds `action.yml` to this list.
#[derive(Debug, Clone, Copy)]
pub struct InputSpec {
    pub name: &'static str,
    pub default: &'static str,
}

const fn spec(name: &'static str, default: &'static str) -> InputSpec {
    InputSpec { name, default }
}

/// Every input, in `action.yml`'s order.
pub const INPUTS: &[InputSpec] = &[
    spec("scenarios", ""),
    spec("working-directory", "."),
    spec("base-url", ""),
    spec("environment", ""),
    spec("allowed-origins", ""),
    spec("start-command", ""),
    spec("wait-for", ""),
    spec("provider", ""),
    spec("model", ""),
    spec("provider-base-urls", ""),
    spec("parallel", ""),
    spec("retries", "0"),
    spec("shard", ""),
    spec("budget-usd", ""),
    spec("require-cached", "false"),
    spec("heal", "true"),
    spec("suggest", "false"),
    spec("trace", ""),
    spec("debrief", "false"),
    spec("reports", DEFAULT_REPORTS),
    spec("summary", "true"),
    spec("comment", "false"),
    spec("dashboard-url", ""),
    spec("dashboard-token", ""),
];

/// Written under the working directory; `report-json`, `report-junit` and `report-html` name them.
pub const DEFAULT_REPORTS: &str =
    "json=windup-report/report.json junit=windup-report/junit.xml html=windup-report/report.html";

/// A bad input: which one, what is wrong, how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadInput {
    pub input: String,
    pub problem: String,
    pub fix: String,
}

impl BadInput {
    pub fn new(input: &str, problem: impl Into<String>, fix: impl Into<String>) -> Self {
        BadInput {
            input: input.to_string(),
            problem: problem.into(),
            fix: fix.into(),
        }
    }
}

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "input `{}`: {}; fix: {}",
            self.input, self.problem, self.fix
        )
    }
}

/// What `scenarios` names: ids or globs over ids, and `@tags`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScenarioFilter {
    /// Scenario ids and globs over them (`checkout-*`).
    pub patterns: Vec<String>,
    /// Tags, without the `@`.
    pub tags: Vec<String>,
}

/// The inputs, validated. `Debug` shows no token (`dashboard-token` is a [`SecretString`]).
#[derive(Debug, Clone)]
pub struct Inputs {
    pub scenarios: ScenarioFilter,
    pub working_directory: String,
    pub base_url: Option<String>,
    /// The environment's name (`staging`), written to the report for the dashboard.
    pub environment: Option<String>,
    /// Origins besides the app's that the workspace's config may name when it is not trusted
    /// (`[planner] allowed_origins`, the manifest's account `origins`); see `trust`.
    pub allowed_origins: Vec<url::Origin>,
    pub start_command: Option<String>,
    pub wait_for: Option<url::Url>,
    pub provider: Option<String>,
    pub model: Option<String>,
    /// API roots besides each provider's official one that windup.toml's `base_url` may name
    /// (where the provider's key is sent); see `trust`.
    pub provider_base_urls: Vec<url::Url>,
    /// Scenarios at once; `None`: the number of cores.
    pub parallel: Option<u32>,
    pub retries: u32,
    pub shard: Option<(u32, u32)>,
    pub budget_usd: Option<f64>,
    pub require_cached: bool,
    /// False: no LLM-free healing (`--no-heal`); true leaves it to windup.toml's `heal`.
    pub heal: bool,
    pub suggest: bool,
    /// `off`, `on-failure` or `on`; `None`: windup.toml's `[browser] trace`.
    pub trace: Option<windup_engine::executor::Trace>,
    /// One budgeted LLM debrief of all the run's failures (`--debrief`).
    pub debrief: bool,
    /// `FORMAT=PATH`, paths relative to the working directory.
    pub reports: Vec<String>,
    pub summary: bool,
    pub comment: bool,
    pub dashboard_url: Option<url::Url>,
    pub dashboard_token: Option<SecretString>,
}

/// The environment variable GitHub sets for an input.
pub fn env_name(input: &str) -> String {
    format!("INPUT_{}", input.to_uppercase())
}

impl Inputs {
    /// Reads every input through `env`; all problems are returned together.
    pub fn read(env: &dyn Fn(&str) -> Option<String>) -> Result<Inputs, Vec<BadInput>> {
        let mut bad = Vec::new();
        let raw = |name: &str| -> String {
            let spec = INPUTS
                .iter()
                .find(|s| s.name == name)
                .unwrap_or_else(|| panic!("input `{name}` is not in INPUTS"));
            env(&env_name(name))
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| spec.default.to_string())
        };
        let opt = |name: &str| Some(raw(name)).filter(|v| !v.is_empty());
        let mut flag = |name: &str| match raw(name).to_ascii_lowercase().as_str() {
            "true" => true,
            "false" | "" => false,
            other => {
                bad.push(BadInput::new(
                    name,
                    format!("`{other}` is not a boolean"),
                    format!("write `{name}: true` or `{name}: false`"),
                ));
                false
            }
        };
        let require_cached = flag("require-cached");
        // Empty reads as false for every flag; this one defaults to true.
        let heal = raw("heal").is_empty() || flag("heal");
        let suggest = flag("suggest");
        let debrief = flag("debrief");
        let summary = flag("summary");
        let comment = flag("comment");
        let mut number = |name: &str, what: &str| -> Option<u32> {
            let v = opt(name)?;
            match v.parse::<u32>() {
                Ok(n) => Some(n),
                Err(_) => {
                    bad.push(BadInput::new(
                        name,
                        format!("`{v}` is not a whole number"),
                        format!("write {what}"),
                    ));
                    None
                }
            }
        };
        let parallel = number(
            "parallel",
            "the number of scenarios to run at once, such as 2",
        )
        .filter(|n| *n > 0);
        let retries = number(
            "retries",
            "how often to re-run a failed scenario, such as 1 (0 for never)",
        )
        .unwrap_or(0);
        let shard = opt("shard").and_then(|v| match windup_engine::runner::parse_shard(&v) {
            Ok(s) => Some(s),
            Err(_) => {
                bad.push(BadInput::new(
                    "shard",
                    format!("`{v}` is not a shard"),
                    "write i/n with 1 <= i <= n, such as `shard: ${{ matrix.shard }}/3`",
                ));
                None
            }
        });
        let budget_usd = opt("budget-usd").and_then(|v| match v.trim_start_matches('$').parse() {
            Ok(usd) if f64::is_finite(usd) && usd >= 0.0 => Some(usd),
            _ => {
                bad.push(BadInput::new(
                    "budget-usd",
                    format!("`{v}` is not an amount of dollars"),
                    "give a number of dollars such as 0.50 (0 allows no LLM call)",
                ));
                None
            }
        });
        let trace = opt("trace").and_then(|v| match v.parse::<windup_engine::executor::Trace>() {
            Ok(t) => Some(t),
            Err(problem) => {
                bad.push(BadInput::new(
                    "trace",
                    problem.to_string(),
                    "write `trace: on-failure` (or on, off), or leave it out for windup.toml's",
                ));
                None
            }
        });
        let mut url_input = |name: &str, fix: &str, http_only: bool| -> Option<url::Url> {
            let v = opt(name)?;
            match url::Url::parse(&v) {
                Ok(u) if u.scheme() == "http" || (!http_only && u.scheme() == "https") => Some(u),
                Ok(u) => {
                    bad.push(BadInput::new(
                        name,
                        format!("`{v}` uses the scheme `{}`", u.scheme()),
                        fix,
                    ));
                    None
                }
                Err(e) => {
                    bad.push(BadInput::new(name, format!("`{v}` is not a URL: {e}"), fix));
                    None
                }
            }
        };
        let wait_for = url_input(
            "wait-for",
            "give the http:// URL that answers once start-command's app is up, such as http://localhost:3000/",
            true,
        );
        let dashboard_url = url_input(
            "dashboard-url",
            "give the dashboard's https:// address, such as https://windup.example.com",
            false,
        );
        let dashboard_token = opt("dashboard-token").map(SecretString::from);
        if dashboard_token.is_some() && dashboard_url.is_none() {
            bad.push(BadInput::new(
                "dashboard-url",
                "dashboard-token is set but dashboard-url is not",
                "set dashboard-url to the dashboard's address, or remove dashboard-token",
            ));
        }
        let mut urls = |name: &str, fix: &str| -> Vec<url::Url> {
            let mut out = Vec::new();
            for v in list(&raw(name)) {
                match url::Url::parse(&v) {
                    Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {
                        out.push(u)
                    }
                    _ => bad.push(BadInput::new(
                        name,
                        format!("`{v}` is not an http(s) URL"),
                        fix,
                    )),
                }
            }
            out
        };
        let allowed_origins = urls(
            "allowed-origins",
            "list origins such as https://login.example.com, separated by spaces, commas or lines",
        )
        .iter()
        .map(url::Url::origin)
        .collect();
        let provider_base_urls = urls(
            "provider-base-urls",
            "list API roots such as https://llm.example.com/v1, separated by spaces, commas or lines",
        );
        let base_url = opt("base-url");
        if let Some(v) = &base_url
            && let Err(e) = windup_engine::base_url::parse_base_url("base-url", v)
        {
            bad.push(BadInput::new("base-url", e.problem, e.fix));
        }
        let environment = opt("environment");
        if let Some(name) = &environment
            && let Err(why) = windup_model::check_environment(name)
        {
            bad.push(BadInput::new(
                "environment",
                why,
                "name the environment, such as `staging`, or leave the input empty",
            ));
        }
        let start_command = opt("start-command");
        if start_command.is_some() && wait_for.is_none() {
            bad.push(BadInput::new(
                "wait-for",
                "start-command is set but wait-for is not, so there is no telling when the app is up",
                "set wait-for to a URL of the app, such as http://localhost:3000/",
            ));
        }
        if wait_for.is_some() && start_command.is_none() {
            bad.push(BadInput::new(
                "start-command",
                "wait-for is set but start-command is not",
                "set start-command to the command that serves the app, or remove wait-for",
            ));
        }
        let mut reports = Vec::new();
        for raw_spec in raw("reports").split_whitespace() {
            match windup_engine::reporters::ReportSpec::parse(raw_spec) {
                Ok(_) => reports.push(raw_spec.to_string()),
                Err(e) => bad.push(BadInput::new(
                    "reports",
                    e.problem,
                    "write FORMAT=PATH entries separated by spaces or lines, formats json, junit, html",
                )),
            }
        }
        let working_directory = raw("working-directory");
        if std::path::Path::new(&working_directory).is_absolute()
            || working_directory.split('/').any(|p| p == "..")
        {
            bad.push(BadInput::new(
                "working-directory",
                format!("`{working_directory}` is not a folder inside the repository"),
                "give the project's folder relative to the repository root, such as `web` (the folder with windup.toml and e2e/)",
            ));
        }
        let inputs = Inputs {
            scenarios: scenario_filter(&raw("scenarios")),
            working_directory,
            base_url,
            environment,
            allowed_origins,
            start_command,
            wait_for,
            provider: opt("provider"),
            model: opt("model"),
            provider_base_urls,
            parallel,
            retries,
            shard,
            budget_usd,
            require_cached,
            heal,
            suggest,
            trace,
            debrief,
            reports,
            summary,
            comment,
            dashboard_url,
            dashboard_token,
        };
        if bad.is_empty() { Ok(inputs) } else { Err(bad) }
    }
}

/// The entries of a list input, separated by spaces, commas or lines.
fn list(raw: &str) -> Vec<String> {
    raw.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// `sign-in checkout-* @smoke`: separated by spaces, commas or lines.
fn scenario_filter(raw: &str) -> ScenarioFilter {
    let mut filter = ScenarioFilter::default();
    for token in list(raw) {
        match token.strip_prefix('@') {
            Some(tag) => filter.tags.push(tag.to_string()),
            None => filter.patterns.push(token.to_string()),
        }
    }
    filter
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn read(pairs: &[(&str, &str)]) -> Result<Inputs, Vec<BadInput>> {
        let env: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (env_name(k), v.to_string()))
            .collect();
        Inputs::read(&|k| env.get(k).cloned())
    }

    #[test]
    fn defaults_apply_when_github_sends_nothing() {
        let i = read(&[]).unwrap();
        assert_eq!(i.working_directory, ".");
        assert!(i.summary && !i.comment && !i.require_cached);
        assert_eq!(i.reports.len(), 3);
        assert_eq!(i.parallel, None);
        assert_eq!(i.scenarios, ScenarioFilter::default());
    }

    #[test]
    fn names_keep_their_dashes() {
        assert_eq!(env_name("budget-usd"), "INPUT_BUDGET-USD");
        let i = read(&[
            ("budget-usd", "0.25"),
            ("shard", "2/3"),
            ("scenarios", "sign-in, checkout-*\n@smoke"),
            ("require-cached", "TRUE"),
        ])
        .unwrap();
        assert_eq!(i.budget_usd, Some(0.25));
        assert_eq!(i.shard, Some((2, 3)));
        assert_eq!(i.scenarios.patterns, ["sign-in", "checkout-*"]);
        assert_eq!(i.scenarios.tags, ["smoke"]);
        assert!(i.require_cached);
    }

    #[test]
    fn every_bad_input_is_named_with_a_fix() {
        let bad = read(&[
            ("shard", "4/3"),
            ("budget-usd", "lots"),
            ("comment", "maybe"),
            ("parallel", "-1"),
            ("reports", "xml=r.xml"),
            ("start-command", "npm start"),
            ("working-directory", "../elsewhere"),
            ("base-url", "ftp://x"),
        ])
        .unwrap_err();
        let named: Vec<&str> = bad.iter().map(|b| b.input.as_str()).collect();
        for input in [
            "shard",
            "budget-usd",
            "comment",
            "parallel",
            "reports",
            "wait-for",
            "working-directory",
            "base-url",
        ] {
            assert!(named.contains(&input), "{input} not in {named:?}");
        }
        assert!(bad.iter().all(|b| !b.fix.is_empty()));
    }

    #[test]
    fn debug_never_shows_the_dashboard_token() {
        let token = "wdp_0123456789abcdefSECRET";
        let i = read(&[
            ("scenarios", "sign-in @smoke"),
            ("base-url", "http://127.0.0.1:3000"),
            ("start-command", "npm start"),
            ("wait-for", "http://127.0.0.1:3000/"),
            ("provider", "openai"),
            ("model", "gpt-4.1-mini"),
            ("shard", "1/2"),
            ("budget-usd", "0.5"),
            ("comment", "true"),
            ("dashboard-url", "https://windup.example.com"),
            ("dashboard-token", token),
        ])
        .unwrap();
        let shown = format!("{i:?} {i:#?}");
        assert!(shown.contains("windup.example.com"), "{shown}");
        assert!(shown.contains("dashboard_token: Some("), "{shown}");
        assert!(!shown.contains(token), "{shown}");
        assert!(!shown.contains("SECRET"), "{shown}");
    }
}
