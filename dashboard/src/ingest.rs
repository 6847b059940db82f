//! A pushed run report and its ledger records, checked and flattened into store rows.

use windup_model::api::{MAX_STALE_PLANS, PullRequest, StalePlan};
use windup_model::limits::{PLAN_BYTES, PLAN_STEPS};
use windup_model::{
    CacheEntry, CacheOutcome, CacheStatus, LedgerRecord, RunReport, ScenarioStatus,
};

use crate::error::ApiError;
use crate::repo::RepoName;
use crate::store::{NewLedger, NewResult, NewRun, NewStale};
use crate::time::{day, to_ms};

fn i(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The most one record (a ledger record, a report's totals, one scenario's result) may claim
/// to have cost: $1,000,000 in micro-dollars. A real scenario costs cents; the bound keeps every
/// sum the dashboard makes (a day's spend, a PR's shards) far inside a signed 64-bit integer.
pub const MAX_COST_MICRO_USD: u64 = 1_000_000_000_000;
/// The most tokens of one kind one ledger record may claim (ten billion).
pub const MAX_TOKENS: u64 = 10_000_000_000;
/// The most LLM calls, scenarios or cache hits one record may count.
pub const MAX_COUNT: u32 = 1_000_000;
/// The longest duration or step time one record may claim, in milliseconds (about 31 years).
pub const MAX_DURATION_MS: u64 = 1_000_000_000_000;

/// `field` is at most `max`, else a 422 naming the field.
fn at_most<T: PartialOrd + std::fmt::Display>(
    field: &str,
    value: T,
    max: T,
) -> Result<(), ApiError> {
    if value <= max {
        Ok(())
    } else {
        Err(ApiError::unprocessable(
            "out_of_range",
            format!("{field} is {value}, over the most one record may claim ({max})"),
        ))
    }
}

/// Every number the dashboard stores, sums or draws is within its bound: an upload that
/// claims an absurd cost, token count or duration is refused whole, naming the first such
/// field. (A negative number never gets here: the types are unsigned, so the body is refused
/// while it is read, naming the field too.)
pub fn check_amounts(report: &RunReport, ledger: &[LedgerRecord]) -> Result<(), ApiError> {
    let t = &report.totals;
    at_most(
        "report.totals.cost_micro_usd",
        t.cost_micro_usd,
        MAX_COST_MICRO_USD,
    )?;
    at_most("report.totals.duration_ms", t.duration_ms, MAX_DURATION_MS)?;
    for (name, n) in [
        ("scenarios", t.scenarios),
        ("passed", t.passed),
        ("failed", t.failed),
        ("skipped", t.skipped),
        ("flaky", t.flaky),
        ("llm_calls", t.llm_calls),
        ("cache_hits", t.cache_hits),
    ] {
        at_most(&format!("report.totals.{name}"), n, MAX_COUNT)?;
    }
    for (k, s) in report.scenarios.iter().enumerate() {
        let field = |name: &str| format!("report.scenarios[{k}].{name}");
        at_most(
            &field("cost_micro_usd"),
            s.cost_micro_usd,
            MAX_COST_MICRO_USD,
        )?;
        at_most(&field("duration_ms"), s.duration_ms, MAX_DURATION_MS)?;
        at_most(&field("llm_calls"), s.llm_calls, MAX_COUNT)?;
        at_most(&field("attempts"), s.attempts, MAX_COUNT)?;
        for (j, a) in s.actions.iter().enumerate() {
            for (name, ms) in [
                ("started_ms", a.started_ms),
                ("duration_ms", a.duration_ms),
                ("wait_ms", a.wait_ms),
                ("act_ms", a.act_ms),
                ("verify_ms", a.verify_ms),
            ] {
                at_most(&field(&format!("actions[{j}].{name}")), ms, MAX_DURATION_MS)?;
            }
        }
    }
    for (n, l) in ledger.iter().enumerate() {
        let field = |name: &str| format!("ledger[{n}].{name}");
        at_most(
            &field("cost_micro_usd"),
            l.cost_micro_usd,
            MAX_COST_MICRO_USD,
        )?;
        for (name, tokens) in [
            ("tokens.input", l.tokens.input),
            ("tokens.output", l.tokens.output),
            ("tokens.cached", l.tokens.cached),
        ] {
            at_most(&field(name), tokens, MAX_TOKENS)?;
        }
        for (name, calls) in [
            ("calls.planning", l.calls.planning),
            ("calls.continuation", l.calls.continuation),
            ("calls.replan", l.calls.repair),
            ("calls.suggest", l.calls.suggest),
            ("calls.debrief", l.calls.debrief),
        ] {
            at_most(&field(name), calls, MAX_COUNT)?;
        }
        for (name, ms) in [
            ("timings.plan_ms", l.timings.plan_ms),
            ("timings.execute_ms", l.timings.execute_ms),
            ("timings.verify_ms", l.timings.verify_ms),
        ] {
            at_most(&field(name), ms, MAX_DURATION_MS)?;
        }
    }
    Ok(())
}

/// A run id or artifact name the store and URLs can hold: 1-200 of `A-Z a-z 0-9 . _ -`, not
/// `.` or `..`.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 200
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

pub fn status_str(s: ScenarioStatus) -> &'static str {
    match s {
        ScenarioStatus::Passed => "passed",
        ScenarioStatus::Failed => "failed",
        ScenarioStatus::Skipped => "skipped",
    }
}

pub fn cache_str(c: CacheOutcome) -> &'static str {
    c.as_str()
}

pub fn to_new_run(
    report: &RunReport,
    ledger: &[LedgerRecord],
    pr: Option<&PullRequest>,
) -> Result<NewRun, ApiError> {
    if !valid_name(&report.run_id) {
        return Err(ApiError::unprocessable(
            "invalid_run_id",
            "report.run_id must be 1-200 characters of A-Z a-z 0-9 . _ -",
        ));
    }
    if !report.report_version.starts_with("0.") {
        return Err(ApiError::unprocessable(
            "unsupported_version",
            format!(
                "report.report_version `{}` is not read here (0.x is); upgrade the dashboard",
                report.report_version
            ),
        ));
    }
    check_amounts(report, ledger)?;
    for (n, record) in ledger.iter().enumerate() {
        if record.run_id != report.run_id {
            return Err(ApiError::unprocessable(
                "ledger_run_mismatch",
                format!(
                    "ledger[{n}].run_id is `{}`, but report.run_id is `{}`",
                    record.run_id, report.run_id
                ),
            ));
        }
    }
    if let Some(pr) = pr {
        // Checked by GitHub's naming rules though it is only ever compared with the project's
        // setting: what a run stores and shows is a repository name or nothing.
        RepoName::parse(&pr.repo).map_err(|why| {
            ApiError::unprocessable("invalid_pull_request", format!("pull_request.repo: {why}"))
        })?;
        if pr.number == 0 {
            return Err(ApiError::unprocessable(
                "invalid_pull_request",
                "pull_request.number must be a positive number",
            ));
        }
    }
    if let Some(name) = &report.environment {
        windup_model::check_environment(name).map_err(|why| {
            ApiError::unprocessable("invalid_environment", format!("report.environment: {why}"))
        })?;
    }
    let report_json = serde_json::to_string(report)
        .map_err(|e| ApiError::unprocessable("invalid_body", e.to_string()))?;
    let t = &report.totals;
    Ok(NewRun {
        run_id: report.run_id.clone(),
        started_ms: to_ms(report.started_at),
        finished_ms: to_ms(report.finished_at),
        branch: report.git.as_ref().and_then(|g| g.branch.clone()),
        commit_sha: report.git.as_ref().map(|g| g.commit.clone()),
        workflow_run: report.ci.as_ref().and_then(|c| c.workflow_run.clone()),
        shard: report.ci.as_ref().and_then(|c| c.shard.clone()),
        scenarios: i64::from(t.scenarios),
        passed: i64::from(t.passed),
        failed: i64::from(t.failed),
        skipped: i64::from(t.skipped),
        flaky: i64::from(t.flaky),
        llm_calls: i64::from(t.llm_calls),
        cost_micro_usd: i(t.cost_micro_usd),
        cache_hits: i64::from(t.cache_hits),
        duration_ms: i(t.duration_ms),
        report_json,
        pr_repo: pr.map(|p| p.repo.clone()),
        pr_number: pr.map(|p| i(p.number)),
        pr_head_sha: pr.and_then(|p| p.head_sha.clone()),
        healed: i64::from(t.healed),
        environment: report.environment.clone(),
        results: report
            .scenarios
            .iter()
            .map(|s| NewResult {
                scenario_id: s.scenario_id.clone(),
                status: status_str(s.status).to_string(),
                flaky: s.flaky,
                cache: cache_str(s.cache).to_string(),
                failure_class: s.failure_class.map(|c| c.as_str().to_string()),
                message: s.message.clone(),
                heal: s.heal.as_ref().map(|h| h.describe()),
                proposal: s
                    .proposal
                    .as_ref()
                    .map(|p| format!("{} {}", p.source.as_str(), p.file)),
            })
            .collect(),
        stale: Vec::new(),
        ledger: ledger
            .iter()
            .map(|l| NewLedger {
                run_id: l.run_id.clone(),
                scenario_id: l.scenario_id.clone(),
                day: day(to_ms(l.started_at)),
                started_ms: to_ms(l.started_at),
                provider: l.provider.clone(),
                model: l.model.clone(),
                calls: i64::from(l.calls.total()),
                input_tokens: i(l.tokens.input),
                output_tokens: i(l.tokens.output),
                cached_tokens: i(l.tokens.cached),
                cost_micro_usd: i(l.cost_micro_usd),
                record_json: serde_json::to_string(l).unwrap_or_default(),
            })
            .collect(),
    })
}

/// Longest stale reason kept, in characters.
const MAX_REASON_CHARS: usize = 300;
/// Longest start URL of a stale plan, in bytes.
const MAX_START_URL_BYTES: usize = 2048;

/// One line without control characters, at most `max` characters.
pub fn one_line(text: &str, max: usize) -> String {
    let line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(max)
        .collect();
    line.trim().to_string()
}

/// The run's invalidations, checked (at most [`MAX_STALE_PLANS`], each a stale entry of this
/// run with a plan within the plan limits, its replacement an active entry of the same
/// scenario) and flattened into store rows; the first bad one refuses the upload, named.
pub fn to_new_stale(report: &RunReport, plans: &[StalePlan]) -> Result<Vec<NewStale>, ApiError> {
    let bad = |field: String, why: &str| {
        ApiError::unprocessable("invalid_invalidation", format!("{field} {why}"))
    };
    if plans.len() > MAX_STALE_PLANS {
        return Err(bad(
            "invalidations".into(),
            &format!(
                "holds {} plans, over the most one upload may carry ({MAX_STALE_PLANS})",
                plans.len()
            ),
        ));
    }
    let json = |field: &str, entry: &CacheEntry| -> Result<String, ApiError> {
        if entry.plan.actions.len() > PLAN_STEPS {
            return Err(bad(
                format!("{field}.plan.actions"),
                &format!("has more than {PLAN_STEPS} steps"),
            ));
        }
        let text = serde_json::to_string(entry)
            .map_err(|e| ApiError::unprocessable("invalid_body", e.to_string()))?;
        if text.len() > PLAN_BYTES {
            return Err(bad(field.into(), &format!("is over {PLAN_BYTES} bytes")));
        }
        Ok(text)
    };
    let mut out = Vec::with_capacity(plans.len());
    for (k, p) in plans.iter().enumerate() {
        let field = format!("invalidations[{k}].entry");
        let e = &p.entry;
        if e.status != CacheStatus::Stale {
            return Err(bad(format!("{field}.status"), "must be \"stale\""));
        }
        let Some(why) = e.invalidation.as_ref() else {
            return Err(bad(format!("{field}.invalidation"), "is missing"));
        };
        if why.run_id.as_deref() != Some(report.run_id.as_str()) {
            return Err(bad(
                format!("{field}.invalidation.run_id"),
                "must be the report's run_id",
            ));
        }
        if !valid_name(&e.key.scenario_id) {
            return Err(bad(
                format!("{field}.key.scenario_id"),
                "must be 1-200 characters of A-Z a-z 0-9 . _ -",
            ));
        }
        let url = &e.key.start_url;
        if !url.starts_with('/')
            || url.len() > MAX_START_URL_BYTES
            || url.chars().any(char::is_control)
        {
            return Err(bad(
                format!("{field}.key.start_url"),
                &format!("must be a path starting with `/`, at most {MAX_START_URL_BYTES} bytes"),
            ));
        }
        let replacement_json = match &p.replacement {
            None => None,
            Some(r) => {
                let rf = format!("invalidations[{k}].replacement");
                if r.status != CacheStatus::Active || r.key.scenario_id != e.key.scenario_id {
                    return Err(bad(rf, "must be an active entry of the same scenario"));
                }
                Some(json(&rf, r)?)
            }
        };
        let verdict = report
            .scenarios
            .iter()
            .find(|s| s.scenario_id == e.key.scenario_id)
            .and_then(|s| s.triage.as_ref())
            .map(|t| t.verdict.as_str().to_string());
        out.push(NewStale {
            scenario_id: e.key.scenario_id.clone(),
            start_url: url.clone(),
            stale_ms: to_ms(why.at),
            reason: one_line(&why.reason, MAX_REASON_CHARS),
            failure_class: why.failure_class.map(|c| c.as_str().to_string()),
            verdict,
            entry_json: json(&field, e)?,
            replacement_json,
        });
    }
    Ok(out)
}
