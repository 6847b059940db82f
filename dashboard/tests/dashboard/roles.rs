//! Roles (issue 16, finding 6), on SQLite and PostgreSQL: owners manage a project's tokens and
//! people, viewers read its pages, people without a role do not see it; no token creates
//! projects and an `admin` token reaches only its own project; instance administrators create
//! projects. And the upgrade: a database from before roles, with people and tokens, keeps
//! working after the migrations, everyone an owner of every project and every token as it was.

use axum::http::StatusCode;
use serde_json::json;
use windup_dashboard::access::Role;
use windup_dashboard::admin::{self, Added};
use windup_dashboard::secret;
use windup_dashboard::store;

use crate::common::{Backend, Dash, PASSWORD, cli, error_code, postgres_url};

async fn a_viewer_cannot_mint_tokens_and_strangers_see_nothing(backend: Backend) {
    let dash = Dash::on(backend).await;
    let acme = dash.project("acme").await;
    let store = &*dash.state.store;
    admin::create_user(store, "olga@example.com", PASSWORD)
        .await
        .unwrap();
    assert_eq!(
        admin::add_person(store, &acme, "olga@example.com", Role::Owner)
            .await
            .unwrap(),
        Added::Member
    );
    admin::create_user(store, "vic@example.com", PASSWORD)
        .await
        .unwrap();
    admin::add_person(store, &acme, "vic@example.com", Role::Viewer)
        .await
        .unwrap();

    // The viewer reads the pages, and is refused every owner's page and form.
    let (vic, vic_csrf) = dash.sign_in_as("vic@example.com").await;
    let get = |path: &str, cookie: &str| {
        dash.server
            .get(path)
            .add_header("cookie", cookie.to_string())
    };
    let home = get("/", &vic).await.text();
    assert!(home.contains("href=\"/p/acme\""), "{home}");
    assert!(
        !home.contains("New project"),
        "only instance administrators create projects"
    );
    let page = get("/p/acme", &vic).await;
    assert_eq!(page.status_code(), StatusCode::OK);
    assert!(
        !page.text().contains("/p/acme/tokens"),
        "no tokens tab for a viewer"
    );
    for path in [
        "/p/acme/flaky",
        "/p/acme/spend",
        "/p/acme/stale",
        "/p/acme/runs",
    ] {
        assert_eq!(
            get(path, &vic).await.status_code(),
            StatusCode::OK,
            "{path}"
        );
    }
    for path in ["/p/acme/tokens", "/p/acme/people"] {
        assert_eq!(
            get(path, &vic).await.status_code(),
            StatusCode::FORBIDDEN,
            "{path}"
        );
    }
    let mint = dash
        .server
        .post("/p/acme/tokens")
        .add_header("cookie", vic.clone())
        .form(&[("csrf", vic_csrf.as_str()), ("scope", "admin")])
        .await;
    assert_eq!(mint.status_code(), StatusCode::FORBIDDEN);
    assert!(!mint.text().contains("wdp_"));
    assert!(
        store.tokens(acme.id).await.unwrap().is_empty(),
        "no token was made"
    );
    let promote = dash
        .server
        .post("/p/acme/people")
        .add_header("cookie", vic.clone())
        .form(&[
            ("csrf", vic_csrf.as_str()),
            ("email", "vic@example.com"),
            ("role", "owner"),
        ])
        .await;
    assert_eq!(promote.status_code(), StatusCode::FORBIDDEN);
    assert_eq!(
        store
            .role(acme.id, user_id(&dash, "vic@example.com").await)
            .await
            .unwrap()
            .as_deref(),
        Some("viewer")
    );
    let create = dash
        .server
        .post("/projects")
        .add_header("cookie", vic.clone())
        .form(&[("csrf", vic_csrf.as_str()), ("slug", "mine")])
        .await;
    assert_eq!(create.status_code(), StatusCode::FORBIDDEN);
    assert!(store.project("mine").await.unwrap().is_none());

    // Someone with no role does not see the project at all.
    let (nora, _) = dash.sign_in_as("nora@example.com").await;
    assert!(!get("/", &nora).await.text().contains("/p/acme"));
    for path in [
        "/p/acme",
        "/p/acme/tokens",
        "/p/acme/runs/r-1",
        "/p/acme/stale",
    ] {
        assert_eq!(
            get(path, &nora).await.status_code(),
            StatusCode::NOT_FOUND,
            "{path}"
        );
    }

    // The owner mints tokens and manages people; the last owner stays.
    let (olga, olga_csrf) = dash.sign_in_as("olga@example.com").await;
    let page = get("/p/acme", &olga).await.text();
    assert!(page.contains("/p/acme/tokens") && page.contains("/p/acme/people"));
    let mint = dash
        .server
        .post("/p/acme/tokens")
        .add_header("cookie", olga.clone())
        .form(&[("csrf", olga_csrf.as_str()), ("scope", "ingest")])
        .await;
    assert_eq!(mint.status_code(), StatusCode::OK);
    assert!(mint.text().contains("wdp_"));
    let invite = dash
        .server
        .post("/p/acme/people")
        .add_header("cookie", olga.clone())
        .form(&[
            ("csrf", olga_csrf.as_str()),
            ("email", "New@Example.com"),
            ("role", "viewer"),
        ])
        .await;
    assert_eq!(invite.status_code(), StatusCode::OK);
    assert!(invite.text().contains("invited"), "{}", invite.text());
    for path in [
        "/p/acme/people",
        "/p/acme/people/remove",
        "/p/acme/people/teams",
    ] {
        let forged = dash
            .server
            .post(path)
            .add_header("cookie", olga.clone())
            .form(&[
                ("email", "vic@example.com"),
                ("role", "owner"),
                ("team", "a/b"),
            ])
            .await;
        assert_eq!(
            forged.status_code(),
            StatusCode::FORBIDDEN,
            "{path} checks CSRF"
        );
    }
    assert_eq!(
        store
            .role(acme.id, user_id(&dash, "vic@example.com").await)
            .await
            .unwrap()
            .as_deref(),
        Some("viewer")
    );
    let leave = dash
        .server
        .post("/p/acme/people/remove")
        .add_header("cookie", olga.clone())
        .form(&[("csrf", olga_csrf.as_str()), ("email", "olga@example.com")])
        .await;
    assert_eq!(leave.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(leave.text().contains("only owner"));
    let demote = dash
        .server
        .post("/p/acme/people")
        .add_header("cookie", olga.clone())
        .form(&[
            ("csrf", olga_csrf.as_str()),
            ("email", "olga@example.com"),
            ("role", "viewer"),
        ])
        .await;
    assert_eq!(demote.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
    let remove = dash
        .server
        .post("/p/acme/people/remove")
        .add_header("cookie", olga.clone())
        .form(&[("csrf", olga_csrf.as_str()), ("email", "vic@example.com")])
        .await;
    assert_eq!(remove.status_code(), StatusCode::OK);
    assert_eq!(
        get("/p/acme", &vic).await.status_code(),
        StatusCode::NOT_FOUND,
        "at once"
    );
    // The invitation becomes a role when the account is made.
    admin::create_user(store, "new@example.com", PASSWORD)
        .await
        .unwrap();
    let (new, _) = dash.sign_in_as("new@example.com").await;
    assert_eq!(get("/p/acme", &new).await.status_code(), StatusCode::OK);
    assert!(store.invitations(acme.id).await.unwrap().is_empty());
    let people = get("/p/acme/people", &olga).await.text();
    assert!(people.contains("new@example.com") && !people.contains("vic@example.com"));
}

async fn user_id(dash: &Dash, email: &str) -> i64 {
    dash.state.store.user(email).await.unwrap().unwrap().id
}

#[tokio::test]
async fn a_viewer_cannot_mint_tokens_and_strangers_see_nothing_sqlite() {
    a_viewer_cannot_mint_tokens_and_strangers_see_nothing(Backend::Sqlite).await;
}

#[tokio::test]
async fn a_viewer_cannot_mint_tokens_and_strangers_see_nothing_postgres() {
    a_viewer_cannot_mint_tokens_and_strangers_see_nothing(Backend::Postgres).await;
}

async fn an_admin_token_of_project_a_cannot_create_projects_or_touch_b(backend: Backend) {
    let dash = Dash::on(backend).await;
    dash.project("a").await;
    let b = dash.project("b").await;
    let admin_a = dash.token("a", &["admin"], None).await;
    let ingest_b = dash.token("b", &["ingest"], None).await;
    let b_token_id = dash.state.store.tokens(b.id).await.unwrap()[0].id;
    let created = dash
        .server
        .post("/api/v1/projects")
        .authorization_bearer(&admin_a)
        .json(&json!({"slug": "c"}))
        .await;
    assert_eq!(created.status_code(), StatusCode::FORBIDDEN);
    assert_eq!(error_code(&created.json()), "instance_admin_only");
    assert!(dash.state.store.project("c").await.unwrap().is_none());
    let mint_b = dash
        .server
        .post("/api/v1/projects/b/tokens")
        .authorization_bearer(&admin_a)
        .json(&json!({"scopes": ["admin"]}))
        .await;
    assert_eq!(mint_b.status_code(), StatusCode::FORBIDDEN);
    assert_eq!(error_code(&mint_b.json()), "other_project");
    let list_b = dash
        .server
        .get("/api/v1/projects/b/tokens")
        .authorization_bearer(&admin_a)
        .await;
    assert_eq!(list_b.status_code(), StatusCode::FORBIDDEN);
    let revoke_b = dash
        .server
        .delete(&format!("/api/v1/projects/b/tokens/{b_token_id}"))
        .authorization_bearer(&admin_a)
        .await;
    assert_eq!(revoke_b.status_code(), StatusCode::FORBIDDEN);
    // Revoking B's token id through A's own path finds nothing: ids do not cross projects.
    let sideways = dash
        .server
        .delete(&format!("/api/v1/projects/a/tokens/{b_token_id}"))
        .authorization_bearer(&admin_a)
        .await;
    assert_eq!(sideways.status_code(), StatusCode::NOT_FOUND);
    assert_eq!(
        dash.state.store.tokens(b.id).await.unwrap()[0].revoked_ms,
        None
    );
    assert_eq!(dash.state.store.tokens(b.id).await.unwrap().len(), 1);
    let report = crate::common::report("r-1", "main", "c1", &[("login", "passed", false)]);
    let push = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&ingest_b)
        .json(&json!({"report": report, "ledger": [], "pull_request": null}))
        .await;
    assert_eq!(
        push.status_code(),
        StatusCode::CREATED,
        "B's token still works"
    );
    // Its own project it still manages.
    let mint_a = dash
        .server
        .post("/api/v1/projects/a/tokens")
        .authorization_bearer(&admin_a)
        .json(&json!({"scopes": ["ingest"]}))
        .await;
    assert_eq!(mint_a.status_code(), StatusCode::CREATED);
}

#[tokio::test]
async fn an_admin_token_of_project_a_cannot_create_projects_or_touch_b_sqlite() {
    an_admin_token_of_project_a_cannot_create_projects_or_touch_b(Backend::Sqlite).await;
}

#[tokio::test]
async fn an_admin_token_of_project_a_cannot_create_projects_or_touch_b_postgres() {
    an_admin_token_of_project_a_cannot_create_projects_or_touch_b(Backend::Postgres).await;
}

#[tokio::test]
async fn instance_administrators_create_projects_and_own_every_one() {
    let dash = Dash::new().await;
    dash.project("old").await;
    let (ada, csrf) = dash.sign_in().await;
    let home = dash
        .server
        .get("/")
        .add_header("cookie", ada.clone())
        .await
        .text();
    assert!(home.contains("New project") && home.contains("/p/old"));
    let made = dash
        .server
        .post("/projects")
        .add_header("cookie", ada.clone())
        .form(&[("csrf", csrf.as_str()), ("slug", "shop")])
        .await;
    assert_eq!(made.status_code(), StatusCode::SEE_OTHER);
    let shop = dash.state.store.project("shop").await.unwrap().unwrap();
    let members = dash.state.store.members(shop.id).await.unwrap();
    assert_eq!(members.len(), 1);
    assert_eq!(
        (members[0].email.as_str(), members[0].role.as_str()),
        ("ada@example.com", "owner")
    );
    let tokens = dash
        .server
        .get("/p/old/tokens")
        .add_header("cookie", ada)
        .await;
    assert_eq!(
        tokens.status_code(),
        StatusCode::OK,
        "an administrator owns every project"
    );
}

async fn the_cli_administers_people(database: String) {
    let run = |args: &[&str]| cli(&database, args);
    let (code, _, err) = run(&[
        "user",
        "create",
        "root@example.com",
        "--password-env",
        "WINDUP_TEST_PASSWORD",
        "--admin",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&["project", "create", "shop", "--owner", "Root@Example.com"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, _) = run(&[
        "project",
        "create",
        "other",
        "--owner",
        "nobody@example.com",
    ]);
    assert_eq!(code, 2, "the owner must have an account");
    let (code, out, _) = run(&[
        "people",
        "add",
        "shop",
        "vic@example.com",
        "--role",
        "viewer",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("invited"), "{out}");
    let (code, _, _) = run(&[
        "user",
        "create",
        "vic@example.com",
        "--password-env",
        "WINDUP_TEST_PASSWORD",
    ]);
    assert_eq!(code, 0);
    let (_, list, _) = run(&["people", "list", "shop"]);
    assert_eq!(list, "root@example.com  owner\nvic@example.com  viewer\n");
    let (code, _, _) = run(&["people", "add", "shop", "vic@example.com", "--role", "king"]);
    assert_eq!(code, 2);
    let (code, _, err) = run(&["people", "remove", "shop", "root@example.com"]);
    assert_eq!(code, 2, "the last owner stays");
    assert!(err.contains("only owner"), "{err}");
    let (code, _, _) = run(&["people", "remove", "shop", "vic@example.com"]);
    assert_eq!(code, 0);
    let (code, _, _) = run(&["user", "admin", "vic@example.com"]);
    assert_eq!(code, 0);
    let (_, users, _) = run(&["user", "list"]);
    assert!(users.lines().all(|l| l.ends_with("admin")), "{users}");
    let (code, _, _) = run(&["user", "admin", "vic@example.com", "--remove"]);
    assert_eq!(code, 0);
    let (_, users, _) = run(&["user", "list"]);
    let vic = users.lines().find(|l| l.starts_with("vic@")).unwrap();
    assert!(!vic.ends_with("admin"), "{users}");
    let (code, _, _) = run(&["user", "admin", "ghost@example.com"]);
    assert_eq!(code, 2);
}

#[tokio::test]
async fn the_cli_administers_people_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    the_cli_administers_people(dir.path().join("d.db").to_str().unwrap().into()).await;
}

#[tokio::test]
async fn the_cli_administers_people_postgres() {
    the_cli_administers_people(postgres_url().await).await;
}

/// People and tokens as a dashboard from before roles and token expiry stored them (schema
/// version 2), with the tokens: (project a's admin token, project b's ingest token).
fn seed_before_roles(hash: &str) -> (String, String, String) {
    let admin_a = secret::new_project_token();
    let ingest_b = secret::new_project_token();
    let token_row = |project: i64, token: &str, scopes: &str| {
        let sha = secret::sha256_hex(token);
        format!(
            "INSERT INTO tokens (project_id, lookup, sha256, scopes, branch_glob, created_ms) \
             VALUES ({project}, '{}', '{sha}', '{scopes}', NULL, 1);",
            secret::lookup(&sha)
        )
    };
    let sql = format!(
        "INSERT INTO projects (slug, default_branch, created_ms) VALUES ('a', 'main', 1);
         INSERT INTO projects (slug, default_branch, created_ms) VALUES ('b', 'main', 2);
         INSERT INTO users (email, password_hash, created_ms) VALUES ('ada@example.com', '{hash}', 3);
         INSERT INTO users (email, password_hash, created_ms) VALUES ('bob@example.com', '{hash}', 4);
         {} {}",
        token_row(1, &admin_a, "admin"),
        token_row(2, &ingest_b, "ingest cache:read")
    );
    (sql, admin_a, ingest_b)
}

async fn an_upgraded_database_keeps_its_people_and_tokens(url: &str) {
    let dash = Dash::with_store(store::open(url).await.expect("the migrations run")).await;
    let st = &*dash.state.store;
    let a = st.project("a").await.unwrap().unwrap();
    let b = st.project("b").await.unwrap().unwrap();
    for email in ["ada@example.com", "bob@example.com"] {
        let id = st.user(email).await.unwrap().unwrap().id;
        for p in [&a, &b] {
            assert_eq!(
                st.role(p.id, id).await.unwrap().as_deref(),
                Some("owner"),
                "{email} in {}",
                p.slug
            );
        }
    }
    // People sign in as before and manage both projects.
    let (bob, _) = dash.sign_in_as("bob@example.com").await;
    let home = dash
        .server
        .get("/")
        .add_header("cookie", bob.clone())
        .await
        .text();
    assert!(home.contains("/p/a") && home.contains("/p/b"));
    let tokens = dash
        .server
        .get("/p/b/tokens")
        .add_header("cookie", bob)
        .await;
    assert_eq!(tokens.status_code(), StatusCode::OK);
    assert!(tokens.text().contains("ingest cache:read"));
}

async fn tokens_after_upgrade(url: &str, admin_a: &str, ingest_b: &str) {
    let dash = Dash::with_store(store::open(url).await.unwrap()).await;
    // The admin token keeps its scope within its project, and only there.
    let list = dash
        .server
        .get("/api/v1/projects/a/tokens")
        .authorization_bearer(admin_a)
        .await;
    assert_eq!(list.status_code(), StatusCode::OK);
    let listed: serde_json::Value = list.json();
    assert_eq!(listed["tokens"][0]["state"], "active");
    assert_eq!(listed["tokens"][0]["expires_at"], serde_json::Value::Null);
    let other = dash
        .server
        .get("/api/v1/projects/b/tokens")
        .authorization_bearer(admin_a)
        .await;
    assert_eq!(other.status_code(), StatusCode::FORBIDDEN);
    let project = dash
        .server
        .post("/api/v1/projects")
        .authorization_bearer(admin_a)
        .json(&json!({"slug": "c"}))
        .await;
    assert_eq!(project.status_code(), StatusCode::FORBIDDEN);
    // The ingest token still pushes to its project.
    let report = crate::common::report("r-1", "main", "c1", &[("login", "passed", false)]);
    let push = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(ingest_b)
        .json(&json!({"report": report, "ledger": [], "pull_request": null}))
        .await;
    assert_eq!(push.status_code(), StatusCode::CREATED, "{}", push.text());
    let cache = dash
        .server
        .get("/api/v1/cache/login?start_url=/&scenario_sha=x")
        .authorization_bearer(ingest_b)
        .await;
    assert_eq!(
        cache.status_code(),
        StatusCode::NOT_FOUND,
        "cache:read kept: a miss, not a refusal"
    );
}

#[tokio::test]
async fn an_upgraded_sqlite_database_keeps_its_people_and_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&path)
        .create_if_missing(true);
    let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
    crate::common::sqlx_reads("sqlite")
        .await
        .run_to(2, &pool)
        .await
        .unwrap();
    let (sql, admin_a, ingest_b) =
        seed_before_roles(&windup_dashboard::argon::hash_blocking(PASSWORD).unwrap());
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let url = path.to_str().unwrap();
    an_upgraded_database_keeps_its_people_and_tokens(url).await;
    tokens_after_upgrade(url, &admin_a, &ingest_b).await;
}

#[tokio::test]
async fn an_upgraded_postgres_database_keeps_its_people_and_tokens() {
    let url = postgres_url().await;
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    crate::common::sqlx_reads("postgres")
        .await
        .run_to(2, &pool)
        .await
        .unwrap();
    let (sql, admin_a, ingest_b) =
        seed_before_roles(&windup_dashboard::argon::hash_blocking(PASSWORD).unwrap());
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    an_upgraded_database_keeps_its_people_and_tokens(&url).await;
    tokens_after_upgrade(&url, &admin_a, &ingest_b).await;
}
