//! LLM spend: per day, per provider and model, and per run, in calls and tokens as well as
//! dollars, so a local model at $0 shows as the work it did. Ledger records of replays (no
//! provider, no call) are counted apart, never as a provider of their own.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::{Path, State};
use axum::response::IntoResponse;
use windup_model::money::usd;

use super::access::{Access, project_of};
use super::error::PageResult;
use super::layout::Layout;
use super::project::chart_days;
use super::runs::{RunView, run_view};
use super::session::Person;
use crate::AppState;
use crate::access::Role;
use crate::store::{RunFilter, SpendRow};
use crate::svg;

/// One day's use, every model together.
struct DayView {
    day: String,
    calls: i64,
    input_tokens: i64,
    output_tokens: i64,
    cost: String,
    /// `openai/gpt-4.1-mini 3 calls, local/qwen 10 calls`.
    models: String,
}

struct ModelTotal {
    provider: String,
    model: String,
    calls: i64,
    input_tokens: i64,
    output_tokens: i64,
    cost: String,
}

#[derive(Template, WebTemplate)]
#[template(path = "spend.html")]
struct SpendPage {
    layout: Layout,
    slug: String,
    tab: &'static str,
    total: String,
    calls: i64,
    tokens: i64,
    /// Scenario runs that replayed a cached plan with no call.
    replays: i64,
    chart: String,
    models: Vec<ModelTotal>,
    days: Vec<DayView>,
    runs: Vec<RunView>,
}

fn money(micro: i64) -> String {
    usd(u64::try_from(micro).unwrap_or(0))
}

/// A record with no call and no cost: a replay, not a use of any model.
fn is_replay(r: &SpendRow) -> bool {
    r.calls == 0 && r.cost_micro_usd == 0
}

pub(super) async fn spend_page(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
) -> PageResult {
    let Access { project, layout } = project_of(&state, &person, &slug, Role::Viewer).await?;
    let window = chart_days();
    let rows = state.store.spend(project.id, &window[0]).await?;
    let replays = rows.iter().filter(|r| is_replay(r)).count() as i64;
    let used: Vec<&SpendRow> = rows.iter().filter(|r| !is_replay(r)).collect();
    let mut models: Vec<(String, String, [i64; 4])> = Vec::new();
    let mut days: Vec<(String, [i64; 4], Vec<String>)> = Vec::new();
    // Saturating: a rollup holds up to 10^18, and a stored total from before ingest bounded
    // costs may be near i64::MAX.
    let add = |sum: &mut [i64; 4], r: &SpendRow| {
        for (s, n) in
            sum.iter_mut()
                .zip([r.calls, r.input_tokens, r.output_tokens, r.cost_micro_usd])
        {
            *s = s.saturating_add(n);
        }
    };
    for r in &used {
        let provider = r.provider.clone().unwrap_or_else(|| "(unnamed)".into());
        let model = r.model.clone().unwrap_or_else(|| "(unnamed)".into());
        match models.iter_mut().find(|m| m.0 == provider && m.1 == model) {
            Some(m) => add(&mut m.2, r),
            None => {
                let mut sum = [0; 4];
                add(&mut sum, r);
                models.push((provider.clone(), model.clone(), sum));
            }
        }
        let index = match days.iter().position(|d| d.0 == r.day) {
            Some(i) => i,
            None => {
                days.push((r.day.clone(), [0; 4], Vec::new()));
                days.len() - 1
            }
        };
        add(&mut days[index].1, r);
        days[index]
            .2
            .push(format!("{provider}/{model} {} calls", r.calls));
    }
    // Rows come newest day first; the chart reads oldest first.
    let bars: Vec<(String, i64, String)> = days
        .iter()
        .rev()
        .map(|(day, sum, _)| {
            (
                day.clone(),
                sum[0],
                format!(
                    "{} calls · {} tokens · {}",
                    sum[0],
                    sum[1].saturating_add(sum[2]),
                    money(sum[3])
                ),
            )
        })
        .collect();
    let total = models.iter().fold([0i64; 4], |mut t, m| {
        for (a, b) in t.iter_mut().zip(m.2) {
            *a = a.saturating_add(b);
        }
        t
    });
    let runs = state
        .store
        .runs(
            project.id,
            &RunFilter {
                limit: 50,
                ..RunFilter::default()
            },
        )
        .await?;
    let page = SpendPage {
        layout,
        slug: slug.clone(),
        tab: "spend",
        total: money(total[3]),
        calls: total[0],
        tokens: total[1].saturating_add(total[2]),
        replays,
        chart: if bars.is_empty() {
            String::new()
        } else {
            svg::bar_chart(&bars)
        },
        models: models
            .into_iter()
            .map(|(provider, model, sum)| ModelTotal {
                provider,
                model,
                calls: sum[0],
                input_tokens: sum[1],
                output_tokens: sum[2],
                cost: money(sum[3]),
            })
            .collect(),
        days: days
            .into_iter()
            .map(|(day, sum, models)| DayView {
                day,
                calls: sum[0],
                input_tokens: sum[1],
                output_tokens: sum[2],
                cost: money(sum[3]),
                models: models.join(", "),
            })
            .collect(),
        runs: runs.iter().map(|r| run_view(&slug, r)).collect(),
    };
    Ok(page.into_response())
}
