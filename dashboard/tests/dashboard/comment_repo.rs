//! Issue 16, finding 1, replayed against the fake GitHub: the comment's repository is the
//! project's setting, an upload's repository is only compared with it, and the bot edits only
//! comments its own identity wrote.

use axum::http::StatusCode;
use serde_json::{Value, json};
use windup_dashboard::{GithubAuth, admin};

use crate::common::{Dash, hidden_csrf};
use crate::fake_github::{
    APP_SLUG, BOT_USER, FakeGithub, Mode, comment_status, dash_for, dash_with, pr_run, start,
};

fn for_repo(run_id: &str, repo: &str) -> Value {
    let mut body = pr_run(run_id, &format!("wf-{run_id}"), false);
    body["pull_request"]["repo"] = json!(repo);
    body
}

async fn upload(dash: &Dash, token: &str, body: &Value) -> axum_test::TestResponse {
    dash.server
        .post("/api/v1/runs")
        .authorization_bearer(token)
        .json(body)
        .await
}

fn requests(fake: &FakeGithub) -> Vec<String> {
    fake.state.lock().unwrap().paths()
}

#[tokio::test]
async fn an_ingest_token_cannot_make_the_bot_post_to_an_unrelated_repository() {
    let fake = start(Mode::Ok).await;
    let (dash, token) = dash_for(&fake).await;
    // The project comments on octo/shop; the upload names a stranger's repository.
    let r = upload(&dash, &token, &for_repo("r-1", "victim/other")).await;
    assert_eq!(
        r.status_code(),
        StatusCode::CREATED,
        "the run itself is kept"
    );
    let status = comment_status(&dash, "r-1").await;
    assert_eq!(
        status,
        "skipped: the upload names the repository `victim/other`, not the project's `octo/shop`"
    );
    // Another project's repository is as foreign.
    let beta = dash.project("beta").await;
    admin::set_repo(&*dash.state.store, &beta, "octo/beta")
        .await
        .unwrap();
    upload(&dash, &token, &for_repo("r-2", "octo/beta")).await;
    assert!(comment_status(&dash, "r-2").await.starts_with("skipped"));
    // A project with no repository set posts nothing, whatever its uploads name.
    let gamma = dash.project("gamma").await;
    let gamma_token = dash.token("gamma", &["ingest"], None).await;
    let r = upload(&dash, &gamma_token, &for_repo("r-3", "octo/shop")).await;
    assert_eq!(r.status_code(), StatusCode::CREATED);
    let run = dash
        .state
        .store
        .run(gamma.id, "r-3")
        .await
        .unwrap()
        .unwrap();
    assert!(
        run.summary
            .comment_status
            .as_deref()
            .is_some_and(|s| s.starts_with("skipped: the project has no GitHub repository")),
        "{:?}",
        run.summary.comment_status
    );
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(
        requests(&fake).is_empty(),
        "nothing reached GitHub: {:?}",
        requests(&fake)
    );
    // The project's own repository, in any case, is commented on under the setting's name.
    upload(&dash, &token, &for_repo("r-4", "OCTO/Shop")).await;
    assert_eq!(
        comment_status(&dash, "r-4").await,
        "created comment on octo/shop#12"
    );
    let paths = requests(&fake);
    assert!(
        paths
            .iter()
            .all(|p| p.ends_with(" /user") || p.contains(" /repos/octo/shop/issues/")),
        "{paths:?}"
    );
}

#[tokio::test]
async fn a_repo_of_dot_dots_never_reaches_a_github_api_path() {
    let fake = start(Mode::Ok).await;
    let (dash, token) = dash_for(&fake).await;
    for repo in [
        "../..",
        "octo/..",
        "../shop",
        "octo/shop/../../x",
        "octo/%2e%2e",
    ] {
        let r = upload(&dash, &token, &for_repo("r-dots", repo)).await;
        assert_eq!(r.status_code(), StatusCode::UNPROCESSABLE_ENTITY, "{repo}");
        assert_eq!(r.json::<Value>()["error"]["code"], "invalid_pull_request");
    }
    // Nor can it become the setting, by any road.
    let project = dash.state.store.project("acme").await.unwrap().unwrap();
    let refused = admin::set_repo(&*dash.state.store, &project, "../..").await;
    assert_eq!(refused.unwrap_err().code, "invalid_repo");
    let (session, csrf) = dash.sign_in().await;
    let r = dash
        .server
        .post("/p/acme/repo")
        .add_header("cookie", session)
        .form(&[("repo", "../.."), ("csrf", csrf.as_str())])
        .await;
    assert_eq!(r.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
    let project = dash.state.store.project("acme").await.unwrap().unwrap();
    assert_eq!(project.github_repo.as_deref(), Some("octo/shop"));
    // A setting written behind the dashboard's back is checked again before any use.
    dash.state
        .store
        .set_project_repo(project.id, Some("../.."))
        .await
        .unwrap();
    let r = upload(&dash, &token, &for_repo("r-5", "octo/shop")).await;
    assert_eq!(r.status_code(), StatusCode::CREATED);
    assert!(
        comment_status(&dash, "r-5")
            .await
            .starts_with("skipped: the project's GitHub repository setting is invalid"),
    );
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(requests(&fake).is_empty(), "{:?}", requests(&fake));
}

#[tokio::test]
async fn another_users_comment_containing_the_marker_is_never_edited() {
    let fake = start(Mode::Ok).await;
    fake.state
        .lock()
        .unwrap()
        .seed(5, 12, "mallory", "<!-- windup:acme --> click here");
    let (dash, token) = dash_for(&fake).await;
    upload(&dash, &token, &pr_run("r-1", "wf-1", false)).await;
    assert_eq!(
        comment_status(&dash, "r-1").await,
        "created comment on octo/shop#12",
        "a comment of its own is made beside mallory's"
    );
    upload(&dash, &token, &pr_run("r-2", "wf-2", true)).await;
    assert_eq!(
        comment_status(&dash, "r-2").await,
        "updated comment on octo/shop#12"
    );
    let f = fake.state.lock().unwrap();
    let mallory = f.comments.iter().find(|c| c.id == 5).unwrap();
    assert_eq!(mallory.body, "<!-- windup:acme --> click here");
    let ours: Vec<_> = f.comments.iter().filter(|c| c.author == BOT_USER).collect();
    assert_eq!(ours.len(), 1, "{:?}", f.comments);
    assert!(ours[0].body.contains("<!-- windup:acme -->"));
    assert!(
        !f.paths().iter().any(|p| p.ends_with("/issues/comments/5")),
        "{:?}",
        f.paths()
    );
}

/// A fresh RSA key as GitHub hands an app its key (PKCS#1 PEM).
fn app_key() -> String {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("app.pem");
    let out = std::process::Command::new("openssl")
        .args([
            "genrsa",
            "-traditional",
            "-out",
            key.to_str().unwrap(),
            "2048",
        ])
        .output()
        .expect("openssl (scripts/install-deps.sh installs it)");
    assert!(out.status.success());
    std::fs::read_to_string(&key).unwrap()
}

#[tokio::test]
async fn a_github_app_edits_only_its_own_bot_comments() {
    let fake = start(Mode::Ok).await;
    {
        let mut f = fake.state.lock().unwrap();
        // A user named like the app (no `[bot]`: only GitHub can give that suffix), and a
        // user who copied the marker.
        f.seed(5, 12, APP_SLUG, "<!-- windup:acme --> squatter");
        f.seed(6, 12, BOT_USER, "<!-- windup:acme --> not the app's");
    }
    let auth = GithubAuth::App {
        app_id: 7,
        private_key_pem: app_key(),
    };
    let (dash, token) = dash_with(&fake, auth).await;
    upload(&dash, &token, &pr_run("r-1", "wf-1", false)).await;
    assert_eq!(
        comment_status(&dash, "r-1").await,
        "created comment on octo/shop#12"
    );
    upload(&dash, &token, &pr_run("r-2", "wf-2", true)).await;
    assert_eq!(
        comment_status(&dash, "r-2").await,
        "updated comment on octo/shop#12"
    );
    let f = fake.state.lock().unwrap();
    assert_eq!(f.comments[0].body, "<!-- windup:acme --> squatter");
    assert_eq!(f.comments[1].body, "<!-- windup:acme --> not the app's");
    let ours: Vec<_> = f
        .comments
        .iter()
        .filter(|c| c.author == format!("{APP_SLUG}[bot]"))
        .collect();
    assert_eq!(ours.len(), 1, "{:?}", f.comments);
    assert!(ours[0].body.contains("cart"), "updated to the latest run");
}

#[tokio::test]
async fn a_token_whose_owner_github_will_not_name_edits_nothing() {
    let fake = start(Mode::Ok).await;
    fake.state
        .lock()
        .unwrap()
        .seed(5, 12, BOT_USER, "<!-- windup:acme --> earlier");
    // An installation token as WINDUP_GITHUB_TOKEN: `GET /user` answers 403.
    let (dash, token) = dash_with(&fake, GithubAuth::Token("ghs_installation_token".into())).await;
    upload(&dash, &token, &pr_run("r-1", "wf-1", false)).await;
    let status = comment_status(&dash, "r-1").await;
    assert!(
        status.starts_with("failed: GitHub answered 403") && status.contains("GET /user"),
        "{status}"
    );
    let f = fake.state.lock().unwrap();
    assert_eq!(
        f.paths(),
        ["GET /user"],
        "nothing listed, created or edited"
    );
    assert_eq!(f.comments.len(), 1);
}

#[tokio::test]
async fn the_project_page_sets_the_repository_with_a_csrf_token() {
    let dash = Dash::new().await;
    dash.project("acme").await;
    let (session, csrf) = dash.sign_in().await;
    let page = dash
        .server
        .get("/p/acme")
        .add_header("cookie", session.clone())
        .await;
    assert!(page.text().contains("action=\"/p/acme/repo\""));
    assert_eq!(hidden_csrf(&page.text()), csrf);
    let stored = || async {
        dash.state
            .store
            .project("acme")
            .await
            .unwrap()
            .unwrap()
            .github_repo
    };
    let no_csrf = dash
        .server
        .post("/p/acme/repo")
        .add_header("cookie", session.clone())
        .form(&[("repo", "octo/shop")])
        .await;
    assert_eq!(no_csrf.status_code(), StatusCode::FORBIDDEN);
    assert_eq!(stored().await, None);
    let set = dash
        .server
        .post("/p/acme/repo")
        .add_header("cookie", session.clone())
        .form(&[("repo", " octo/shop "), ("csrf", csrf.as_str())])
        .await;
    assert_eq!(set.status_code(), StatusCode::SEE_OTHER);
    assert_eq!(stored().await.as_deref(), Some("octo/shop"));
    let page = dash
        .server
        .get("/p/acme")
        .add_header("cookie", session.clone())
        .await;
    assert!(page.text().contains("value=\"octo/shop\""));
    let bad = dash
        .server
        .post("/p/acme/repo")
        .add_header("cookie", session.clone())
        .form(&[("repo", "octo/<script>"), ("csrf", csrf.as_str())])
        .await;
    assert_eq!(bad.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.text().contains("is not a GitHub repository name"));
    assert!(
        !bad.text().contains("<script>"),
        "the refused name is escaped"
    );
    assert_eq!(stored().await.as_deref(), Some("octo/shop"));
    let cleared = dash
        .server
        .post("/p/acme/repo")
        .add_header("cookie", session)
        .form(&[("repo", ""), ("csrf", csrf.as_str())])
        .await;
    assert_eq!(cleared.status_code(), StatusCode::SEE_OTHER);
    assert_eq!(stored().await, None);
}
