//! Sign-in with GitHub end to end against a fake GitHub speaking the OAuth web flow's and the
//! user API's wire format: a wrong or missing state is refused before the code is used, an
//! account is linked only by an email GitHub has verified (or made for an owner's invitation
//! of one), and a team mapping gives a role while the person is in the team.

use axum::http::StatusCode;
use axum_test::TestResponse;
use windup_dashboard::access::Role;
use windup_dashboard::admin;
use windup_dashboard::oauth::GithubSignIn;

use crate::common::{Backend, Dash, PASSWORD, set_cookie_header, set_cookie_pair};
use crate::fake_github_oauth::{
    self as fake, CLIENT_ID, CLIENT_SECRET, FakeGithub, GhUser, get_location,
};

async fn dash_with_github(backend: Backend) -> (Dash, FakeGithub) {
    let github = fake::start().await;
    let app = GithubSignIn {
        client_id: CLIENT_ID.into(),
        client_secret: CLIENT_SECRET.into(),
        web_url: github.base.clone(),
        api_url: github.base.clone(),
    };
    let dash = Dash::start(backend, None, |state| state.with_github_sign_in(app)).await;
    (dash, github)
}

fn user(id: i64, login: &str, emails: &[(&str, bool, bool)]) -> GhUser {
    GhUser {
        id,
        login: login.into(),
        emails: emails
            .iter()
            .map(|(e, p, v)| (e.to_string(), *p, *v))
            .collect(),
        teams: Vec::new(),
    }
}

/// The dashboard's address for GitHub's redirect back, as the dashboard's router takes it.
fn local(url: &str) -> String {
    let url = url::Url::parse(url).unwrap();
    assert_eq!(
        url.origin().ascii_serialization(),
        "http://dash.test",
        "{url}"
    );
    format!("{}?{}", url.path(), url.query().unwrap_or(""))
}

/// Starts a sign-in: the state cookie and the callback GitHub sends the browser back to.
async fn authorise(dash: &Dash) -> (String, String) {
    let start = dash.server.get("/auth/github").await;
    assert_eq!(start.status_code(), StatusCode::SEE_OTHER);
    let state_cookie = set_cookie_pair(&start, "windup_github_state");
    let (status, back) = get_location(start.header("location").to_str().unwrap()).await;
    assert_eq!(status, 302, "the fake GitHub sends the browser back");
    (state_cookie, local(&back))
}

/// A whole sign-in with GitHub as the browser would make it.
async fn sign_in_with_github(dash: &Dash) -> TestResponse {
    let (state_cookie, callback) = authorise(dash).await;
    dash.server
        .get(&callback)
        .add_header("cookie", state_cookie)
        .await
}

fn session_of(response: &TestResponse) -> String {
    assert_eq!(
        response.status_code(),
        StatusCode::SEE_OTHER,
        "{}",
        response.text()
    );
    assert_eq!(response.header("location"), "/");
    set_cookie_pair(response, "windup_session")
}

async fn state_is_checked_and_a_verified_email_links_the_account(backend: Backend) {
    let (dash, github) = dash_with_github(backend).await;
    let store = &*dash.state.store;
    let acme = dash.project("acme").await;
    admin::create_user(store, "ada@example.com", PASSWORD)
        .await
        .unwrap();
    admin::add_person(store, &acme, "ada@example.com", Role::Owner)
        .await
        .unwrap();
    github.set_user(user(1001, "ada-gh", &[("Ada@Example.com", true, true)]));
    let login = dash.server.get("/login").await.text();
    assert!(login.contains("href=\"/auth/github\""), "{login}");

    // The redirect to GitHub carries the app, the callback, the scopes and a fresh state.
    let start = dash.server.get("/auth/github").await;
    let to = url::Url::parse(start.header("location").to_str().unwrap()).unwrap();
    assert_eq!(to.path(), "/login/oauth/authorize");
    let query: std::collections::HashMap<_, _> = to.query_pairs().into_owned().collect();
    assert_eq!(query["client_id"], CLIENT_ID);
    assert_eq!(
        query["redirect_uri"],
        "http://dash.test/auth/github/callback"
    );
    assert_eq!(
        query["scope"], "read:user user:email",
        "no read:org without a team mapping"
    );
    let cookie = set_cookie_header(&start, "windup_github_state");
    assert!(cookie.starts_with(&format!("windup_github_state={}", query["state"])));
    for attribute in [
        "HttpOnly",
        "SameSite=Lax",
        "Secure",
        "Path=/auth/github",
        "Max-Age=600",
    ] {
        assert!(
            cookie.contains(attribute),
            "{attribute} missing from {cookie}"
        );
    }
    assert_eq!(query["state"].len(), 64);

    // A callback with someone else's state (login CSRF), or none, is refused before the code
    // is exchanged.
    let (state_cookie, callback) = authorise(&dash).await;
    let forged = callback.replace(
        &callback[callback.find("state=").unwrap() + 6..],
        &"0".repeat(64),
    );
    let r = dash
        .server
        .get(&forged)
        .add_header("cookie", state_cookie.clone())
        .await;
    assert_eq!(r.status_code(), StatusCode::FORBIDDEN);
    assert!(r.text().contains("not started here"));
    let r = dash.server.get(&callback).await;
    assert_eq!(r.status_code(), StatusCode::FORBIDDEN, "no state cookie");
    assert!(
        r.maybe_header("set-cookie")
            .is_none_or(|c| !c.to_str().unwrap().contains("windup_session"))
    );
    assert_eq!(github.token_exchanges(), 0, "no code was exchanged");

    // The real callback: the code exchanged (JSON asked for), the user and emails read.
    let r = dash
        .server
        .get(&callback)
        .add_header("cookie", state_cookie.clone())
        .await;
    let session = session_of(&r);
    let home = dash
        .server
        .get("/")
        .add_header("cookie", session)
        .await
        .text();
    assert!(
        home.contains("/p/acme") && home.contains("ada@example.com"),
        "{home}"
    );
    assert_eq!(
        store
            .user("ada@example.com")
            .await
            .unwrap()
            .unwrap()
            .github_id,
        Some(1001)
    );
    {
        let fake = github.state.lock().unwrap();
        let exchange = fake
            .requests
            .iter()
            .find(|r| r.1 == "/login/oauth/access_token")
            .unwrap();
        assert!(
            exchange.2.contains("application/json"),
            "Accept: {}",
            exchange.2
        );
        assert!(
            exchange.4.contains(CLIENT_SECRET)
                && exchange.4.contains("http://dash.test/auth/github/callback")
        );
        let user_read = fake.requests.iter().find(|r| r.1 == "/user").unwrap();
        assert!(user_read.3.starts_with("Bearer gho_"), "{}", user_read.3);
    }
    // The same code and state again: the state was spent, so the code is not even tried.
    let again = dash
        .server
        .get(&callback)
        .add_header("cookie", state_cookie)
        .await;
    assert_eq!(again.status_code(), StatusCode::FORBIDDEN);
    assert!(again.text().contains("not started here"));
    assert_eq!(github.token_exchanges(), 1);

    // Linked by GitHub's id from now on, whatever the emails become.
    github.set_user(user(
        1001,
        "ada-renamed",
        &[("ada@elsewhere.test", true, true)],
    ));
    let r = sign_in_with_github(&dash).await;
    let session = session_of(&r);
    let home = dash
        .server
        .get("/")
        .add_header("cookie", session)
        .await
        .text();
    assert!(home.contains("ada@example.com"));
}

#[tokio::test]
async fn state_is_checked_and_a_verified_email_links_the_account_sqlite() {
    state_is_checked_and_a_verified_email_links_the_account(Backend::Sqlite).await;
}

#[tokio::test]
async fn state_is_checked_and_a_verified_email_links_the_account_postgres() {
    state_is_checked_and_a_verified_email_links_the_account(Backend::Postgres).await;
}

/// The review's attack: a state that already answered a callback, replayed with its own cookie
/// and a fresh code GitHub would accept (a captured callback URL and cookie, or a second tab).
/// Refused before the code is exchanged; a state whose callback failed is spent too, and one
/// past its ten minutes is refused.
async fn a_state_answers_one_callback_only(backend: Backend) {
    let (dash, github) = dash_with_github(backend).await;
    let store = &*dash.state.store;
    let acme = dash.project("acme").await;
    admin::create_user(store, "ada@example.com", PASSWORD)
        .await
        .unwrap();
    admin::add_person(store, &acme, "ada@example.com", Role::Owner)
        .await
        .unwrap();
    github.set_user(user(1001, "ada-gh", &[("ada@example.com", true, true)]));
    let start = dash.server.get("/auth/github").await;
    let cookie = set_cookie_pair(&start, "windup_github_state");
    let authorize = start.header("location").to_str().unwrap().to_string();
    let (_, back) = get_location(&authorize).await;
    session_of(
        &dash
            .server
            .get(&local(&back))
            .add_header("cookie", cookie.clone())
            .await,
    );
    assert_eq!(github.token_exchanges(), 1);
    // GitHub gives a fresh, good code for the same state; the replay carries the cookie.
    let (_, replay) = get_location(&authorize).await;
    assert_ne!(replay, back, "a different code");
    let r = dash
        .server
        .get(&local(&replay))
        .add_header("cookie", cookie.clone())
        .await;
    assert_eq!(r.status_code(), StatusCode::FORBIDDEN);
    assert!(r.text().contains("not started here"), "{}", r.text());
    assert_eq!(
        github.token_exchanges(),
        1,
        "the fresh code was never exchanged"
    );

    // A callback that failed (the person declined) spends its state as well.
    let start = dash.server.get("/auth/github").await;
    let cookie = set_cookie_pair(&start, "windup_github_state");
    let authorize = start.header("location").to_str().unwrap().to_string();
    let state_value = url::Url::parse(&authorize)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "state")
        .unwrap()
        .1
        .into_owned();
    let declined = dash
        .server
        .get(&format!(
            "/auth/github/callback?error=access_denied&state={state_value}"
        ))
        .add_header("cookie", cookie.clone())
        .await;
    assert!(declined.text().contains("did not authorise"));
    let (_, late) = get_location(&authorize).await;
    let r = dash
        .server
        .get(&local(&late))
        .add_header("cookie", cookie)
        .await;
    assert_eq!(r.status_code(), StatusCode::FORBIDDEN);
    assert_eq!(github.token_exchanges(), 1);

    // The store's side: once, and not after it expires.
    store.create_oauth_state("h1", 100, 1).await.unwrap();
    assert!(store.take_oauth_state("h1", 50).await.unwrap());
    assert!(!store.take_oauth_state("h1", 50).await.unwrap());
    store.create_oauth_state("h2", 100, 1).await.unwrap();
    assert!(!store.take_oauth_state("h2", 101).await.unwrap());
}

#[tokio::test]
async fn a_state_answers_one_callback_only_sqlite() {
    a_state_answers_one_callback_only(Backend::Sqlite).await;
}

#[tokio::test]
async fn a_state_answers_one_callback_only_postgres() {
    a_state_answers_one_callback_only(Backend::Postgres).await;
}

#[tokio::test]
async fn unverified_emails_link_nothing() {
    let (dash, github) = dash_with_github(Backend::Sqlite).await;
    let store = &*dash.state.store;
    let acme = dash.project("acme").await;
    admin::create_user(store, "ada@example.com", PASSWORD)
        .await
        .unwrap();
    admin::add_person(store, &acme, "ada@example.com", Role::Owner)
        .await
        .unwrap();
    admin::add_person(store, &acme, "invited@example.com", Role::Viewer)
        .await
        .unwrap();
    // Anyone can add an address to their GitHub account; only a verified one counts.
    github.set_user(user(
        6666,
        "mallory",
        &[
            ("ada@example.com", true, false),
            ("invited@example.com", false, false),
            ("mallory@evil.test", false, true),
        ],
    ));
    let r = sign_in_with_github(&dash).await;
    assert_eq!(r.status_code(), StatusCode::FORBIDDEN);
    assert!(
        r.text()
            .contains("invite one of your verified GitHub emails"),
        "{}",
        r.text()
    );
    assert!(
        r.iter_headers_by_name("set-cookie")
            .all(|c| !c.to_str().unwrap().starts_with("windup_session=")),
        "no session"
    );
    assert_eq!(
        store
            .user("ada@example.com")
            .await
            .unwrap()
            .unwrap()
            .github_id,
        None
    );
    assert!(store.user("invited@example.com").await.unwrap().is_none());
    assert!(store.user("mallory@evil.test").await.unwrap().is_none());
}

#[tokio::test]
async fn an_owners_invitation_makes_an_account_for_the_verified_email() {
    let (dash, github) = dash_with_github(Backend::Sqlite).await;
    let store = &*dash.state.store;
    let acme = dash.project("acme").await;
    assert_eq!(
        admin::add_person(store, &acme, "New@Example.com", Role::Viewer)
            .await
            .unwrap(),
        admin::Added::Invited
    );
    github.set_user(user(
        2002,
        "newbie",
        &[
            ("newbie@personal.test", true, true),
            ("new@example.com", false, true),
        ],
    ));
    let session = session_of(&sign_in_with_github(&dash).await);
    let page = dash
        .server
        .get("/p/acme")
        .add_header("cookie", session.clone())
        .await;
    assert_eq!(page.status_code(), StatusCode::OK);
    let tokens = dash
        .server
        .get("/p/acme/tokens")
        .add_header("cookie", session)
        .await;
    assert_eq!(tokens.status_code(), StatusCode::FORBIDDEN, "a viewer");
    let account = store.user("new@example.com").await.unwrap().unwrap();
    assert_eq!(account.github_id, Some(2002));
    assert!(account.password_hash.is_empty(), "no local password");
    assert!(store.invitations(acme.id).await.unwrap().is_empty());
    // Such an account cannot sign in with a password, not even an empty one.
    let login = dash.server.get("/login").await;
    let cookie = set_cookie_pair(&login, "windup_login_csrf");
    let csrf = cookie.split_once('=').unwrap().1.to_string();
    for password in ["", "anything at all"] {
        let r = dash
            .server
            .post("/login")
            .add_header("cookie", cookie.clone())
            .form(&[
                ("email", "new@example.com"),
                ("password", password),
                ("csrf", csrf.as_str()),
            ])
            .await;
        assert_eq!(r.status_code(), StatusCode::UNAUTHORIZED);
    }
}

async fn status(dash: &Dash, path: &str, session: String) -> StatusCode {
    dash.server
        .get(path)
        .add_header("cookie", session)
        .await
        .status_code()
}

async fn a_team_mapping_gives_the_role_while_in_the_team(backend: Backend) {
    let (dash, github) = dash_with_github(backend).await;
    let store = &*dash.state.store;
    let acme = dash.project("acme").await;
    admin::map_team(store, &acme, "Acme-Inc/qa", Role::Viewer)
        .await
        .unwrap();
    admin::map_team(store, &acme, "acme-inc/leads", Role::Owner)
        .await
        .unwrap();
    let mut tess = user(3003, "tess", &[("tess@example.com", true, true)]);
    tess.teams = vec![("acme-inc".into(), "qa".into(), "active".into())];
    github.set_user(tess.clone());
    let session = session_of(&sign_in_with_github(&dash).await);
    assert_eq!(
        github.state.lock().unwrap().scopes.last().unwrap(),
        "read:user user:email read:org",
        "team memberships need read:org"
    );
    assert_eq!(
        status(&dash, "/p/acme", session.clone()).await,
        StatusCode::OK
    );
    assert_eq!(
        status(&dash, "/p/acme/tokens", session).await,
        StatusCode::FORBIDDEN,
        "qa are viewers"
    );
    let tess_id = store.user("tess@example.com").await.unwrap().unwrap().id;
    assert_eq!(
        store.membership(acme.id, tess_id).await.unwrap(),
        Some(("viewer".into(), Some("acme-inc/qa".into())))
    );
    // In the leads team too: the higher role.
    tess.teams
        .push(("acme-inc".into(), "leads".into(), "active".into()));
    github.set_user(tess.clone());
    let session = session_of(&sign_in_with_github(&dash).await);
    assert_eq!(
        status(&dash, "/p/acme/tokens", session).await,
        StatusCode::OK
    );
    // Out of both teams: the role is gone at the next sign-in.
    tess.teams.clear();
    github.set_user(tess.clone());
    let session = session_of(&sign_in_with_github(&dash).await);
    assert_eq!(
        status(&dash, "/p/acme", session).await,
        StatusCode::NOT_FOUND
    );
    assert_eq!(store.membership(acme.id, tess_id).await.unwrap(), None);
    // A pending invitation to the team is not membership, and makes no account.
    let mut pat = user(4004, "pat", &[("pat@example.com", true, true)]);
    pat.teams = vec![("acme-inc".into(), "qa".into(), "pending".into())];
    github.set_user(pat);
    let r = sign_in_with_github(&dash).await;
    assert_eq!(r.status_code(), StatusCode::FORBIDDEN);
    assert!(store.user("pat@example.com").await.unwrap().is_none());
    // A role an owner gave is the owners' to take away, not a team's.
    admin::add_person(store, &acme, "tess@example.com", Role::Viewer)
        .await
        .unwrap();
    github.set_user(tess);
    let session = session_of(&sign_in_with_github(&dash).await);
    assert_eq!(status(&dash, "/p/acme", session).await, StatusCode::OK);
    // Removing the mapping takes back what it gave.
    let mut quinn = user(5005, "quinn", &[("quinn@example.com", true, true)]);
    quinn.teams = vec![("acme-inc".into(), "qa".into(), "active".into())];
    github.set_user(quinn);
    let session = session_of(&sign_in_with_github(&dash).await);
    admin::unmap_team(store, &acme, "acme-inc/qa")
        .await
        .unwrap();
    assert_eq!(
        status(&dash, "/p/acme", session).await,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn a_team_mapping_gives_the_role_while_in_the_team_sqlite() {
    a_team_mapping_gives_the_role_while_in_the_team(Backend::Sqlite).await;
}

#[tokio::test]
async fn a_team_mapping_gives_the_role_while_in_the_team_postgres() {
    a_team_mapping_gives_the_role_while_in_the_team(Backend::Postgres).await;
}

#[tokio::test]
async fn without_an_oauth_app_there_is_no_github_sign_in() {
    let dash = Dash::new().await;
    assert!(
        !dash
            .server
            .get("/login")
            .await
            .text()
            .contains("/auth/github")
    );
    assert_eq!(
        dash.server.get("/auth/github").await.status_code(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        dash.server
            .get("/auth/github/callback?code=x&state=y")
            .await
            .status_code(),
        StatusCode::NOT_FOUND
    );
}
