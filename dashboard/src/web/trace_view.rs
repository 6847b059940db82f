//! A scenario's trace, one frame at a time: the picture as large as the page allows (or at
//! twice that, zoomed), the target's box over it, and beside it the step, its URL, its status
//! and its timings; the other frames as a strip to jump to. Every frame is its own address
//! (`?frame=N`), so the previous and next links work without script; `static/trace.js` adds
//! the keys (← → step, + − zoom, Home End) within the CSP.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::{Path, Query, State};
use axum::response::IntoResponse;
use serde::Deserialize;

use super::access::{Access, project_of};
use super::error::{PageResult, not_found};
use super::filmstrip::{FrameView, frames};
use super::layout::Layout;
use super::session::Person;
use crate::AppState;
use crate::access::Role;

#[derive(Deserialize)]
pub(super) struct FrameQuery {
    #[serde(default)]
    frame: Option<usize>,
    #[serde(default)]
    zoom: Option<u8>,
}

#[derive(Template, WebTemplate)]
#[template(path = "trace.html")]
struct TracePage {
    layout: Layout,
    slug: String,
    tab: &'static str,
    run_id: String,
    run_url: String,
    scenario_id: String,
    frames: Vec<FrameView>,
    /// The frame shown, 0-based.
    at: usize,
    zoom: bool,
    /// `?frame=N` of the previous and next frames, empty at the ends.
    prev: String,
    next: String,
    zoom_url: String,
}

pub(super) async fn trace_page(
    State(state): State<AppState>,
    person: Person,
    Path((slug, run_id, scenario_id)): Path<(String, String, String)>,
    Query(q): Query<FrameQuery>,
) -> PageResult {
    let Access { project, layout } = project_of(&state, &person, &slug, Role::Viewer).await?;
    let (_run, report) = super::run_detail::stored_run(&state, project.id, &run_id).await?;
    let scenario = report
        .scenarios
        .iter()
        .find(|s| s.scenario_id == scenario_id)
        .ok_or_else(|| not_found("scenario in this run"))?;
    let names = state.store.artifact_names(project.id, &run_id).await?;
    let frames = frames(&slug, &run_id, scenario, &names);
    if frames.is_empty() {
        return Err(not_found("trace of this scenario"));
    }
    let at = q.frame.unwrap_or(0).min(frames.len() - 1);
    let zoom = q.zoom == Some(2);
    let link = |n: usize, zoom: bool| format!("?frame={n}{}", if zoom { "&zoom=2" } else { "" });
    Ok(TracePage {
        layout,
        tab: "runs",
        run_url: format!("/p/{slug}/runs/{run_id}#s-{scenario_id}"),
        prev: if at > 0 {
            link(at - 1, zoom)
        } else {
            String::new()
        },
        next: if at + 1 < frames.len() {
            link(at + 1, zoom)
        } else {
            String::new()
        },
        zoom_url: link(at, !zoom),
        slug,
        run_id,
        scenario_id,
        frames,
        at,
        zoom,
    }
    .into_response())
}
