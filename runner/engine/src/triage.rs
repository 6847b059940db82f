//! LLM-free triage: every failed scenario gets a verdict from rules over its evidence, with the
//! facts that decided it (`windup_model::Triage`). The rules, first match wins:
//! - `environment`: the browser crashed, the scenario ran out of time, the app could not be
//!   reached, or no plan could be made (no provider, the budget, `--require-cached`);
//! - `app_broken`: a request answered 5xx, a request other than the page's document answered
//!   a client error the app made (400, 404, 405, 410, 422), the document failed with a 5xx, or
//!   the page threw an uncaught error or left a promise rejection unhandled;
//! - `app_changed`: the target is gone or not actionable (with the close names the page has
//!   instead, when it has some), the start page's structure changed since the plan was
//!   verified, or the route answered 404 (a navigation, or the document a step led to);
//! - `test_outdated`: the steps worked and a postcondition no longer holds (its text or URL
//!   changed);
//! - `unknown`: anything else.
//!
//! Background evidence the plan's baseline holds (what the app's pages also did on the run that
//! verified it: a `learn.json` answering 404 on every load, a rejection the app leaves
//! unhandled in normal use) decides nothing: it is listed as discounted, and only what is new
//! counts. With no baseline to compare with, a verdict other than `environment` is marked
//! unconfirmed.
//!
//! A leaf: it reads a result and a baseline, nothing else.

use windup_model::{
    Baseline, CacheOutcome, FailureClass, ScenarioResult, ScenarioStatus, Triage, Verdict,
};

/// The verdict of a failed scenario, against its plan's baseline when it has one; none for one
/// that did not fail.
pub fn triage(result: &ScenarioResult, baseline: Option<&Baseline>) -> Option<Triage> {
    if result.status != ScenarioStatus::Failed {
        return None;
    }
    let message = result.message.as_deref().unwrap_or("");
    let evidence = result.evidence.as_ref();
    let mut discounted = Vec::new();
    let requests = new_evidence(
        evidence.map(|e| e.failed_requests.as_slice()),
        |r| baseline.is_some_and(|b| b.has_request(r)),
        &mut discounted,
    );
    let errors = new_evidence(
        evidence.map(|e| e.console_errors.as_slice()),
        |e| baseline.is_some_and(|b| b.has_error(e)),
        &mut discounted,
    );
    discounted.truncate(4);
    let class = result.failure_class;
    let verdict = |verdict, facts: Vec<String>| {
        Some(Triage {
            verdict,
            facts,
            discounted: discounted.clone(),
            unconfirmed: baseline.is_none() && verdict != Verdict::Environment,
        })
    };

    // Not the app, not the test.
    match class {
        Some(FailureClass::BrowserCrashed) => {
            return verdict(Verdict::Environment, vec!["the browser crashed".into()]);
        }
        Some(FailureClass::Environment) => {
            return verdict(
                Verdict::Environment,
                vec![format!("a hook failed: {}", clip(message))],
            );
        }
        Some(FailureClass::ScenarioTimeout) => {
            return verdict(
                Verdict::Environment,
                vec![format!("the scenario ran out of time: {}", clip(message))],
            );
        }
        Some(
            c @ (FailureClass::NoPlan
            | FailureClass::LlmError
            | FailureClass::BudgetExceeded
            | FailureClass::NotCached),
        ) => {
            // The reason is the failure's own message: the fact names the class only, so the
            // triage line does not say it twice.
            return verdict(
                Verdict::Environment,
                vec![format!("no plan could be made ({})", c.as_str())],
            );
        }
        _ => {}
    }
    if class == Some(FailureClass::NavigationFailed) && unreachable(message) {
        return verdict(
            Verdict::Environment,
            vec![format!("the app could not be reached: {}", clip(message))],
        );
    }
    // The app failed.
    let mut broken: Vec<String> = requests
        .iter()
        .filter(|r| status_of(r).is_some_and(|s| s >= 500))
        .map(|r| format!("a request failed: {}", clip(r)))
        .collect();
    if class == Some(FailureClass::NavigationFailed)
        && http_status(message).is_some_and(|s| s >= 500)
    {
        broken.push(format!("the page failed to load: {}", clip(message)));
    }
    // The page's own document answering 404 is a route gone (below); any other request
    // answering a client error the app made is the app failing.
    let page = evidence
        .and_then(|e| e.url.as_deref())
        .or(result.final_url.as_deref());
    let request_url = |r: &str| r.split_whitespace().nth(1).map(str::to_string);
    let route_gone: Vec<String> = requests
        .iter()
        .filter(|r| matches!(status_of(r), Some(404 | 410)) && request_url(r).as_deref() == page)
        .map(|r| format!("the route is gone: {}", clip(r)))
        .collect();
    broken.extend(
        requests
            .iter()
            .filter(|r| {
                matches!(status_of(r), Some(400 | 404 | 405 | 410 | 422))
                    && request_url(r).as_deref() != page
                    && !r.ends_with("/favicon.ico")
            })
            .map(|r| format!("a request failed: {}", clip(r))),
    );
    broken.extend(
        errors
            .iter()
            .filter(|e| {
                e.contains("Uncaught")
                    || e.starts_with("Error")
                    || e.contains("TypeError")
                    || e.starts_with("unhandled rejection")
            })
            .map(|e| format!("the page threw: {}", clip(e))),
    );
    if !broken.is_empty() {
        broken.truncate(4);
        return verdict(Verdict::AppBroken, broken);
    }
    // The app moved on.
    let target = evidence.and_then(|e| e.target.as_deref()).unwrap_or("");
    let mut changed = route_gone;
    if result.cache == CacheOutcome::HitChangedPage {
        changed.push("the start page's structure changed since the plan was verified".into());
    }
    match class {
        Some(FailureClass::SelectorNotFound | FailureClass::NotActionable) => {
            changed.push(match target.split_once("nearest names: ") {
                Some((_, names)) => format!(
                    "the step's target is gone; the page has close names instead: {}",
                    clip(names)
                ),
                None if !target.is_empty() => {
                    format!("the step's target is gone or unusable: {}", clip(target))
                }
                None => format!("the step's target is gone: {}", clip(message)),
            });
            return verdict(Verdict::AppChanged, changed);
        }
        Some(FailureClass::NavigationFailed) if http_status(message) == Some(404) => {
            changed.push(format!("the route is gone: {}", clip(message)));
            return verdict(Verdict::AppChanged, changed);
        }
        Some(FailureClass::PostconditionFailed) if changed.is_empty() => {
            return verdict(
                Verdict::TestOutdated,
                vec![format!(
                    "the step worked but its postcondition no longer holds: {}",
                    clip(message)
                )],
            );
        }
        _ => {}
    }
    if !changed.is_empty() {
        return verdict(Verdict::AppChanged, changed);
    }
    verdict(
        Verdict::Unknown,
        vec![format!(
            "{}: {}",
            class.map_or("failed", FailureClass::as_str),
            clip(message)
        )],
    )
}

/// The evidence `lines` the baseline does not hold (`usual`); each one it holds is noted in
/// `discounted` instead.
fn new_evidence<'a>(
    lines: Option<&'a [String]>,
    usual: impl Fn(&str) -> bool,
    discounted: &mut Vec<String>,
) -> Vec<&'a str> {
    let mut new = Vec::new();
    for line in lines.unwrap_or_default() {
        if usual(line) {
            discounted.push(format!(
                "also seen when this plan was verified: {}",
                clip(line)
            ));
        } else {
            new.push(line.as_str());
        }
    }
    new
}

/// Whether a navigation failure says the app was not there at all.
fn unreachable(message: &str) -> bool {
    [
        "ERR_CONNECTION_REFUSED",
        "ERR_NAME_NOT_RESOLVED",
        "ERR_CONNECTION_RESET",
        "ERR_ADDRESS_UNREACHABLE",
        "ERR_TIMED_OUT",
        "did not finish loading",
    ]
    .iter()
    .any(|m| message.contains(m))
}

/// The status of a failed request as evidence writes it: `STATUS URL`.
fn status_of(request: &str) -> Option<u16> {
    request.split_whitespace().next()?.parse().ok()
}

/// An HTTP status a navigation failure names (`HTTP status 503`).
fn http_status(message: &str) -> Option<u16> {
    let (_, rest) = message.split_once("HTTP status ")?;
    rest.get(..3)?.parse().ok()
}

fn clip(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use windup_model::Evidence;

    use super::*;

    fn failed(class: FailureClass, message: &str, evidence: Evidence) -> ScenarioResult {
        ScenarioResult {
            scenario_id: "s".into(),
            task: None,
            status: ScenarioStatus::Failed,
            failure_class: Some(class),
            failed_action_id: Some("a2".into()),
            message: Some(message.into()),
            cache: CacheOutcome::Hit,
            llm_calls: 0,
            cost_micro_usd: 0,
            duration_ms: 10,
            final_url: None,
            attempts: 1,
            flaky: false,
            evidence: Some(evidence),
            screenshot: None,
            suggestion: None,
            triage: None,
            heal: None,
            proposal: None,
            actions: Vec::new(),
            hooks: Vec::new(),
        }
    }

    fn verdict_of(r: &ScenarioResult) -> Verdict {
        triage(r, None)
            .expect("a failed scenario gets a verdict")
            .verdict
    }

    #[test]
    fn a_4xx_is_a_route_gone_on_the_page_itself_and_the_app_failing_elsewhere() {
        let page = "http://127.0.0.1:1/projects.html";
        let on = |requests: &[&str], errors: &[&str]| Evidence {
            url: Some(page.into()),
            failed_requests: requests.iter().map(|r| r.to_string()).collect(),
            console_errors: errors.iter().map(|e| e.to_string()).collect(),
            ..Evidence::default()
        };
        let clicked_to_404 = failed(
            FailureClass::PostconditionFailed,
            "not visible",
            on(&[&format!("404 {page}")], &[]),
        );
        let t = triage(&clicked_to_404, None).unwrap();
        assert_eq!(t.verdict, Verdict::AppChanged, "{t:?}");
        assert!(t.facts[0].contains("route is gone"), "{t:?}");
        let api_404 = on(&["404 http://127.0.0.1:1/api/projects.json"], &[]);
        assert_eq!(
            verdict_of(&failed(FailureClass::PostconditionFailed, "x", api_404)),
            Verdict::AppBroken
        );
        let favicon = on(&["404 http://127.0.0.1:1/favicon.ico"], &[]);
        assert_eq!(
            verdict_of(&failed(FailureClass::PostconditionFailed, "x", favicon)),
            Verdict::TestOutdated
        );
        let rejected = on(
            &[],
            &["unhandled rejection: Cannot read properties of undefined"],
        );
        assert_eq!(
            verdict_of(&failed(FailureClass::PostconditionFailed, "x", rejected)),
            Verdict::AppBroken
        );
    }

    #[test]
    fn each_kind_of_failure_gets_its_verdict_with_the_facts_that_decided_it() {
        let gone = Evidence {
            target: Some(
                "role=button[name=\"Archive\"]: 0 visible matches; nearest names: \"Move to archive\""
                    .into(),
            ),
            ..Evidence::default()
        };
        let r = failed(FailureClass::SelectorNotFound, "no match", gone.clone());
        let t = triage(&r, None).unwrap();
        assert_eq!(t.verdict, Verdict::AppChanged);
        assert!(t.facts[0].contains("Move to archive"), "{t:?}");

        let five = Evidence {
            failed_requests: vec!["500 http://127.0.0.1:1/api/projects".into()],
            ..gone.clone()
        };
        // A 5xx the step waited on is the app failing, whatever the step then missed.
        assert_eq!(
            verdict_of(&failed(FailureClass::SelectorNotFound, "no match", five)),
            Verdict::AppBroken
        );
        let threw = Evidence {
            console_errors: vec!["Uncaught TypeError: x is undefined".into()],
            ..Evidence::default()
        };
        assert_eq!(
            verdict_of(&failed(
                FailureClass::PostconditionFailed,
                "not visible",
                threw
            )),
            Verdict::AppBroken
        );
        assert_eq!(
            verdict_of(&failed(
                FailureClass::PostconditionFailed,
                "expected text=\"Archived Apollo\" to be visible",
                Evidence::default()
            )),
            Verdict::TestOutdated
        );
        assert_eq!(
            verdict_of(&failed(
                FailureClass::NavigationFailed,
                "http://127.0.0.1:9/ did not load: net::ERR_CONNECTION_REFUSED",
                Evidence::default()
            )),
            Verdict::Environment
        );
        assert_eq!(
            verdict_of(&failed(
                FailureClass::NavigationFailed,
                "/gone.html did not load: HTTP status 404",
                Evidence::default()
            )),
            Verdict::AppChanged
        );
        assert_eq!(
            verdict_of(&failed(
                FailureClass::NavigationFailed,
                "/ did not load: HTTP status 503",
                Evidence::default()
            )),
            Verdict::AppBroken
        );
        assert_eq!(
            verdict_of(&failed(
                FailureClass::BrowserCrashed,
                "gone",
                Evidence::default()
            )),
            Verdict::Environment
        );
        assert_eq!(
            verdict_of(&failed(
                FailureClass::PlanRejected,
                "odd",
                Evidence::default()
            )),
            Verdict::Unknown
        );
        let mut passed = failed(FailureClass::PlanRejected, "odd", Evidence::default());
        passed.status = ScenarioStatus::Passed;
        assert!(triage(&passed, None).is_none());
    }

    #[test]
    fn the_apps_usual_noise_decides_nothing_and_what_is_new_still_does() {
        // TodoMVC's base.js fetches learn.json, which answers 404 on every load; a React app
        // leaves a rejection unhandled in normal use. Both were there when the plan was verified.
        let noise = Evidence {
            url: Some("http://127.0.0.1:1/index.html".into()),
            failed_requests: vec!["404 http://127.0.0.1:1/learn.json".into()],
            console_errors: vec![
                "unhandled rejection: Cannot read properties of undefined (reading 'id')".into(),
            ],
            target: Some("placeholder=\"What needs to be done?\": no visible match".into()),
            ..Evidence::default()
        };
        let verified_on = Baseline::record(
            ["unhandled rejection: Cannot read properties of undefined (reading 'id')"],
            ["404 http://127.0.0.1:9/learn.json"],
        );
        let renamed = failed(
            FailureClass::SelectorNotFound,
            "no visible match",
            noise.clone(),
        );

        let t = triage(&renamed, Some(&verified_on)).unwrap();
        assert_eq!(t.verdict, Verdict::AppChanged, "{t:?}");
        assert!(!t.unconfirmed);
        assert_eq!(t.discounted.len(), 2, "{t:?}");
        assert!(t.discounted[0].starts_with("also seen when this plan was verified: 404"));

        // Without a baseline the same evidence reads as the app failing, and says it is unsure.
        let t = triage(&renamed, None).unwrap();
        assert_eq!(t.verdict, Verdict::AppBroken, "{t:?}");
        assert!(t.unconfirmed && t.discounted.is_empty());

        // A failure the baseline does not hold still decides.
        let mut broken = noise;
        broken
            .failed_requests
            .push("500 http://127.0.0.1:1/api/todos".into());
        let t = triage(
            &failed(FailureClass::SelectorNotFound, "x", broken),
            Some(&verified_on),
        );
        let t = t.unwrap();
        assert_eq!(t.verdict, Verdict::AppBroken, "{t:?}");
        assert_eq!(
            t.facts,
            ["a request failed: 500 http://127.0.0.1:1/api/todos"]
        );

        // Nothing about the app can be unsure of the environment.
        let crashed = failed(FailureClass::BrowserCrashed, "crashed", Evidence::default());
        assert!(!triage(&crashed, None).unwrap().unconfirmed);
    }
}
