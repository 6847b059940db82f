//! LLM spend: per day, per provider and model, and per run.

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
use crate::store::RunFilter;
use crate::svg;

struct SpendView {
    day: String,
    provider: String,
    model: String,
    calls: i64,
    input_tokens: i64,
    output_tokens: i64,
    cost: String,
}

struct ModelTotal {
    provider: String,
    model: String,
    calls: i64,
    cost: String,
}

#[derive(Template, WebTemplate)]
#[template(path = "spend.html")]
struct SpendPage {
    layout: Layout,
    slug: String,
    tab: &'static str,
    total: String,
    chart: String,
    models: Vec<ModelTotal>,
    rows: Vec<SpendView>,
    runs: Vec<RunView>,
}

fn money(micro: i64) -> String {
    usd(u64::try_from(micro).unwrap_or(0))
}

pub(super) async fn spend_page(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
) -> PageResult {
    let Access { project, layout } = project_of(&state, &person, &slug, Role::Viewer).await?;
    let days = chart_days();
    let rows = state.store.spend(project.id, &days[0]).await?;
    let mut per_day: Vec<(String, i64, String)> =
        days.iter().map(|d| (d.clone(), 0, String::new())).collect();
    let mut models: Vec<(String, String, i64, i64)> = Vec::new();
    let mut total = 0i64;
    for r in &rows {
        // Saturating: a rollup holds up to 10^18, and a stored total from before ingest
        // bounded costs may be near i64::MAX.
        if let Some(d) = per_day.iter_mut().find(|d| d.0 == r.day) {
            d.1 = d.1.saturating_add(r.cost_micro_usd);
        }
        let provider = r
            .provider
            .clone()
            .unwrap_or_else(|| "(none: replay)".into());
        let model = r.model.clone().unwrap_or_else(|| "(none)".into());
        match models.iter_mut().find(|m| m.0 == provider && m.1 == model) {
            Some(m) => {
                m.2 = m.2.saturating_add(r.calls);
                m.3 = m.3.saturating_add(r.cost_micro_usd);
            }
            None => models.push((provider, model, r.calls, r.cost_micro_usd)),
        }
        total = total.saturating_add(r.cost_micro_usd);
    }
    for d in &mut per_day {
        d.2 = money(d.1);
    }
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
        total: money(total),
        chart: svg::bar_chart(&per_day),
        models: models
            .into_iter()
            .map(|(provider, model, calls, cost)| ModelTotal {
                provider,
                model,
                calls,
                cost: money(cost),
            })
            .collect(),
        rows: rows
            .into_iter()
            .map(|r| SpendView {
                day: r.day,
                provider: r.provider.unwrap_or_default(),
                model: r.model.unwrap_or_default(),
                calls: r.calls,
                input_tokens: r.input_tokens,
                output_tokens: r.output_tokens,
                cost: money(r.cost_micro_usd),
            })
            .collect(),
        runs: runs.iter().map(|r| run_view(&slug, r)).collect(),
    };
    Ok(page.into_response())
}
