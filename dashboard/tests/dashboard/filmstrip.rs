//! A run pushed with a trace (`windup run --trace`): its JPEG frames are accepted as artifacts,
//! served as JPEG, and the run page shows the filmstrip (picture, target box, URL, timings) within
//! the CSP.

use axum::http::StatusCode;
use serde_json::json;

use crate::common::{Dash, png, report, today};

fn jpeg() -> Vec<u8> {
    let mut bytes = b"\xff\xd8\xff\xe0".to_vec();
    bytes.extend_from_slice(b"not really pixels, but the signature is what the API checks");
    bytes
}

#[tokio::test]
async fn a_pushed_trace_shows_as_a_filmstrip_on_the_run_page() {
    let dash = Dash::new().await;
    dash.project("acme").await;
    let token = dash.token("acme", &["ingest"], None).await;
    let mut body = json!({
        "report": report("run-trace", "main", "c1", &[("cart", "failed", false)]),
        "ledger": [],
        "pull_request": null
    });
    body["report"]["started_at"] = json!(today(0));
    let frame = |n: u32, url: &str| {
        json!({
            "url": url,
            "screenshot": format!("e2e/.windup/runs/run-trace/cart.trace-0{n}.jpg"),
            "viewport": {"x": 0, "y": 0, "width": 1280, "height": 800},
            "target_box": {"x": 473, "y": 265, "width": 334, "height": 44}
        })
    };
    let actions = &mut body["report"]["scenarios"][0]["actions"];
    actions[0]["trace"] = frame(1, "http://localhost:3000/settings");
    actions[1]["trace"] = frame(2, "http://localhost:3000/settings?tab=2");
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&body)
        .await;
    assert!(r.status_code().is_success(), "{}", r.text());
    let put = |name: &'static str, content_type: &'static str, bytes: Vec<u8>| {
        dash.server
            .put(&format!("/api/v1/runs/run-trace/artifacts/{name}"))
            .authorization_bearer(&token)
            .content_type(content_type)
            .bytes(bytes.into())
    };
    // Only the first frame's picture arrives; a PNG sent as JPEG is refused.
    assert_eq!(
        put("cart.trace-01.jpg", "image/jpeg", jpeg())
            .await
            .status_code(),
        StatusCode::CREATED
    );
    assert_eq!(
        put("cart.trace-02.jpg", "image/jpeg", png())
            .await
            .status_code(),
        StatusCode::UNPROCESSABLE_ENTITY
    );

    let (session, _) = dash.sign_in().await;
    let page = dash
        .server
        .get("/p/acme/runs/run-trace")
        .add_header("cookie", session.clone())
        .await;
    assert_eq!(page.status_code(), StatusCode::OK);
    let html = page.text();
    let film = &html[html.find("<ol class=\"film\">").expect("a filmstrip")..];
    let film = &film[..film.find("</ol>").unwrap()];
    assert_eq!(film.matches("<li ").count(), 2, "{film}");
    assert!(film.contains("data-step=\"s1\""), "{film}");
    assert!(
        film.contains("<image href=\"/p/acme/runs/run-trace/artifacts/cart.trace-01.jpg\""),
        "{film}"
    );
    assert!(
        film.contains("<rect class=\"target\" x=\"473\" y=\"265\" width=\"334\" height=\"44\""),
        "{film}"
    );
    assert!(film.contains("viewBox=\"0 0 1280 800\""), "{film}");
    assert!(
        film.contains("http://localhost:3000/settings?tab=2"),
        "{film}"
    );
    assert!(
        film.contains("wait 800 ms · act 50 ms · verify 50 ms"),
        "{film}"
    );
    // The second picture never arrived: its frame says so, with no broken image.
    assert_eq!(film.matches("<image ").count(), 1, "{film}");
    assert!(film.contains("the screenshot was not uploaded"), "{film}");
    // Nothing inline for the CSP to block.
    assert!(!film.contains("style="), "{film}");

    let picture = dash
        .server
        .get("/p/acme/runs/run-trace/artifacts/cart.trace-01.jpg")
        .add_header("cookie", session)
        .await;
    assert_eq!(picture.status_code(), StatusCode::OK);
    assert_eq!(picture.header("content-type"), "image/jpeg");
    assert_eq!(picture.as_bytes().to_vec(), jpeg());
}
