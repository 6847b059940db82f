//! The team dashboard's HTTP API, version 1: the JSON bodies the runner sends and the dashboard
//! answers, defined once for both ends and for the test fake (`windup-testkit`).
//!
//! Every route is under `api/v1/` and takes `Authorization: Bearer <project token>`:
//!
//! | route | request | answer |
//! |---|---|---|
//! | `POST runs` | [`RunUpload`] | [`RunCreated`] (201, or 200 when the run was there) |
//! | `PUT runs/{run_id}/artifacts/{name}` | a PNG (`image/png`) | [`ArtifactSaved`] |
//! | `GET cache/{scenario_id}?`[`PlanQuery`] | — | [`CachedPlan`], 404 when none |
//! | `PUT cache/{scenario_id}?`[`PlanPutQuery`] | a [`CacheEntry`] | [`PlanSaved`] |
//! | `GET sitemap?`[`SiteMapQuery`] | — | a `SiteMap` |
//! | `PUT sitemap?`[`SiteMapQuery`] (branch required) | a `SiteMap` | [`SiteMapSaved`] |
//!
//! Queries are typed here like bodies: the client serialises them, the dashboard and the fake
//! deserialise the same structs, so a parameter cannot be spelt two ways.
//!
//! A refusal is `{"error": {"code": "snake_case", "message": "…"}}`; the runner reads it
//! leniently (a proxy may answer instead of the dashboard), so it has no strict type here.
//!
//! Readers ignore unknown fields and take an absent optional field as none. A change must keep
//! what older runners send accepted: their spooled uploads arrive late. A change that cannot is
//! a new [`API_VERSION`].

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::cache::CacheEntry;
use crate::ledger::LedgerRecord;
use crate::report::RunReport;

/// The path segment after `api/` of every route.
pub const API_VERSION: &str = "v1";

/// `POST runs`: one run with its ledger records and the pull request it is for. Idempotent on
/// `report.run_id`, so a retried or spooled upload never makes a second run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunUpload {
    /// The run report, as the runner wrote it.
    pub report: RunReport,
    /// This run's ledger records, each with the report's `run_id`; absent reads as none.
    #[serde(default)]
    pub ledger: Vec<LedgerRecord>,
    /// The pull request the run is for, which gets the sticky comment. The runner sends `null`
    /// when there is none; absent reads the same.
    #[serde(default)]
    pub pull_request: Option<PullRequest>,
    /// The plans this run stopped trusting (moved to `stale/` locally), at most
    /// [`MAX_STALE_PLANS`]; absent reads as none (runners before it sent none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invalidations: Vec<StalePlan>,
}

/// The most stale plans one upload may carry; the runner sends the first ones.
pub const MAX_STALE_PLANS: usize = 100;

/// A plan the run stopped trusting: the entry as it was moved to `stale/` (status `stale`, its
/// `invalidation` naming this run), and the plan the same run verified in its place, when one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StalePlan {
    /// The stale entry, with its evidence in `invalidation`.
    pub entry: CacheEntry,
    /// The active entry that replaced it (a re-plan that passed), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<CacheEntry>,
}

/// The answer to `POST runs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunCreated {
    /// The uploaded report's `run_id`.
    pub run_id: String,
    /// The run's page on the dashboard.
    pub url: String,
    /// False when the dashboard already had this run (a retried upload).
    pub created: bool,
}

/// The pull request a run is for, from GitHub's event file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PullRequest {
    /// `owner/name` of the repository the pull request is in.
    pub repo: String,
    /// The pull request's number (positive).
    pub number: u64,
    /// The commit at the pull request's head. The runner always sends it; the dashboard also
    /// accepts it absent.
    #[serde(default)]
    pub head_sha: Option<String>,
}

impl PullRequest {
    /// `repo` split into owner and name, when both are non-empty and use only the characters
    /// GitHub allows (`A-Z a-z 0-9 . _ -`).
    pub fn owner_name(&self) -> Option<(&str, &str)> {
        let (owner, name) = self.repo.split_once('/')?;
        let ok = |s: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        };
        (ok(owner) && ok(name)).then_some((owner, name))
    }
}

/// A screenshot a run report refers to, uploaded with `PUT runs/{run_id}/artifacts/{name}`
/// after the run. The runner keeps these with a spooled upload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Artifact {
    /// The `{name}` of the route: one path segment, the file's name in the run's folder.
    pub file_name: String,
    /// Where the runner reads the image, from the project root (never sent).
    pub path: String,
}

/// The image types an artifact may be, each with the bytes its files start with: PNG for the
/// screenshots of failures and passes, JPEG for a trace's frames (`.jpg`).
pub const ARTIFACT_TYPES: [(&str, &[u8]); 2] = [
    ("image/png", b"\x89PNG\r\n\x1a\n"),
    ("image/jpeg", b"\xff\xd8\xff"),
];

impl Artifact {
    /// The `content-type` it is sent with: JPEG for a `.jpg` file, else PNG.
    pub fn content_type(&self) -> &'static str {
        if self.file_name.ends_with(".jpg") {
            ARTIFACT_TYPES[1].0
        } else {
            ARTIFACT_TYPES[0].0
        }
    }
}

/// The artifact type whose signature `bytes` start with, if any.
pub fn artifact_type_of(bytes: &[u8]) -> Option<&'static str> {
    ARTIFACT_TYPES
        .iter()
        .find(|(_, signature)| bytes.starts_with(signature))
        .map(|(t, _)| *t)
}

/// The answer to `PUT runs/{run_id}/artifacts/{name}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactSaved {
    /// The run the artifact belongs to.
    pub run_id: String,
    /// The artifact's name, as in the route.
    pub name: String,
    /// The size stored.
    pub bytes: u64,
    /// False when it replaced an artifact of the same name.
    pub created: bool,
}

/// The answer to `GET cache/{scenario_id}`: the plan the dashboard holds for the scenario's
/// current text, and where from. `E` is the entry as it travels (JSON, which the runner checks
/// like a committed cache file before it trusts it) or, once checked, a
/// [`CacheEntry`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedPlan<E = serde_json::Value> {
    /// The branch it was saved on: the asked one, else the project's default branch.
    pub branch: String,
    /// When the dashboard stored it (RFC 3339).
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
    /// The cache entry.
    pub entry: E,
}

/// The query of `GET cache/{scenario_id}`: the scenario's current text, by its start URL and
/// hash (a plan for another text is never answered), and the branch asked for (the project's
/// default branch answers when it has none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanQuery {
    /// The scenario's `start_url`.
    pub start_url: String,
    /// The scenario's `scenario_sha`.
    pub scenario_sha: String,
    /// The branch asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
}

/// The query of `PUT cache/{scenario_id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanPutQuery {
    /// The branch it is saved for.
    pub branch: String,
    /// Why the plan it replaces went stale (one line, bounded by the dashboard).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The query of `GET sitemap` (the default branch's map with `branch`'s merged over it) and of
/// `PUT sitemap`, where the branch is required.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteMapQuery {
    /// The branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
}

/// The answer to `PUT cache/{scenario_id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanSaved {
    /// The scenario of the route.
    pub scenario_id: String,
    /// The branch it was saved for.
    pub branch: String,
    /// False when it replaced the branch's entry for the same key.
    pub created: bool,
}

/// The answer to `PUT sitemap?branch=`: the branch's map after the merge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteMapSaved {
    /// The branch it was merged into.
    pub branch: String,
    /// Pages the branch's map holds now.
    pub pages: u64,
    /// Edges it holds now.
    pub edges: u64,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn report() -> serde_json::Value {
        json!({
            "report_version": "0.2",
            "run_id": "0198f3a0-0000-7000-8000-000000000001",
            "started_at": "2026-11-29T10:00:00Z",
            "finished_at": "2026-11-29T10:01:00Z",
            "windup_version": "0.1.0",
            "git": {"commit": "c1", "branch": "main"},
            "totals": {"scenarios": 0, "passed": 0, "failed": 0, "skipped": 0, "llm_calls": 0,
                       "cost_micro_usd": 0, "cache_hits": 0, "duration_ms": 60000},
            "scenarios": []
        })
    }

    #[test]
    fn an_upload_the_runner_builds_reads_back_the_same() {
        let ledger: LedgerRecord = serde_json::from_value(json!({
            "ledger_version": "0.1",
            "run_id": "0198f3a0-0000-7000-8000-000000000001",
            "scenario_id": "login",
            "started_at": "2026-11-29T10:00:00Z",
            "finished_at": "2026-11-29T10:00:05Z",
            "status": "passed",
            "cache": "miss",
            "calls": {"planning": 1, "continuation": 0, "replan": 0},
            "tokens": {"input": 100, "output": 20, "cached": 0},
            "cost_micro_usd": 700,
            "timings": {"plan_ms": 900, "execute_ms": 3000, "verify_ms": 100}
        }))
        .unwrap();
        let sent = RunUpload {
            report: serde_json::from_value(report()).unwrap(),
            ledger: vec![ledger],
            pull_request: Some(PullRequest {
                repo: "acme/shop".into(),
                number: 7,
                head_sha: Some("c0ffee".into()),
            }),
            invalidations: Vec::new(),
        };
        let text = serde_json::to_string(&sent).unwrap();
        let read: RunUpload = serde_json::from_str(&text).unwrap();
        assert_eq!(read, sent);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["pull_request"],
            json!({"repo": "acme/shop", "number": 7, "head_sha": "c0ffee"})
        );

        let none = RunUpload {
            pull_request: None,
            ..sent
        };
        let value = serde_json::to_value(&none).unwrap();
        assert_eq!(value["pull_request"], json!(null), "the runner sends null");
    }

    #[test]
    fn the_optional_fields_may_be_absent() {
        let read: RunUpload = serde_json::from_value(json!({"report": report()})).unwrap();
        assert!(read.ledger.is_empty());
        assert_eq!(read.pull_request, None);
        assert!(
            read.invalidations.is_empty(),
            "old uploads had no invalidations"
        );
        let read: RunUpload = serde_json::from_value(json!({
            "report": report(),
            "pull_request": {"repo": "acme/shop", "number": 7}
        }))
        .unwrap();
        let pr = read.pull_request.unwrap();
        assert_eq!(pr.head_sha, None);
        assert_eq!(pr.owner_name(), Some(("acme", "shop")));
    }

    #[test]
    fn a_cached_plan_keeps_its_time() {
        let text = r#"{"branch":"main","updated_at":"2026-11-30T05:10:00Z","entry":{"k":1}}"#;
        let plan: CachedPlan = serde_json::from_str(text).unwrap();
        assert_eq!(plan.updated_at.unix_timestamp(), 1_796_015_400);
        assert_eq!(serde_json::to_string(&plan).unwrap(), text);
    }

    #[test]
    fn owner_and_name_must_both_be_plain() {
        let pr = |repo: &str| PullRequest {
            repo: repo.into(),
            number: 1,
            head_sha: None,
        };
        assert_eq!(pr("o/n").owner_name(), Some(("o", "n")));
        for bad in ["no-slash", "/n", "o/", "o/n/x", "o p/n"] {
            assert_eq!(pr(bad).owner_name(), None, "{bad}");
        }
    }
}
