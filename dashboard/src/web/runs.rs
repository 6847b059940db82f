//! The runs list: a page of runs, filtered by branch and result, with the shards of one CI
//! workflow run grouped. Served whole inside the project page and alone as the htmx partial
//! that the project page's filters and its 15-second refresh swap in (`project::runs_partial`,
//! which answers the whole page when the address is opened as a page).

use askama::Template;
use askama_web::WebTemplate;
use serde::Deserialize;
use windup_model::money::usd;

use super::error::PageError;
use crate::AppState;
use crate::store::{Project, RunFilter, RunSummary};
use crate::time::display;

const PAGE_SIZE: i64 = 25;

/// The runs list's filter and page, from the query string.
#[derive(Deserialize, Default)]
pub(super) struct RunsQuery {
    #[serde(default)]
    pub(super) branch: Option<String>,
    #[serde(default)]
    pub(super) status: Option<String>,
    #[serde(default)]
    page: Option<i64>,
}

impl RunsQuery {
    fn filter(&self) -> RunFilter {
        let page = self.page.unwrap_or(0).clamp(0, 100_000);
        RunFilter {
            branch: self.branch.clone().filter(|b| !b.is_empty()),
            status: self
                .status
                .clone()
                .filter(|s| s == "passed" || s == "failed"),
            workflow_run: None,
            limit: PAGE_SIZE + 1,
            offset: page * PAGE_SIZE,
        }
    }

    /// The runs partial (for htmx) or, with `partial` false, the whole project page (for a
    /// plain link), at `page` with this filter.
    fn link(&self, slug: &str, page: i64, partial: bool) -> String {
        let mut url = url::Url::parse("http://x/").expect("static url");
        url.set_path(&if partial {
            format!("/p/{slug}/runs")
        } else {
            format!("/p/{slug}")
        });
        {
            let mut q = url.query_pairs_mut();
            if let Some(b) = self.branch.as_deref().filter(|b| !b.is_empty()) {
                q.append_pair("branch", b);
            }
            if let Some(s) = self.status.as_deref().filter(|s| !s.is_empty()) {
                q.append_pair("status", s);
            }
            q.append_pair("page", &page.to_string());
        }
        format!("{}?{}", url.path(), url.query().unwrap_or(""))
    }
}

/// One run as a line of a list (here, on the spend page, and atop its own page).
pub(super) struct RunView {
    pub(super) run_id: String,
    pub(super) url: String,
    pub(super) started: String,
    pub(super) branch: String,
    pub(super) commit: String,
    pub(super) shard: String,
    pub(super) passed: i64,
    pub(super) failed: i64,
    pub(super) flaky: i64,
    pub(super) healed: i64,
    pub(super) environment: String,
    pub(super) llm_calls: i64,
    pub(super) cost: String,
    pub(super) cache: String,
    pub(super) ok: bool,
}

struct RunGroup {
    workflow_run: String,
    runs: Vec<RunView>,
    passed: i64,
    failed: i64,
}

pub(super) fn run_view(slug: &str, r: &RunSummary) -> RunView {
    RunView {
        run_id: r.run_id.clone(),
        url: format!("/p/{slug}/runs/{}", r.run_id),
        started: display(r.started_ms),
        branch: r.branch.clone().unwrap_or_default(),
        commit: r
            .commit_sha
            .as_deref()
            .map(|c| c.chars().take(8).collect())
            .unwrap_or_default(),
        shard: r.shard.clone().unwrap_or_default(),
        passed: r.passed,
        failed: r.failed,
        flaky: r.flaky,
        healed: r.healed,
        environment: r.environment.clone().unwrap_or_default(),
        llm_calls: r.llm_calls,
        cost: usd(r.cost_micro_usd.max(0) as u64),
        cache: format!("{}/{}", r.cache_hits, r.scenarios),
        ok: r.failed == 0,
    }
}

/// Shards of one CI workflow run are shown together, in the order they first appear.
fn group_runs(slug: &str, runs: &[RunSummary]) -> Vec<RunGroup> {
    let mut groups: Vec<RunGroup> = Vec::new();
    for r in runs {
        let key = r.workflow_run.clone().unwrap_or_default();
        let index = match groups
            .iter()
            .position(|g| !key.is_empty() && g.workflow_run == key)
        {
            Some(i) => i,
            None => {
                groups.push(RunGroup {
                    workflow_run: key,
                    runs: Vec::new(),
                    passed: 0,
                    failed: 0,
                });
                groups.len() - 1
            }
        };
        let group = &mut groups[index];
        group.passed += r.passed;
        group.failed += r.failed;
        group.runs.push(run_view(slug, r));
    }
    groups
}

#[derive(Template, WebTemplate)]
#[template(path = "runs.html")]
pub(super) struct RunsPartial {
    groups: Vec<RunGroup>,
    self_url: String,
    newer: String,
    older: String,
    newer_page: String,
    older_page: String,
}

pub(super) async fn runs_list(
    state: &AppState,
    project: &Project,
    q: &RunsQuery,
) -> Result<RunsPartial, PageError> {
    let filter = q.filter();
    let mut runs = state.store.runs(project.id, &filter).await?;
    let more = runs.len() as i64 > PAGE_SIZE;
    runs.truncate(PAGE_SIZE as usize);
    let page = filter.offset / PAGE_SIZE;
    let slug = &project.slug;
    let at = |page: i64, partial: bool, show: bool| {
        if show {
            q.link(slug, page, partial)
        } else {
            String::new()
        }
    };
    Ok(RunsPartial {
        groups: group_runs(slug, &runs),
        self_url: q.link(slug, page, true),
        newer: at(page - 1, true, page > 0),
        older: at(page + 1, true, more),
        newer_page: at(page - 1, false, page > 0),
        older_page: at(page + 1, false, more),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_one_workflow_run_are_grouped() {
        let run = |id: &str, wf: Option<&str>| RunSummary {
            run_id: id.into(),
            started_ms: 0,
            finished_ms: 0,
            branch: None,
            commit_sha: None,
            workflow_run: wf.map(str::to_string),
            shard: None,
            scenarios: 1,
            passed: 1,
            failed: 0,
            skipped: 0,
            flaky: 0,
            llm_calls: 0,
            cost_micro_usd: 0,
            cache_hits: 1,
            duration_ms: 0,
            pr_repo: None,
            pr_number: None,
            comment_status: None,
            healed: 0,
            environment: None,
        };
        let groups = group_runs(
            "p",
            &[
                run("a", Some("w1")),
                run("b", None),
                run("c", Some("w1")),
                run("d", None),
            ],
        );
        let shape: Vec<(String, usize)> = groups
            .iter()
            .map(|g| (g.workflow_run.clone(), g.runs.len()))
            .collect();
        assert_eq!(
            shape,
            [
                ("w1".to_string(), 2),
                (String::new(), 1),
                (String::new(), 1)
            ]
        );
        assert_eq!(groups[0].passed, 2);
    }
}
