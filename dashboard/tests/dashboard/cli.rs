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
