//! Sign-in under attack (issue 16, finding 2): failures throttled per account and per address
//! with 429 and `Retry-After`, and argon2 behind a gate whose bound holds however many sign-ins
//! arrive at once (counted, not measured in memory).

use std::time::Duration;

use axum::http::StatusCode;
use axum_test::TestResponse;
use windup_dashboard::admin;
use windup_dashboard::sign_in::{ClientAddress, SignInLimits};

use crate::common::{Backend, Dash, PASSWORD, set_cookie_pair};

/// The sign-in form's CSRF cookie and token.
async fn login_csrf(dash: &Dash) -> (String, String) {
    let page = dash.server.get("/login").await;
    let cookie = set_cookie_pair(&page, "windup_login_csrf");
    let token = cookie.split_once('=').unwrap().1.to_string();
    (cookie, token)
}

/// One sign-in through the real form, from `from` when the dashboard trusts `X-Forwarded-For`.
fn sign_in(
    dash: &Dash,
    csrf: &(String, String),
    email: &str,
    password: &str,
    from: Option<&str>,
) -> axum_test::TestRequest {
    let mut request = dash
        .server
        .post("/login")
        .add_header("cookie", csrf.0.clone())
        .form(&[
            ("email", email),
            ("password", password),
            ("csrf", csrf.1.as_str()),
        ]);
    if let Some(ip) = from {
        request = request.add_header("x-forwarded-for", format!("198.51.100.99, {ip}"));
    }
    request
}

fn retry_after(response: &TestResponse) -> u64 {
    response
        .header("retry-after")
        .to_str()
        .unwrap()
        .parse()
        .expect("Retry-After in seconds")
}

async fn with_limits(limits: SignInLimits) -> Dash {
    Dash::start(Backend::Sqlite, None, |state| {
        state.with_sign_in_limits(limits)
    })
    .await
}

async fn the_sixth_failure_for_an_account_gets_429_even_with_the_right_password(backend: Backend) {
    let dash = Dash::on(backend).await;
    admin::create_user(&*dash.state.store, "ada@example.com", PASSWORD)
        .await
        .unwrap();
    let csrf = login_csrf(&dash).await;
    let first = std::time::Instant::now();
    for i in 0..5 {
        let r = sign_in(&dash, &csrf, "ada@example.com", "wrong password!", None).await;
        assert_eq!(
            r.status_code(),
            StatusCode::UNAUTHORIZED,
            "failure {}",
            i + 1
        );
    }
    // The attacker's next guess, even the right one, is not checked.
    let r = sign_in(&dash, &csrf, "Ada@Example.com", PASSWORD, None).await;
    assert_eq!(r.status_code(), StatusCode::TOO_MANY_REQUESTS);
    let wait = retry_after(&r);
    // Fifteen minutes from the first failure, to the second.
    let left = 900 - first.elapsed().as_secs().min(900);
    assert!(
        (left.saturating_sub(1)..=900).contains(&wait),
        "Retry-After {wait}, {left} s left"
    );
    assert!(r.text().contains("Too many failed sign-ins"));
    // A missing account is throttled the same way: 429 tells nothing about who exists.
    for _ in 0..5 {
        let r = sign_in(&dash, &csrf, "nobody@example.com", "guess guess", None).await;
        assert_eq!(r.status_code(), StatusCode::UNAUTHORIZED);
    }
    let r = sign_in(&dash, &csrf, "nobody@example.com", "guess guess", None).await;
    assert_eq!(r.status_code(), StatusCode::TOO_MANY_REQUESTS);
    // Another account from the same address still signs in (10 failures < 20 per address).
    admin::create_user(&*dash.state.store, "bob@example.com", PASSWORD)
        .await
        .unwrap();
    let r = sign_in(&dash, &csrf, "bob@example.com", PASSWORD, None).await;
    assert_eq!(r.status_code(), StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn the_sixth_failure_for_an_account_within_fifteen_minutes_gets_429_sqlite() {
    the_sixth_failure_for_an_account_gets_429_even_with_the_right_password(Backend::Sqlite).await;
}

#[tokio::test]
async fn the_sixth_failure_for_an_account_within_fifteen_minutes_gets_429_postgres() {
    the_sixth_failure_for_an_account_gets_429_even_with_the_right_password(Backend::Postgres).await;
}

#[tokio::test]
async fn concurrent_guesses_cannot_slip_past_the_account_threshold() {
    let dash = Dash::new().await;
    admin::create_user(&*dash.state.store, "ada@example.com", PASSWORD)
        .await
        .unwrap();
    let csrf = login_csrf(&dash).await;
    let guesses: Vec<_> = (0..12)
        .map(|i| {
            let request = sign_in(&dash, &csrf, "ada@example.com", &format!("guess {i}"), None);
            tokio::spawn(async move { request.await.status_code() })
        })
        .collect();
    let mut checked = 0;
    let mut throttled = 0;
    for g in guesses {
        match g.await.unwrap() {
            StatusCode::UNAUTHORIZED => checked += 1,
            StatusCode::TOO_MANY_REQUESTS => throttled += 1,
            other => panic!("unexpected {other}"),
        }
    }
    assert_eq!(
        (checked, throttled),
        (5, 7),
        "exactly five passwords were tried"
    );
}

#[tokio::test]
async fn the_twenty_first_failure_from_one_address_within_a_minute_gets_429() {
    let dash = with_limits(SignInLimits {
        client_address: ClientAddress::ForwardedFor,
        ..SignInLimits::default()
    })
    .await;
    let csrf = login_csrf(&dash).await;
    let attacker = Some("203.0.113.7");
    let first = std::time::Instant::now();
    // One guess each for twenty accounts (credential stuffing): no account reaches five.
    for i in 0..20 {
        let r = sign_in(
            &dash,
            &csrf,
            &format!("user{i}@example.com"),
            "Winter2026!",
            attacker,
        )
        .await;
        assert_eq!(
            r.status_code(),
            StatusCode::UNAUTHORIZED,
            "failure {}",
            i + 1
        );
    }
    let r = sign_in(&dash, &csrf, "user20@example.com", "Winter2026!", attacker).await;
    assert_eq!(r.status_code(), StatusCode::TOO_MANY_REQUESTS);
    let wait = retry_after(&r);
    // The window runs from the first failure: what is left of its minute, to the second.
    let left = 60 - first.elapsed().as_secs().min(60);
    assert!(
        (left.saturating_sub(1)..=60).contains(&wait),
        "Retry-After {wait}, {left} s left"
    );
    // The address is the proxy's entry; another client behind the same proxy is unaffected.
    let r = sign_in(
        &dash,
        &csrf,
        "user20@example.com",
        "Winter2026!",
        Some("203.0.113.8"),
    )
    .await;
    assert_eq!(r.status_code(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_peer_address_is_counted_when_no_proxy_is_trusted() {
    let dash = Dash::new().await;
    let csrf = login_csrf(&dash).await;
    // A forged X-Forwarded-For changes nothing: every request is from 127.0.0.1.
    for i in 0..20 {
        let forged = format!("192.0.2.{i}");
        let r = sign_in(
            &dash,
            &csrf,
            &format!("u{i}@example.com"),
            "pw",
            Some(&forged),
        )
        .await;
        assert_eq!(r.status_code(), StatusCode::UNAUTHORIZED);
    }
    let r = sign_in(&dash, &csrf, "u20@example.com", "pw", Some("192.0.2.200")).await;
    assert_eq!(r.status_code(), StatusCode::TOO_MANY_REQUESTS);
}

#[tokio::test]
async fn with_every_argon2_slot_busy_and_the_queue_full_further_sign_ins_get_503() {
    let (concurrent, queue, extra) = (2, 3, 4);
    let dash = with_limits(SignInLimits {
        concurrent,
        queue,
        ..SignInLimits::default()
    })
    .await;
    let csrf = login_csrf(&dash).await;
    let gate = dash.state.sign_in.gate();
    // Every verification slot taken (held here), so each sign-in below has to queue.
    let mut held = Vec::new();
    for _ in 0..concurrent {
        held.push(gate.enter().await.expect("a free slot"));
    }
    let pending: Vec<_> = (0..queue + extra)
        .map(|i| {
            let request = sign_in(&dash, &csrf, &format!("p{i}@example.com"), "pw", None);
            tokio::spawn(async move {
                let r = request.await;
                let retry = r
                    .maybe_header("retry-after")
                    .map(|v| v.to_str().unwrap().to_string());
                (r.status_code(), retry)
            })
        })
        .collect();
    let answered =
        |pending: &[tokio::task::JoinHandle<_>]| pending.iter().filter(|p| p.is_finished()).count();
    tokio::time::timeout(Duration::from_secs(30), async {
        while gate.waiting() < queue || answered(&pending) < extra {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the queue fills and the overflow is answered");
    // Every sign-in has reached the gate: `queue` wait, and only the overflow was answered.
    assert_eq!(answered(&pending), extra);
    assert_eq!(gate.waiting(), queue);
    drop(held);
    let mut answers = Vec::new();
    for p in pending {
        answers.push(p.await.unwrap());
    }
    let busy: Vec<_> = answers
        .iter()
        .filter(|(s, _)| *s == StatusCode::SERVICE_UNAVAILABLE)
        .collect();
    assert_eq!(busy.len(), extra, "{answers:?}");
    assert!(busy.iter().all(|(_, retry)| retry.as_deref() == Some("1")));
    let checked = answers
        .iter()
        .filter(|(s, _)| *s == StatusCode::UNAUTHORIZED)
        .count();
    assert_eq!(
        checked, queue,
        "the queued sign-ins were checked once slots freed"
    );
    assert_eq!(gate.max_in_flight(), concurrent);
}

#[tokio::test]
async fn a_burst_of_sign_ins_never_runs_more_argon2_checks_than_the_bound() {
    let (concurrent, queue, burst) = (2, 2, 16);
    let dash = with_limits(SignInLimits {
        concurrent,
        queue,
        ..SignInLimits::default()
    })
    .await;
    let csrf = login_csrf(&dash).await;
    let requests: Vec<_> = (0..burst)
        .map(|i| {
            let request = sign_in(&dash, &csrf, &format!("b{i}@example.com"), "pw", None);
            tokio::spawn(async move { request.await.status_code() })
        })
        .collect();
    let mut checked = 0;
    let mut busy = 0;
    for r in requests {
        match r.await.unwrap() {
            StatusCode::UNAUTHORIZED => checked += 1,
            StatusCode::SERVICE_UNAVAILABLE => busy += 1,
            other => panic!("unexpected {other}"),
        }
    }
    assert_eq!(checked + busy, burst);
    assert!(
        checked >= concurrent + queue,
        "the first arrivals are always admitted"
    );
    let max = dash.state.sign_in.gate().max_in_flight();
    assert!(
        (1..=concurrent).contains(&max),
        "{max} argon2 checks ran at once"
    );
}

/// The review's attack on memory: a burst of sign-ins (right and wrong passwords, from many
/// addresses) while accounts are made, with a gate that admits them all at once. The old
/// gate's permits let as many argon2 instances live as it admitted (19 MiB each: 48 sign-ins
/// held 430 MiB); now argon2 runs only on its fixed threads, each allocating its memory once.
#[tokio::test]
async fn a_burst_of_sign_ins_and_new_accounts_allocates_at_most_one_argon2_block_per_thread() {
    let burst = 64;
    let dash = with_limits(SignInLimits {
        concurrent: burst,
        queue: burst,
        client_address: ClientAddress::ForwardedFor,
        ..SignInLimits::default()
    })
    .await;
    admin::create_user(&*dash.state.store, "ada@example.com", PASSWORD)
        .await
        .unwrap();
    let csrf = login_csrf(&dash).await;
    let mut requests = Vec::new();
    for i in 0..burst {
        let (email, password) = if i % 4 == 0 {
            ("ada@example.com".to_string(), PASSWORD)
        } else {
            (format!("guess{i}@example.com"), "wrong guess")
        };
        let request = sign_in(
            &dash,
            &csrf,
            &email,
            password,
            Some(&format!("203.0.113.{}", i + 1)),
        );
        requests.push(tokio::spawn(async move { request.await.status_code() }));
    }
    let store = dash.state.store.clone();
    let accounts: Vec<_> = (0..4)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                admin::create_user(&*store, &format!("new{i}@example.com"), PASSWORD).await
            })
        })
        .collect();
    let mut statuses = std::collections::BTreeMap::new();
    for r in requests {
        *statuses.entry(r.await.unwrap().as_u16()).or_insert(0) += 1;
    }
    for a in accounts {
        a.await.unwrap().unwrap();
    }
    assert_eq!(
        statuses.get(&401),
        Some(&(burst - burst / 4)),
        "{statuses:?}"
    );
    assert!(statuses.get(&303).is_some_and(|n| *n >= 1), "{statuses:?}");
    assert!(
        dash.state.sign_in.gate().max_in_flight() > windup_dashboard::argon::THREADS,
        "the gate admitted more checks than there are argon2 threads"
    );
    let blocks = windup_dashboard::argon::blocks_allocated();
    assert!(
        (1..=windup_dashboard::argon::THREADS).contains(&blocks),
        "{blocks} argon2 memory blocks were allocated"
    );
}
