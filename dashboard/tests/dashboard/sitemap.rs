//! The shared site map (`GET`/`PUT /api/v1/sitemap?branch=`): merged fact by fact by source
//! precedence, branch-scoped like the plan cache, on both backends.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::common::{Backend, Dash, error_code};

fn page(route: &str, source: &str, title: &str, seen: u64) -> Value {
    json!({"route": route, "source": source, "title": title, "seen": seen})
}

fn map(pages: Vec<Value>, edges: Vec<Value>) -> Value {
    json!({"map_version": "0.1", "generation": 1, "pages": pages, "edges": edges})
}

async fn site_maps_merge_by_precedence_per_branch(backend: Backend) {
    let dash = Dash::on(backend).await;
    dash.project("acme").await;
    let ci = dash
        .token("acme", &["cache:read", "cache:write"], None)
        .await;
    let put = |branch: &str, body: Value| {
        dash.server
            .put(&format!("/api/v1/sitemap?branch={branch}"))
            .authorization_bearer(&ci)
            .json(&body)
    };
    let get = |branch: &str| {
        dash.server
            .get(&format!("/api/v1/sitemap?branch={branch}"))
            .authorization_bearer(&ci)
    };
    // Nothing stored yet: an empty map.
    let empty: Value = get("main").await.json();
    assert_eq!(empty["pages"], json!([]));
    // The scan's facts, then a run's: execution outranks static, whatever the order.
    let r = put(
        "main",
        map(
            vec![
                page("/settings/billing", "static", "from the scan", 0),
                page("/projects/:id", "static", "Project", 0),
            ],
            vec![json!({"from": "/projects/:id", "to": "/settings/billing", "via": "link", "source": "static"})],
        ),
    )
    .await;
    assert_eq!(r.status_code(), StatusCode::OK);
    assert_eq!(r.json::<Value>()["pages"], json!(2));
    put(
        "main",
        map(
            vec![page("/settings/billing", "execution", "Billing", 1)],
            vec![],
        ),
    )
    .await;
    put(
        "main",
        map(
            vec![page("/settings/billing", "static", "stale scan", 0)],
            vec![],
        ),
    )
    .await;
    let main: Value = get("main").await.json();
    let billing = &main["pages"][1];
    assert_eq!(billing["route"], json!("/settings/billing"));
    assert_eq!(billing["source"], json!("execution"));
    assert_eq!(billing["title"], json!("Billing"));
    assert_eq!(main["edges"].as_array().unwrap().len(), 1);
    // A branch's map: its own facts over the default branch's; main never sees them.
    put(
        "feature/x",
        map(vec![page("/reports", "execution", "Reports", 2)], vec![]),
    )
    .await;
    let branch: Value = get("feature/x").await.json();
    let routes: Vec<&str> = branch["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["route"].as_str().unwrap())
        .collect();
    assert_eq!(routes, ["/projects/:id", "/reports", "/settings/billing"]);
    let main: Value = get("main").await.json();
    assert_eq!(main["pages"].as_array().unwrap().len(), 2);
    // A route that is not a path, an unknown version, no branch: refused, nothing stored.
    let bad = put(
        "main",
        map(vec![page("settings", "execution", "x", 1)], vec![]),
    )
    .await;
    assert_eq!(bad.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_code(&bad.json()), "invalid_route");
    let version = put("main", json!({"map_version": "9"})).await;
    assert_eq!(version.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
    let no_branch = dash
        .server
        .put("/api/v1/sitemap")
        .authorization_bearer(&ci)
        .json(&map(vec![], vec![]))
        .await;
    assert_eq!(no_branch.status_code(), StatusCode::BAD_REQUEST);
    assert_eq!(get("main").await.json::<Value>(), main);
}

async fn a_token_bound_to_a_branch_writes_only_its_map(backend: Backend) {
    let dash = Dash::on(backend).await;
    dash.project("acme").await;
    let pr = dash
        .token("acme", &["cache:read", "cache:write"], Some("feature/x"))
        .await;
    let r = dash
        .server
        .put("/api/v1/sitemap?branch=main")
        .authorization_bearer(&pr)
        .json(&map(vec![page("/x", "execution", "X", 1)], vec![]))
        .await;
    assert_eq!(r.status_code(), StatusCode::FORBIDDEN);
    let r = dash
        .server
        .put("/api/v1/sitemap?branch=feature/x")
        .authorization_bearer(&pr)
        .json(&map(vec![page("/x", "execution", "X", 1)], vec![]))
        .await;
    assert_eq!(r.status_code(), StatusCode::OK);
}

on_both_backends!(
    site_maps_merge_by_precedence_per_branch,
    a_token_bound_to_a_branch_writes_only_its_map
);
