//! `windup.toml` at the project root: one config, overridden by the environment, then by flags.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use windup_model::InputError;

use crate::base_url::parse_base_url;
use crate::browser::BrowserOptions;
use crate::costs::{PriceOverride, PriceTable};
use crate::env::Env;
use crate::llm::ProviderConfig;
use crate::planner::{Limits, Settings};
use crate::project::Layout;
use crate::timeouts::Timeouts;

/// The file's shape. Unknown keys are rejected with their name.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Where the app under test is served, such as `http://127.0.0.1:3000`.
    pub base_url: Option<String>,
    /// `[browser]`: which Chromium runs the scenarios, and how.
    #[serde(default)]
    pub browser: BrowserSection,
    /// `[timeouts]`: how long steps, pages and scenarios may take.
    #[serde(default)]
    pub timeouts: TimeoutsSection,
    /// `[prices."MODEL"]`: a model's price, over the shipped price list.
    #[serde(default)]
    pub prices: BTreeMap<String, PriceOverride>,
    /// Reports every run writes, as `FORMAT=PATH` (json, junit, html), besides `--report`.
    #[serde(default)]
    pub reports: Vec<String>,
    /// LLM providers by name; one is chosen per run.
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderConfig>,
    /// `[planner]`: how plans are asked for.
    #[serde(default)]
    pub planner: PlannerSection,
    /// `[budget]`: the caps on a run's LLM spend.
    #[serde(default)]
    pub budget: BudgetSection,
    /// The team dashboard: uploads and the shared plan cache.
    #[serde(default)]
    pub dashboard: crate::dashboard_client::DashboardSection,
    /// `[scan]`: where `windup scan` reads the app's source.
    #[serde(default)]
    pub scan: ScanSection,
    /// `[hooks]`: commands that reset and seed the app's data around the run and each scenario.
    #[serde(default)]
    pub hooks: crate::hooks::HooksSection,
    /// `heal = false` turns off LLM-free healing of a replayed step whose target moved or was
    /// renamed (on by default).
    pub heal: Option<bool>,
}

/// `[scan]` of windup.toml.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScanSection {
    /// The app's source folders, relative to the project root (`["apps/web"]`); the project
    /// root itself when empty.
    #[serde(default)]
    pub roots: Vec<PathBuf>,
}

/// `[planner]` of windup.toml; every key is optional, with the defaults of
/// [`Settings`].
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlannerSection {
    /// The provider used when several are configured and none is chosen by flag.
    pub provider: Option<String>,
    /// Origins besides the base URL's that a planned `goto` may reach (sign-in providers).
    #[serde(default)]
    pub allowed_origins: Vec<String>,
    /// Continuation calls per scenario, each from the page the steps so far led to (default 5).
    pub max_continuations: Option<u32>,
    /// Extra calls after a rejected answer, each carrying its problems (default 1).
    pub semantic_retries: Option<u32>,
    /// Characters of page content per prompt (default 4000).
    pub page_chars: Option<usize>,
    /// Elements (controls and texts) a prompt lists at most (default and most 150).
    pub max_elements: Option<usize>,
    /// Output tokens a planning call may generate (default 800); the budget gate counts all
    /// of them as the call's worst case.
    pub max_output_tokens: Option<u32>,
    /// The run debrief after a run with failures, as `--debrief` (default false).
    pub debrief: Option<bool>,
}

/// `[budget]` of windup.toml: caps checked before every LLM call, so a run never overshoots.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetSection {
    /// Dollars one run may spend on LLM calls (default 1.00); 0 allows no call.
    pub usd_per_run: Option<f64>,
    /// LLM calls one run may make (default 100).
    pub calls_per_run: Option<u32>,
    /// LLM calls one scenario may make (default 8).
    pub calls_per_scenario: Option<u32>,
}

/// `[browser]` of windup.toml: the Chromium that runs the scenarios.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrowserSection {
    /// Path to Chromium; found on PATH when absent.
    pub executable: Option<PathBuf>,
    /// Show the browser window (default false).
    pub headed: Option<bool>,
    /// Viewport width in CSS pixels (default 1280).
    pub viewport_width: Option<u32>,
    /// Viewport height in CSS pixels (default 800).
    pub viewport_height: Option<u32>,
    /// Extra Chromium flags.
    #[serde(default)]
    pub args: Vec<String>,
    /// `reset` (default): a scenario gets a tab whose cookies, storage, cache, permissions and
    /// history were cleared after the previous one; `context`: a new browser context each.
    pub isolation: Option<Isolation>,
    /// `only-on-failure` (default), `on` (a passing scenario's last page too) or `off`.
    pub screenshots: Option<crate::executor::Screenshots>,
    /// `off` (default), `on-failure` (a failed scenario keeps a small screenshot, the URL and
    /// the target's box after each step) or `on` (every scenario does).
    pub trace: Option<crate::executor::Trace>,
    /// The widest a trace frame's picture is, in pixels (default 320, at most 1920): the
    /// viewport's width to see its pages at their own size.
    pub trace_width: Option<u32>,
    /// A running Chromium to attach to instead of starting one: `http://127.0.0.1:9222` or a
    /// `ws://…/devtools/browser/…` URL (`--cdp-url` wins).
    pub cdp_url: Option<String>,
    /// With `cdp_url`: run scenarios in the attached browser's default context (its signed-in
    /// profile) instead of a new context each (default false).
    pub reuse_context: Option<bool>,
    /// The attribute `testid=` selectors read (default `data-testid`), Playwright's
    /// `testIdAttribute`, which an exported config sets too.
    pub testid_attribute: Option<String>,
}

/// How scenarios are kept apart in the one browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Isolation {
    /// A closed scenario's tab is cleared and handed to the next: a new context costs a
    /// renderer process and cold caches, the largest fixed cost of a replay.
    Reset,
    /// A new browser context per scenario: slower, and nothing at all carries over.
    Context,
}

/// `[timeouts]` of windup.toml, in milliseconds.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeoutsSection {
    /// How long a step waits for its target and postconditions (default 5000).
    pub action_ms: Option<u64>,
    /// How long a page may take to load (default 15000).
    pub navigation_ms: Option<u64>,
    /// A scenario's whole budget unless the scenario sets `timeout_ms` (default 60000).
    pub scenario_ms: Option<u64>,
}

/// The resolved configuration of one invocation.
#[derive(Debug, Clone)]
pub struct Config {
    /// The project root: where windup.toml and `e2e/` are.
    pub root: PathBuf,
    /// The app under test: the flag or `WINDUP_BASE_URL`, else windup.toml's. `None` when
    /// neither gives one; commands that need it call [`Config::require_base_url`].
    pub base_url: Option<url::Url>,
    /// How Chromium is found and launched.
    pub browser: BrowserOptions,
    /// How long steps, page loads and scenarios may take.
    pub timeouts: Timeouts,
    /// Which scenarios end with a screenshot.
    pub screenshots: crate::executor::Screenshots,
    /// Which scenarios keep a trace.
    pub trace: crate::executor::Trace,
    /// The widest a trace frame's picture is, in pixels.
    pub trace_width: u32,
    /// The shipped price list with windup.toml's `[prices]` on top.
    pub prices: PriceTable,
    /// The chosen provider's name and settings; `None` when none is configured.
    pub provider: Option<(String, ProviderConfig)>,
    /// How the planner asks (`[planner]`).
    pub planner: Settings,
    /// The run's caps on LLM spend and calls (`[budget]`, or `--budget-usd`).
    pub limits: Limits,
    /// Fail scenarios that would need an LLM call with `not_cached`.
    pub require_cached: bool,
    /// Opt-in: an LLM summary and fix suggestion per failed scenario.
    pub suggest: bool,
    /// Opt-in: one LLM debrief of all the run's failures (`--debrief` or `[planner] debrief`).
    pub debrief: bool,
    /// Re-plan up front the cached plans the site map says are at risk (when a provider is
    /// configured), instead of replaying them first.
    pub replan_at_risk: bool,
    /// `--invalidate`: a cached plan whose replay fails leaves the active cache even when no
    /// verified plan replaces it. Without it, it stays, and later runs replay it again.
    pub invalidate: bool,
    /// Heal, without an LLM, a replayed step whose target was renamed or moved (`heal` in
    /// windup.toml, `--no-heal`).
    pub heal: bool,
    /// The team dashboard, when one is configured.
    pub dashboard: Option<crate::dashboard_client::Settings>,
    /// The environment the run tests, by name (`--environment`), written to the report.
    pub environment: Option<String>,
    /// `[hooks]`, checked.
    pub hooks: crate::hooks::Hooks,
    /// The file as read, for sections other crates interpret.
    pub file: ConfigFile,
    /// Where provider keys, the dashboard token and CI variables are read (the process's
    /// environment unless the caller injects another).
    pub env: Env,
}

/// Overrides from the command line (and `WINDUP_BASE_URL`, `WINDUP_PROVIDER`, read by the CLI).
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--base-url` or `WINDUP_BASE_URL`, over windup.toml's `base_url`.
    pub base_url: Option<String>,
    /// `--headed`: show the browser window.
    pub headed: bool,
    /// `--screenshots`, over `[browser] screenshots`.
    pub screenshots: Option<crate::executor::Screenshots>,
    /// `--trace`, over `[browser] trace`.
    pub trace: Option<crate::executor::Trace>,
    /// `--provider` or `WINDUP_PROVIDER`: the `[providers.NAME]` to plan with.
    pub provider: Option<String>,
    /// `--budget-usd`: dollars this run may spend on LLM calls, over `[budget] usd_per_run`.
    pub budget_usd: Option<f64>,
    /// `--require-cached`: make no LLM call; a scenario without a verified plan fails with
    /// `not_cached`.
    pub require_cached: bool,
    /// Ask the LLM for a summary and a fix suggestion for each failure (opt-in).
    pub suggest: bool,
    /// `--debrief`: one LLM call summarising all the run's failures (opt-in).
    pub debrief: bool,
    /// `--dashboard-url` or `WINDUP_DASHBOARD_URL`.
    pub dashboard_url: Option<String>,
    /// `--no-push`: do not upload this run.
    pub no_push: bool,
    /// `--replan-at-risk`: re-plan up front the cached plans the site map says are at risk.
    pub replan_at_risk: bool,
    /// `--invalidate`: a plan whose replay fails leaves the active cache even when nothing
    /// replaces it.
    pub invalidate: bool,
    /// `--no-heal`: never heal a replayed step without an LLM, whatever windup.toml says.
    pub no_heal: bool,
    /// `--cdp-url`: attach to this running Chromium instead of starting one, over `[browser]
    /// cdp_url`.
    pub cdp_url: Option<String>,
    /// `--reuse-context`: with a CDP URL, run scenarios in the attached browser's default
    /// context (its signed-in profile).
    pub reuse_context: bool,
    /// `--environment`: the environment's name, for the report (checked here).
    pub environment: Option<String>,
}

impl Config {
    /// Reads `root/windup.toml` when present and applies the overrides.
    pub fn load(root: &Path, overrides: &Overrides) -> Result<Config, InputError> {
        let path = root.join(Layout::CONFIG_FILE);
        let file = match std::fs::read_to_string(&path) {
            Ok(text) => parse_file(&path.display().to_string(), &text)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => ConfigFile::default(),
            Err(e) => {
                return Err(InputError::new(
                    path.display().to_string(),
                    "(file)",
                    format!("cannot be read: {e}"),
                    "check the file's permissions",
                ));
            }
        };
        let (source, raw) = match (&overrides.base_url, &file.base_url) {
            (Some(flag), _) => ("--base-url or WINDUP_BASE_URL".to_string(), Some(flag)),
            (None, Some(f)) => (format!("{} base_url", path.display()), Some(f)),
            (None, None) => (String::new(), None),
        };
        let base_url = raw.map(|r| parse_base_url(&source, r)).transpose()?;
        let defaults = Timeouts::default();
        let ms = |v: Option<u64>, d: Duration| v.map(Duration::from_millis).unwrap_or(d);
        let (cdp_url, reuse_context) =
            attach_settings(&path.display().to_string(), &file, overrides)?;
        refuse_debugging_flags(&path.display().to_string(), &file.browser.args)?;
        let testid_attribute =
            testid_attribute(&path.display().to_string(), &file.browser.testid_attribute)?;
        let browser = BrowserOptions {
            executable: file.browser.executable.clone(),
            headless: !(overrides.headed || file.browser.headed.unwrap_or(false)),
            viewport: (
                file.browser.viewport_width.unwrap_or(1280),
                file.browser.viewport_height.unwrap_or(800),
            ),
            args: file.browser.args.clone(),
            // A tab reset clears cookies and caches browser-wide: never in a browser Windup
            // attached to.
            reuse_tabs: cdp_url.is_none()
                && file.browser.isolation.unwrap_or(Isolation::Reset) == Isolation::Reset,
            cdp_url,
            reuse_context,
            testid_attribute,
            ..BrowserOptions::default()
        };
        let prices = PriceTable::shipped()
            .with_overrides(&file.prices)
            .map_err(|e| InputError {
                file: path.display().to_string(),
                ..e
            })?;
        let config_file = path.display().to_string();
        let provider = choose_provider(&config_file, &file, overrides)?;
        let planner = planner_settings(&config_file, &file.planner)?;
        let limits = budget_limits(&config_file, &file.budget, overrides.budget_usd)?;
        let dashboard = crate::dashboard_client::settings(
            &config_file,
            &file.dashboard,
            overrides.dashboard_url.as_deref(),
            overrides.no_push,
        )?;
        let hooks = crate::hooks::Hooks::from_section(&config_file, &file.hooks)?;
        let trace_width = crate::executor::trace_width(&config_file, file.browser.trace_width)?;
        if let Some(name) = &overrides.environment {
            windup_model::check_environment(name).map_err(|why| {
                InputError::new(
                    "--environment",
                    "environment",
                    why,
                    "pass a name such as `staging`",
                )
            })?;
        }
        Ok(Config {
            root: root.to_path_buf(),
            base_url,
            browser,
            timeouts: Timeouts {
                action: ms(file.timeouts.action_ms, defaults.action),
                navigation: ms(file.timeouts.navigation_ms, defaults.navigation),
                scenario: ms(file.timeouts.scenario_ms, defaults.scenario),
            },
            screenshots: overrides
                .screenshots
                .or(file.browser.screenshots)
                .unwrap_or_default(),
            trace: overrides.trace.or(file.browser.trace).unwrap_or_default(),
            trace_width,
            prices,
            provider,
            planner,
            limits,
            require_cached: overrides.require_cached,
            suggest: overrides.suggest,
            debrief: overrides.debrief || file.planner.debrief.unwrap_or(false),
            replan_at_risk: overrides.replan_at_risk,
            invalidate: overrides.invalidate,
            heal: !overrides.no_heal && file.heal.unwrap_or(true),
            dashboard,
            environment: overrides.environment.clone(),
            hooks,
            file,
            env: Env::process(),
        })
    }

    /// The base URL, or the error that says how to give one.
    pub fn require_base_url(&self) -> Result<&url::Url, InputError> {
        self.base_url.as_ref().ok_or_else(|| {
            InputError::new(
                self.root.join(Layout::CONFIG_FILE).display().to_string(),
                "base_url",
                "no base URL is set, so there is nothing to test against",
                "set `base_url = \"http://127.0.0.1:3000\"` in windup.toml, or pass --base-url, or set WINDUP_BASE_URL",
            )
        })
    }
}

/// `--cdp-url`, else `[browser] cdp_url`, checked; and whether to reuse its default context,
/// which only an attached browser has.
fn attach_settings(
    config_file: &str,
    file: &ConfigFile,
    overrides: &Overrides,
) -> Result<(Option<url::Url>, bool), InputError> {
    let cdp_url = match (&overrides.cdp_url, &file.browser.cdp_url) {
        (Some(flag), _) => Some(crate::browser::parse_cdp_url("--cdp-url", "(flag)", flag)?),
        (None, Some(f)) => Some(crate::browser::parse_cdp_url(
            config_file,
            "browser.cdp_url",
            f,
        )?),
        (None, None) => None,
    };
    let reuse_context = overrides.reuse_context || file.browser.reuse_context.unwrap_or(false);
    if reuse_context && cdp_url.is_none() {
        let source = if overrides.reuse_context {
            ("--reuse-context", "(flag)")
        } else {
            (config_file, "browser.reuse_context")
        };
        return Err(InputError::new(
            source.0,
            source.1,
            "reusing a context needs a browser to attach to, and none is given",
            "pass --cdp-url http://127.0.0.1:9222 (or set [browser] cdp_url), or drop --reuse-context: a browser Windup starts has no signed-in context",
        ));
    }
    Ok((cdp_url, reuse_context))
}

/// `[browser] testid_attribute`, an attribute name, else `data-testid`.
fn testid_attribute(config_file: &str, given: &Option<String>) -> Result<String, InputError> {
    let Some(name) = given else {
        return Ok("data-testid".to_string());
    };
    let mut chars = name.chars();
    let valid = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'));
    if !valid {
        return Err(InputError::new(
            config_file,
            "browser.testid_attribute",
            format!("`{name}` is not an attribute name"),
            "write the attribute your app puts its test ids in, e.g. \"data-test\" or \"data-qa\"",
        ));
    }
    Ok(name.clone())
}

/// Flags that open a browser's debugging port to pages or to other users: a page on any
/// site could drive `windup browser` (and every sign-in in its profile) with
/// `--remote-allow-origins=*`. Windup sets the debugging address and port itself.
const DEBUGGING_FLAGS: [&str; 3] = [
    "remote-allow-origins",
    "remote-debugging-address",
    "remote-debugging-port",
];

/// `[browser] args` may not hold a flag of [`DEBUGGING_FLAGS`].
fn refuse_debugging_flags(config_file: &str, args: &[String]) -> Result<(), InputError> {
    for (i, arg) in args.iter().enumerate() {
        let name = arg.trim_start_matches('-');
        let name = name.split_once('=').map_or(name, |(n, _)| n).trim();
        if DEBUGGING_FLAGS.iter().any(|f| f.eq_ignore_ascii_case(name)) {
            return Err(InputError::new(
                config_file,
                format!("browser.args[{i}]"),
                format!("`--{name}` opens the browser's debugging port to pages or other users"),
                "remove it: Windup listens on 127.0.0.1 only and lets no web page open the debugging WebSocket (`windup browser` prints the address to attach to)",
            ));
        }
    }
    Ok(())
}

/// `--provider`/`WINDUP_PROVIDER`, else `[planner] provider`, else the only one configured.
fn choose_provider(
    config_file: &str,
    file: &ConfigFile,
    overrides: &Overrides,
) -> Result<Option<(String, ProviderConfig)>, InputError> {
    let names = || {
        if file.providers.is_empty() {
            "none is configured; add a [providers.NAME] table with kind, model and api_key_env"
                .to_string()
        } else {
            format!(
                "use one of: {}",
                file.providers
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    };
    let (source, chosen) = match (&overrides.provider, &file.planner.provider) {
        (Some(p), _) => ("--provider or WINDUP_PROVIDER", Some(p.clone())),
        (None, Some(p)) => ("planner.provider", Some(p.clone())),
        (None, None) => ("", None),
    };
    match chosen {
        Some(name) => match file.providers.get(&name) {
            Some(p) => Ok(Some((name, p.clone()))),
            None => Err(InputError::new(
                config_file,
                source,
                format!("no provider named `{name}`"),
                names(),
            )),
        },
        None if file.providers.len() > 1 => Err(InputError::new(
            config_file,
            "planner.provider",
            "several providers are configured and none is chosen",
            format!("set [planner] provider, or pass --provider; {}", names()),
        )),
        None => Ok(file
            .providers
            .iter()
            .next()
            .map(|(n, p)| (n.clone(), p.clone()))),
    }
}

fn planner_settings(config_file: &str, p: &PlannerSection) -> Result<Settings, InputError> {
    let d = Settings::default();
    let mut allowed_origins = Vec::new();
    for (i, raw) in p.allowed_origins.iter().enumerate() {
        match url::Url::parse(raw) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => allowed_origins.push(u.origin()),
            _ => {
                return Err(InputError::new(
                    config_file,
                    format!("planner.allowed_origins[{i}]"),
                    format!("`{raw}` is not an http(s) origin"),
                    "write an origin such as https://login.example.com",
                ));
            }
        }
    }
    Ok(Settings {
        page_chars: p.page_chars.unwrap_or(d.page_chars),
        max_elements: p.max_elements.unwrap_or(d.max_elements),
        semantic_retries: p.semantic_retries.unwrap_or(d.semantic_retries),
        max_continuations: p.max_continuations.unwrap_or(d.max_continuations),
        allowed_origins,
        max_output_tokens: p.max_output_tokens.unwrap_or(d.max_output_tokens),
        temperature: d.temperature,
    })
}

fn budget_limits(
    config_file: &str,
    b: &BudgetSection,
    flag_usd: Option<f64>,
) -> Result<Limits, InputError> {
    let d = Limits::default();
    let (field, usd) = match flag_usd {
        Some(v) => ("--budget-usd", Some(v)),
        None => ("budget.usd_per_run", b.usd_per_run),
    };
    let micro_usd = match usd {
        None => d.micro_usd,
        Some(v) if v.is_finite() && v >= 0.0 => Some((v * 1_000_000.0).round() as u64),
        Some(v) => {
            return Err(InputError::new(
                config_file,
                field,
                format!("`{v}` is not an amount of dollars"),
                "give a number of dollars such as 0.50 (0 allows no LLM call)",
            ));
        }
    };
    Ok(Limits {
        micro_usd,
        calls_per_run: b.calls_per_run.unwrap_or(d.calls_per_run),
        calls_per_scenario: b.calls_per_scenario.unwrap_or(d.calls_per_scenario),
    })
}

fn parse_file(file: &str, text: &str) -> Result<ConfigFile, InputError> {
    toml::from_str(text).map_err(|e| {
        let message = e.message().to_string();
        let field = e
            .span()
            .map(|span| {
                let line = text[..span.start].matches('\n').count() + 1;
                format!("line {line}")
            })
            .unwrap_or_else(|| "(file)".into());
        let fix = if message.contains("unknown field") {
            "remove the key or correct its spelling (sections: base_url, [browser], [timeouts], [providers.NAME], [planner], [budget], [prices.MODEL], [dashboard], [hooks]; docs/configuration.md and docs/planning-and-providers.md list their keys)"
        } else {
            "fix the TOML at the line given"
        };
        InputError::new(file, field, message, fix)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_with(toml: &str, overrides: &Overrides) -> Result<Config, InputError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(Layout::CONFIG_FILE), toml).unwrap();
        Config::load(dir.path(), overrides)
    }

    const TWO: &str = "base_url = \"http://h\"\n[providers.a]\nkind = \"openai\"\nmodel = \"gpt-4.1-mini\"\n[providers.b]\nkind = \"gemini\"\nmodel = \"gemini-2.5-flash\"\n";

    #[test]
    fn one_provider_is_chosen_per_run() {
        let none = Overrides::default();
        let err = load_with(TWO, &none).unwrap_err();
        assert_eq!(err.field, "planner.provider");
        assert!(err.fix.contains("a, b"), "{err}");
        let flag = Overrides {
            provider: Some("b".into()),
            ..Overrides::default()
        };
        assert_eq!(load_with(TWO, &flag).unwrap().provider.unwrap().0, "b");
        let chosen = format!("{TWO}[planner]\nprovider = \"a\"\n");
        assert_eq!(load_with(&chosen, &none).unwrap().provider.unwrap().0, "a");
        assert_eq!(
            load_with(&chosen, &flag).unwrap().provider.unwrap().0,
            "b",
            "the flag wins"
        );
        let unknown = Overrides {
            provider: Some("c".into()),
            ..Overrides::default()
        };
        let err = load_with(TWO, &unknown).unwrap_err();
        assert!(err.problem.contains("no provider named `c`"), "{err}");
        assert!(
            load_with("base_url = \"http://h\"\n", &none)
                .unwrap()
                .provider
                .is_none()
        );
    }

    #[test]
    fn budgets_and_origins_are_checked() {
        let none = Overrides::default();
        let c = load_with(
            "[budget]\nusd_per_run = 0.25\ncalls_per_scenario = 3\n",
            &none,
        )
        .unwrap();
        assert_eq!(c.limits.micro_usd, Some(250_000));
        assert_eq!(c.limits.calls_per_scenario, 3);
        let flag = Overrides {
            budget_usd: Some(-1.0),
            ..Overrides::default()
        };
        assert_eq!(load_with("", &flag).unwrap_err().field, "--budget-usd");
        let err = load_with(
            "[planner]\nallowed_origins = [\"javascript:alert(1)\"]\n",
            &none,
        )
        .unwrap_err();
        assert_eq!(err.field, "planner.allowed_origins[0]");
        let err = load_with(
            "[providers.a]\nkind = \"anthropic\"\nmodel = \"x\"\n",
            &none,
        )
        .unwrap_err();
        assert!(err.problem.contains("anthropic"), "{err}");
    }

    #[test]
    fn prices_from_windup_toml_override_the_shipped_list() {
        let dir = tempfile::tempdir().unwrap();
        let write =
            |text: &str| std::fs::write(dir.path().join(Layout::CONFIG_FILE), text).unwrap();
        write("[prices.\"gemini-2.5-flash\"]\ninput_usd_per_mtok = 1.5\noutput_usd_per_mtok = 3\n");
        let config = Config::load(dir.path(), &Overrides::default()).unwrap();
        let on = time::macros::date!(2026 - 01 - 01);
        let price = config.prices.price("gemini-2.5-flash", on).unwrap();
        assert_eq!(price.input_micro_usd_per_mtok, 1_500_000);
        assert!(
            config.prices.price("gpt-4.1", on).is_some(),
            "the rest is shipped"
        );

        write("[prices.\"gemini-2.5-flash\"]\ninput_usd_per_mtok = -1\noutput_usd_per_mtok = 3\n");
        let err = Config::load(dir.path(), &Overrides::default()).unwrap_err();
        assert!(err.file.ends_with(Layout::CONFIG_FILE), "{err}");
        assert_eq!(err.field, "prices.gemini-2.5-flash.input_usd_per_mtok");

        write("[prices.x]\ninput_usd_per_mtok = 1\noutput_usd_per_mtok = 3\ncache = 1\n");
        let err = Config::load(dir.path(), &Overrides::default()).unwrap_err();
        assert!(err.problem.contains("cache"), "{err}");
        assert_eq!(err.field, "line 4");
    }

    #[test]
    fn the_test_id_attribute_is_an_attribute_name() {
        let none = Overrides::default();
        let default = load_with("", &none).unwrap();
        assert_eq!(default.browser.testid_attribute, "data-testid");
        let set = load_with("[browser]\ntestid_attribute = \"data-test\"\n", &none).unwrap();
        assert_eq!(set.browser.testid_attribute, "data-test");
        let err = load_with("[browser]\ntestid_attribute = \"data test]\"\n", &none).unwrap_err();
        assert_eq!(err.field, "browser.testid_attribute");
    }

    #[test]
    fn the_trace_width_is_bounded_and_named_when_outside() {
        let none = Overrides::default();
        assert_eq!(load_with("", &none).unwrap().trace_width, 320);
        let set = load_with("[browser]\ntrace_width = 1280\n", &none).unwrap();
        assert_eq!(set.trace_width, 1280);
        for w in [0, 100, 4000] {
            let text = format!("[browser]\ntrace_width = {w}\n");
            let err = load_with(&text, &none).unwrap_err();
            assert_eq!(err.field, "browser.trace_width");
            assert!(err.problem.contains(&w.to_string()), "{err}");
        }
    }

    #[test]
    fn unknown_keys_are_named() {
        let err = parse_file("windup.toml", "base_url = \"http://x\"\nbase_ulr = 1\n").unwrap_err();
        assert!(err.problem.contains("base_ulr"), "{err}");
        assert_eq!(err.field, "line 2");
    }
}
