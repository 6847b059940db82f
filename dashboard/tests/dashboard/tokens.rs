//! Tokens that can be taken back (issue 16, finding 3), on SQLite and PostgreSQL: listed with
//! what they may do and when they were used, revoked and expiring through the API, the tokens
//! page and the CLI; a revoked or expired token is refused on its very next request.

use std::time::Duration;

use axum::http::StatusCode;
use serde_json::{Value, json};
use windup_dashboard::secret;
use windup_dashboard::store::NewToken;
use windup_dashboard::time::now_ms;

use crate::common::{Backend, Dash, cli, error_code, hidden_csrf, postgres_url, report};

fn upload(run_id: &str) -> Value {
    json!({"report": report(run_id, "main", "c1", &[("login", "passed", false)]),
           "ledger": [], "pull_request": null})
}

async fn push(dash: &Dash, token: &str, run_id: &str) -> axum_test::TestResponse {
    dash.server
        .post("/api/v1/runs")
        .authorization_bearer(token)
        .json(&upload(run_id))
        .await
}

async fn revoked_and_expired_tokens_get_401_at_once(backend: Backend) {
    let dash = Dash::on(backend).await;
    dash.project("acme").await;
    let admin = dash.token("acme", &["admin"], None).await;
    // A CI token with a name and a lifetime, through the API.
    let made = dash
        .server
        .post("/api/v1/projects/acme/tokens")
        .authorization_bearer(&admin)
        .json(
            &json!({"scopes": ["ingest"], "name": "github-actions", "expires_in": "90d",
                      "branch": "feature/*"}),
        )
        .await;
    assert_eq!(made.status_code(), StatusCode::CREATED, "{}", made.text());
    let made: Value = made.json();
    let ci = made["token"].as_str().unwrap().to_string();
    assert_eq!(made["name"], "github-actions");
    let expires = time::OffsetDateTime::parse(
        made["expires_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let days = (expires - time::OffsetDateTime::now_utc()).whole_hours();
    assert!((89 * 24..=90 * 24).contains(&days), "{made}");
    assert_eq!(
        push(&dash, &ci, "r-1").await.status_code(),
        StatusCode::CREATED
    );

    // Listed: name, scopes, branches, created, last used, expiry, state; never the token.
    let list = dash
        .server
        .get("/api/v1/projects/acme/tokens")
        .authorization_bearer(&admin)
        .await;
    assert_eq!(list.status_code(), StatusCode::OK);
    let text = list.text();
    assert!(
        !text.contains(&ci) && !text.contains(&secret::sha256_hex(&ci)),
        "{text}"
    );
    let list: Value = list.json();
    let tokens = list["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 2);
    let entry = tokens.iter().find(|t| t["id"] == made["id"]).unwrap();
    assert_eq!(entry["name"], "github-actions");
    assert_eq!(entry["scopes"], json!(["ingest"]));
    assert_eq!(entry["branch"], "feature/*");
    assert_eq!(entry["state"], "active");
    assert_eq!(entry["expires_at"], made["expires_at"]);
    assert!(entry["created_at"].as_str().unwrap().ends_with('Z'));
    assert!(
        entry["last_used_at"].is_string(),
        "the push was recorded: {entry}"
    );
    assert_eq!(entry["revoked_at"], Value::Null);

    // Revoked: the very next request is refused.
    let id = made["id"].as_i64().unwrap();
    let revoked = dash
        .server
        .delete(&format!("/api/v1/projects/acme/tokens/{id}"))
        .authorization_bearer(&admin)
        .await;
    assert_eq!(revoked.status_code(), StatusCode::OK);
    assert_eq!(revoked.json::<Value>()["state"], "revoked");
    let refused = push(&dash, &ci, "r-2").await;
    assert_eq!(refused.status_code(), StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&refused.json()), "token_revoked");
    let cache = dash
        .server
        .get("/api/v1/cache/login?start_url=/&scenario_sha=x")
        .authorization_bearer(&ci)
        .await;
    assert_eq!(cache.status_code(), StatusCode::UNAUTHORIZED);
    let missing = dash
        .server
        .delete("/api/v1/projects/acme/tokens/999999")
        .authorization_bearer(&admin)
        .await;
    assert_eq!(missing.status_code(), StatusCode::NOT_FOUND);

    // Expired: accepted up to its expiry, refused right after.
    let project = dash.state.store.project("acme").await.unwrap().unwrap();
    let short = format!("wdp_{}", secret::random_hex());
    let hash = secret::sha256_hex(&short);
    dash.state
        .store
        .create_token(
            project.id,
            &NewToken {
                lookup: secret::lookup(&hash),
                sha256: &hash,
                scopes: "ingest",
                branch_glob: None,
                name: "short-lived",
                expires_ms: Some(now_ms() + 1500),
                created_ms: now_ms(),
            },
        )
        .await
        .unwrap();
    assert_eq!(
        push(&dash, &short, "r-3").await.status_code(),
        StatusCode::CREATED
    );
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let expired = push(&dash, &short, "r-4").await;
    assert_eq!(expired.status_code(), StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&expired.json()), "token_expired");
    let states: Vec<Value> = dash
        .server
        .get("/api/v1/projects/acme/tokens")
        .authorization_bearer(&admin)
        .await
        .json::<Value>()["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["state"].clone())
        .collect();
    assert_eq!(
        states,
        [json!("active"), json!("revoked"), json!("expired")]
    );

    // Bad lifetimes and names are named.
    for (body, code) in [
        (
            json!({"scopes": ["ingest"], "expires_in": "forever"}),
            "invalid_expires_in",
        ),
        (
            json!({"scopes": ["ingest"], "expires_in": "0d"}),
            "invalid_expires_in",
        ),
        (
            json!({"scopes": ["ingest"], "name": "a\nb"}),
            "invalid_name",
        ),
    ] {
        let r = dash
            .server
            .post("/api/v1/projects/acme/tokens")
            .authorization_bearer(&admin)
            .json(&body)
            .await;
        assert_eq!(r.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(error_code(&r.json()), code);
    }
}

#[tokio::test]
async fn revoked_and_expired_tokens_get_401_at_once_sqlite() {
    revoked_and_expired_tokens_get_401_at_once(Backend::Sqlite).await;
}

#[tokio::test]
async fn revoked_and_expired_tokens_get_401_at_once_postgres() {
    revoked_and_expired_tokens_get_401_at_once(Backend::Postgres).await;
}

async fn the_tokens_page_lists_and_revokes(backend: Backend) {
    let dash = Dash::on(backend).await;
    dash.project("acme").await;
    let (session, csrf) = dash.sign_in().await;
    let made = dash
        .server
        .post("/p/acme/tokens")
        .add_header("cookie", session.clone())
        .form(&[
            ("csrf", csrf.as_str()),
            ("name", "nightly <b>"),
            ("scope", "ingest"),
            ("expires_in", "30d"),
        ])
        .await;
    assert_eq!(made.status_code(), StatusCode::OK, "{}", made.text());
    let html = made.text();
    let start = html.find("wdp_").expect("the new token is shown once");
    let token = html[start..start + 68].to_string();
    assert!(html.contains("nightly &#60;b&#62;") || html.contains("nightly &lt;b&gt;"));
    assert_eq!(
        push(&dash, &token, "r-1").await.status_code(),
        StatusCode::CREATED
    );
    let page = dash
        .server
        .get("/p/acme/tokens")
        .add_header("cookie", session.clone())
        .await
        .text();
    assert!(!page.contains(&token));
    let project = dash.state.store.project("acme").await.unwrap().unwrap();
    let id = dash.state.store.tokens(project.id).await.unwrap()[0].id;
    let row = page
        .split("<tr")
        .find(|row| row.contains("nightly &#60;b&#62;") || row.contains("nightly &lt;b&gt;"))
        .unwrap_or_else(|| panic!("the token is listed: {page}"));
    assert!(
        row.contains("<code>ingest</code>") && row.contains("<td>active</td>"),
        "{row}"
    );
    assert!(
        !row.contains("never"),
        "last used and expiry are shown: {row}"
    );
    assert!(row.contains("Revoke"), "{row}");
    let forged = dash
        .server
        .post(&format!("/p/acme/tokens/{id}/revoke"))
        .add_header("cookie", session.clone())
        .form(&[("csrf", "0".repeat(64).as_str())])
        .await;
    assert_eq!(
        forged.status_code(),
        StatusCode::FORBIDDEN,
        "CSRF is checked"
    );
    assert_eq!(
        push(&dash, &token, "r-2").await.status_code(),
        StatusCode::CREATED
    );
    let revoked = dash
        .server
        .post(&format!("/p/acme/tokens/{id}/revoke"))
        .add_header("cookie", session.clone())
        .form(&[("csrf", hidden_csrf(&page).as_str())])
        .await;
    assert_eq!(revoked.status_code(), StatusCode::OK);
    assert!(revoked.text().contains("<td>revoked</td>"));
    let refused = push(&dash, &token, "r-3").await;
    assert_eq!(refused.status_code(), StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&refused.json()), "token_revoked");
}

#[tokio::test]
async fn the_tokens_page_lists_and_revokes_sqlite() {
    the_tokens_page_lists_and_revokes(Backend::Sqlite).await;
}

#[tokio::test]
async fn the_tokens_page_lists_and_revokes_postgres() {
    the_tokens_page_lists_and_revokes(Backend::Postgres).await;
}

async fn the_cli_creates_lists_and_revokes(database: String) {
    let (code, _, err) = cli(&database, &["project", "create", "shop"]);
    assert_eq!(code, 0, "{err}");
    let (code, token, err) = cli(
        &database,
        &[
            "token",
            "create",
            "shop",
            "--scope",
            "ingest",
            "--name",
            "ci",
            "--expires-in",
            "90d",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("expires 2"), "{err}");
    let token = token.trim().to_string();
    assert!(token.starts_with("wdp_"));
    let (code, _, err) = cli(
        &database,
        &[
            "token",
            "create",
            "shop",
            "--scope",
            "ingest",
            "--expires-in",
            "1y",
        ],
    );
    assert_eq!(code, 2, "a bad lifetime is bad input");
    assert!(err.contains("12h, 90d or 2w"), "{err}");
    let (code, table, _) = cli(&database, &["token", "list", "shop"]);
    assert_eq!(code, 0);
    assert!(!table.contains(&token), "the list never shows a token");
    let line = table
        .lines()
        .find(|l| l.contains(" ci "))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(
        line.contains("ingest") && line.ends_with("active"),
        "{line}"
    );
    let id = line.split_whitespace().next().unwrap().to_string();
    let (code, out, err) = cli(&database, &["token", "revoke", "shop", &id]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("revoked token"));
    let (_, table, _) = cli(&database, &["token", "list", "shop"]);
    assert!(
        table
            .lines()
            .any(|l| l.starts_with(&id) && l.ends_with("revoked")),
        "{table}"
    );
    let (code, _, _) = cli(&database, &["token", "revoke", "shop", "999999"]);
    assert_eq!(code, 2, "no such token");
    let (code, _, _) = cli(&database, &["token", "list", "nope"]);
    assert_eq!(code, 2, "no such project");
    // The revoked token is refused by a dashboard on the same database.
    let store = windup_dashboard::store::open(&database).await.unwrap();
    let dash = Dash::with_store(store).await;
    let refused = push(&dash, &token, "r-1").await;
    assert_eq!(refused.status_code(), StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&refused.json()), "token_revoked");
}

#[tokio::test]
async fn the_cli_creates_lists_and_revokes_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("d.db").to_str().unwrap().to_string();
    the_cli_creates_lists_and_revokes(db).await;
}

#[tokio::test]
async fn the_cli_creates_lists_and_revokes_postgres() {
    the_cli_creates_lists_and_revokes(postgres_url().await).await;
}
