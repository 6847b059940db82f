//! The project page's charts, each fitted to the data it has: pass rate per run until there are
//! enough days for a per-day line, the runs × scenarios grid, and an empty state that says why
//! a chart is missing.

use std::collections::HashMap;

use super::error::PageError;
use crate::AppState;
use crate::store::{Grouping, Project, RateRow, RunFilter};
use crate::svg::{self, RunBar, Series};
use crate::time::display;

/// Days with runs from which the pass rate is drawn per day rather than per run.
pub(super) const DAYS_FOR_DAILY: usize = 7;
/// Runs shown by the per-run chart and the grid.
const RUNS_SHOWN: i64 = 30;

pub(super) struct Charts {
    /// What the pass-rate chart shows: `per run`, `per day`, or empty when there is no run.
    pub(super) rate_kind: &'static str,
    pub(super) rate_chart: String,
    /// The branch the grid is drawn for (the default branch, else every branch).
    pub(super) grid_branch: String,
    pub(super) grid: String,
}

/// Series of a per-day chart, the busiest `max` keys kept.
pub(super) fn series_from(days: &[String], rows: &[RateRow], max: usize) -> Vec<Series> {
    let index: HashMap<&str, usize> = days
        .iter()
        .enumerate()
        .map(|(i, d)| (d.as_str(), i))
        .collect();
    // Each series with its number of scenario runs, to keep the busiest ones.
    let mut by_key: Vec<(Series, i64)> = Vec::new();
    for r in rows {
        let label = r.key.clone().unwrap_or_else(|| "(no branch)".into());
        let Some(&i) = index.get(r.day.as_str()) else {
            continue;
        };
        match by_key.iter_mut().find(|(s, _)| s.label == label) {
            Some((series, volume)) => {
                series.points.push((i, r.passed, r.total));
                *volume += r.total;
            }
            None => by_key.push((
                Series {
                    label,
                    points: vec![(i, r.passed, r.total)],
                },
                r.total,
            )),
        }
    }
    by_key.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.label.cmp(&b.0.label)));
    by_key.truncate(max);
    by_key.into_iter().map(|(series, _)| series).collect()
}

pub(super) async fn charts(
    state: &AppState,
    project: &Project,
    days: &[String],
    by_branch: &[RateRow],
) -> Result<Charts, PageError> {
    let store = &state.store;
    let mut with_runs: Vec<&str> = by_branch.iter().map(|r| r.day.as_str()).collect();
    with_runs.sort_unstable();
    with_runs.dedup();
    let (rate_kind, rate_chart) = if with_runs.len() >= DAYS_FOR_DAILY {
        (
            "per day",
            svg::pass_rate_chart(days, &series_from(days, by_branch, 6)),
        )
    } else {
        let mut runs = store
            .runs(
                project.id,
                &RunFilter {
                    limit: RUNS_SHOWN,
                    ..RunFilter::default()
                },
            )
            .await?;
        runs.reverse();
        let bars: Vec<RunBar> = runs
            .iter()
            .map(|r| RunBar {
                label: format!(
                    "{} {} {}",
                    r.branch.as_deref().unwrap_or("(no branch)"),
                    display(r.started_ms),
                    r.run_id
                ),
                url: format!("/p/{}/runs/{}", project.slug, r.run_id),
                passed: r.passed,
                total: r.passed + r.failed,
            })
            .collect();
        if bars.is_empty() {
            ("", String::new())
        } else {
            ("per run", svg::run_bars(&bars))
        }
    };
    let mut grid_branch = project.default_branch.clone();
    let mut cells = store
        .grid(project.id, Some(&grid_branch), RUNS_SHOWN)
        .await?;
    if cells.is_empty() {
        grid_branch = String::new();
        cells = store.grid(project.id, None, RUNS_SHOWN).await?;
    }
    let mut scenarios: Vec<String> = cells.iter().map(|c| c.scenario_id.clone()).collect();
    scenarios.sort();
    scenarios.dedup();
    let mut runs: Vec<(String, String)> = Vec::new();
    for c in &cells {
        if runs.last().is_none_or(|(id, _)| *id != c.run_id) {
            runs.push((
                c.run_id.clone(),
                format!("/p/{}/runs/{}", project.slug, c.run_id),
            ));
        }
    }
    let outcome: HashMap<(&str, &str), &'static str> = cells
        .iter()
        .map(|c| {
            let class = match (c.status.as_str(), c.flaky != 0, c.cache.as_str()) {
                ("failed", _, _) => "fail",
                ("skipped", _, _) => "skipped",
                (_, true, _) => "flaky",
                (_, _, "healed") => "healed",
                _ => "pass",
            };
            ((c.run_id.as_str(), c.scenario_id.as_str()), class)
        })
        .collect();
    let grid = if cells.is_empty() {
        String::new()
    } else {
        svg::heat_map(&scenarios, &runs, |i, j| {
            outcome
                .get(&(runs[j].0.as_str(), scenarios[i].as_str()))
                .copied()
        })
    };
    Ok(Charts {
        rate_kind,
        rate_chart,
        grid_branch,
        grid,
    })
}

/// Pass rates per environment over the window, for the environments runs named.
pub(super) async fn environment_rates(
    state: &AppState,
    project: &Project,
    since: &str,
) -> Result<Vec<(String, i64, i64, i64)>, PageError> {
    let rows = state
        .store
        .pass_rates(project.id, Grouping::Environment, since)
        .await?;
    let mut out: Vec<(String, i64, i64, i64)> = Vec::new();
    for r in rows {
        let name = r.key.unwrap_or_else(|| "(none named)".into());
        match out.iter_mut().find(|e| e.0 == name) {
            Some(e) => {
                e.1 += r.passed;
                e.2 += r.total;
            }
            None => out.push((name, r.passed, r.total, 0)),
        }
    }
    for e in &mut out {
        e.3 = if e.2 > 0 { 100 * e.1 / e.2 } else { 0 };
    }
    // Only worth a table when some run named an environment.
    if out.iter().all(|e| e.0 == "(none named)") {
        out.clear();
    }
    Ok(out)
}
