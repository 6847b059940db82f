//! The binary: the admin subcommands, and `windup-dashboard` with no arguments serving from
//! `./windup-dashboard.db`, then shutting down cleanly on SIGTERM.

use std::process::{Command, Stdio};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

const BIN: &str = env!("CARGO_BIN_EXE_windup-dashboard");

fn run(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("DATABASE_URL")
        .env("ADA_PASSWORD", "correct horse battery")
        .output()
        .expect("run windup-dashboard")
}

#[test]
fn admin_subcommands_create_projects_tokens_and_people() {
    let dir = tempfile::tempdir().unwrap();
    let made = run(
        dir.path(),
        &["project", "create", "shop", "--default-branch", "trunk"],
    );
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    assert!(
        dir.path().join("windup-dashboard.db").exists(),
        "the default SQLite file is created"
    );
    let dup = run(dir.path(), &["project", "create", "shop"]);
    assert_eq!(dup.status.code(), Some(2), "a taken slug is bad input");
    let token = run(
        dir.path(),
        &[
            "token",
            "create",
            "shop",
            "--scope",
            "ingest",
            "--scope",
            "cache:read",
            "--branch",
            "feature/*",
        ],
    );
    assert!(
        token.status.success(),
        "{}",
        String::from_utf8_lossy(&token.stderr)
    );
    let printed = String::from_utf8(token.stdout).unwrap();
    assert!(
        printed.trim().starts_with("wdp_") && printed.trim().len() == 68,
        "{printed}"
    );
    let stderr = String::from_utf8_lossy(&token.stderr);
    assert!(
        !stderr.contains(printed.trim()),
        "the token is printed once, on stdout"
    );
    let unknown = run(
        dir.path(),
        &["token", "create", "nope", "--scope", "ingest"],
    );
    assert_eq!(unknown.status.code(), Some(2));
    let bad_scope = run(
        dir.path(),
        &["token", "create", "shop", "--scope", "everything"],
    );
    assert_eq!(bad_scope.status.code(), Some(2));
    let user = run(
        dir.path(),
        &[
            "user",
            "create",
            "ada@example.com",
            "--password-env",
            "ADA_PASSWORD",
        ],
    );
    assert!(
        user.status.success(),
        "{}",
        String::from_utf8_lossy(&user.stderr)
    );
    let weak = Command::new(BIN)
        .args(["user", "create", "bob@example.com"])
        .current_dir(dir.path())
        .env_remove("DATABASE_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(b"short\n")?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(
        weak.status.code(),
        Some(2),
        "a short password from stdin is refused"
    );
}

async fn get(port: u16, path: &str) -> Option<String> {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .ok()?;
    stream
        .write_all(format!("GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").as_bytes())
        .await
        .ok()?;
    let mut out = String::new();
    stream.read_to_string(&mut out).await.ok()?;
    Some(out)
}

#[tokio::test]
async fn no_arguments_serves_and_sigterm_shuts_down_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = tokio::process::Command::new(BIN)
        .current_dir(dir.path())
        .env_remove("DATABASE_URL")
        .env("WINDUP_DASHBOARD_LISTEN", format!("127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut health = None;
    for _ in 0..200 {
        health = get(port, "/healthz").await;
        if health.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let health = health.expect("the dashboard answers on WINDUP_DASHBOARD_LISTEN");
    assert!(
        health.starts_with("HTTP/1.0 200") || health.starts_with("HTTP/1.1 200"),
        "{health}"
    );
    assert!(health.ends_with("ok"));
    assert!(dir.path().join("windup-dashboard.db").exists());
    let login = get(port, "/login").await.unwrap();
    assert!(
        login.contains("Secure"),
        "cookies are Secure unless --insecure-cookies"
    );
    let pid = child.id().expect("running").to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("exits after SIGTERM")
        .unwrap();
    assert!(status.success(), "graceful shutdown exits 0: {status:?}");
}

/// Bad GitHub credentials stop `serve` at start with exit 2, naming the variable and the fix,
/// and never echo a key.
#[test]
fn bad_github_credentials_exit_2_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let serve = |env: &[(&str, &str)]| {
        let mut cmd = Command::new(BIN);
        cmd.args(["serve", "--addr", "127.0.0.1:0", "--insecure-cookies"])
            .current_dir(dir.path())
            .env_remove("DATABASE_URL")
            .env_remove("WINDUP_GITHUB_TOKEN")
            .env_remove("WINDUP_GITHUB_APP_ID")
            .env_remove("WINDUP_GITHUB_APP_PRIVATE_KEY")
            .env_remove("WINDUP_GITHUB_APP_PRIVATE_KEY_FILE")
            .env_remove("WINDUP_GITHUB_CLIENT_ID")
            .env_remove("WINDUP_GITHUB_CLIENT_SECRET")
            .env_remove("WINDUP_GITHUB_CLIENT_SECRET_FILE");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let secret_key =
        "-----BEGIN RSA PRIVATE KEY-----\nnot-a-key-but-secret\n-----END RSA PRIVATE KEY-----\n";
    let cases: &[(&[(&str, &str)], &str)] = &[
        (
            &[("WINDUP_GITHUB_APP_ID", "7")],
            "WINDUP_GITHUB_APP_PRIVATE_KEY",
        ),
        (
            &[
                ("WINDUP_GITHUB_APP_ID", "seven"),
                ("WINDUP_GITHUB_APP_PRIVATE_KEY", secret_key),
            ],
            "WINDUP_GITHUB_APP_ID",
        ),
        (
            &[
                ("WINDUP_GITHUB_APP_ID", "7"),
                ("WINDUP_GITHUB_APP_PRIVATE_KEY", secret_key),
            ],
            "not an RSA private key",
        ),
        (
            &[
                ("WINDUP_GITHUB_APP_ID", "7"),
                ("WINDUP_GITHUB_TOKEN", "ghp_x"),
            ],
            "unset one",
        ),
        (
            &[
                ("WINDUP_GITHUB_APP_ID", "7"),
                ("WINDUP_GITHUB_APP_PRIVATE_KEY_FILE", "/nonexistent/app.pem"),
            ],
            "WINDUP_GITHUB_APP_PRIVATE_KEY_FILE",
        ),
        // Sign-in with GitHub: an OAuth app's id and secret, both or neither.
        (
            &[("WINDUP_GITHUB_CLIENT_ID", "Iv1.abc")],
            "WINDUP_GITHUB_CLIENT_SECRET",
        ),
        (
            &[("WINDUP_GITHUB_CLIENT_SECRET", "not-a-key-but-secret")],
            "WINDUP_GITHUB_CLIENT_ID",
        ),
        (
            &[
                ("WINDUP_GITHUB_CLIENT_ID", "Iv1.abc"),
                ("WINDUP_GITHUB_CLIENT_SECRET_FILE", "/nonexistent/secret"),
            ],
            "WINDUP_GITHUB_CLIENT_SECRET_FILE",
        ),
    ];
    for (env, expected) in cases {
        let (code, stderr) = serve(env);
        assert_eq!(code, Some(2), "{env:?}: {stderr}");
        assert!(stderr.contains(expected), "{env:?}: {stderr}");
        assert!(!stderr.contains("not-a-key-but-secret"), "{stderr}");
    }
}

#[tokio::test]
async fn set_repo_takes_only_a_github_repository_name() {
    let dir = tempfile::tempdir().unwrap();
    assert!(
        run(dir.path(), &["project", "create", "shop"])
            .status
            .success()
    );
    let set = run(
        dir.path(),
        &["project", "set-repo", "shop", "octo-org/shop"],
    );
    assert!(
        set.status.success(),
        "{}",
        String::from_utf8_lossy(&set.stderr)
    );
    assert!(String::from_utf8_lossy(&set.stdout).contains("octo-org/shop"));
    let stored = || async {
        let db = dir.path().join("windup-dashboard.db");
        let store = windup_dashboard::store::open(db.to_str().unwrap())
            .await
            .unwrap();
        store.project("shop").await.unwrap().unwrap().github_repo
    };
    assert_eq!(stored().await.as_deref(), Some("octo-org/shop"));
    for bad in [
        &["shop", "../.."][..],
        &["shop", "octo/shop/x"],
        &["nope", "octo/shop"],
        &["shop"],
    ] {
        let mut args = vec!["project", "set-repo"];
        args.extend_from_slice(bad);
        let out = run(dir.path(), &args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{bad:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let refused = run(dir.path(), &["project", "set-repo", "shop", "../.."]);
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("not a GitHub"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert_eq!(stored().await.as_deref(), Some("octo-org/shop"));
    let cleared = run(dir.path(), &["project", "set-repo", "shop", "--clear"]);
    assert!(cleared.status.success());
    assert_eq!(stored().await, None);
}

/// `serve --retain-days 30` prunes at start (then daily), logged; the flag takes whole days
/// of at least one.
#[tokio::test]
async fn serve_with_retain_days_prunes_old_runs_and_logs_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("windup-dashboard.db");
    {
        let store = windup_dashboard::store::open(db.to_str().unwrap())
            .await
            .unwrap();
        let p = store.create_project("shop", "main", 1).await.unwrap();
        let mut r = crate::common::report("old", "main", "c1", &[("login", "passed", false)]);
        r["started_at"] = serde_json::json!("2020-01-01T10:00:00Z");
        let report = serde_json::from_value(r).unwrap();
        let run = windup_dashboard::ingest::to_new_run(&report, &[], None).unwrap();
        assert!(store.insert_run(p.id, &run, 1).await.unwrap());
    }
    let zero = run(dir.path(), &["serve", "--retain-days", "0"]);
    assert_eq!(zero.status.code(), Some(2), "0 days is refused");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let log = dir.path().join("log.txt");
    let mut child = tokio::process::Command::new(BIN)
        .args(["serve", "--retain-days", "30", "--insecure-cookies"])
        .args(["--addr", &format!("127.0.0.1:{port}")])
        .current_dir(dir.path())
        .env_remove("DATABASE_URL")
        .env_remove("RUST_LOG")
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut pruned = String::new();
    for _ in 0..200 {
        // Without the colours tracing may write even to a file.
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        pruned = text
            .split('\x1b')
            .enumerate()
            .map(|(i, part)| {
                if i == 0 {
                    part
                } else {
                    part.split_once('m').map_or(part, |(_, rest)| rest)
                }
            })
            .collect();
        if pruned.contains("retention") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        pruned.contains("retention: pruned") && pruned.contains("runs=1"),
        "{pruned}"
    );
    let store = windup_dashboard::store::open(db.to_str().unwrap())
        .await
        .unwrap();
    let p = store.project("shop").await.unwrap().unwrap();
    assert!(store.run(p.id, "old").await.unwrap().is_none());
    let pid = child.id().expect("running").to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("exits after SIGTERM")
        .unwrap();
}
