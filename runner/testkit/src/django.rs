//! A real Django admin on 127.0.0.1: PyPI `django` (installed by `scripts/fetch-fixtures.sh`)
//! serving the small library project of `runner/engine/tests/fixtures/django/site`, migrated on
//! a fresh SQLite file in a temporary folder, with a superuser, run by `manage.py runserver
//! --noreload` and killed when dropped. Its data is read back with `manage.py`, not with
//! Windup: the app's own database is the oracle.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::{fixtures, repo_root};

/// The superuser's name; its password is the caller's (a secret in the tests).
pub const ADMIN_USERNAME: &str = "admin";

/// One running Django admin.
pub struct DjangoAdmin {
    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub base: String,
    /// The temporary folder holding the SQLite file.
    pub dir: tempfile::TempDir,
    server: Child,
}

impl Drop for DjangoAdmin {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// The Django project's folder (`manage.py` is in it).
pub fn site() -> PathBuf {
    repo_root().join("runner/engine/tests/fixtures/django/site")
}

impl DjangoAdmin {
    /// Migrates a fresh database, creates the superuser with `password`, seeds the catalogue
    /// and starts the server; `mutant` (`CATALOG_MUTANT`) breaks one of the admin's effects.
    pub fn start(password: &str, mutant: Option<&str>) -> DjangoAdmin {
        let dir = tempfile::tempdir().expect("temp dir");
        let env = Self::env_for(dir.path());
        let run = |args: &[&str], extra: &[(&str, &str)]| {
            let o = manage_with(&env, args, extra);
            assert!(
                o.status.success(),
                "manage.py {args:?} failed:\n{}",
                String::from_utf8_lossy(&o.stderr)
            );
        };
        run(&["migrate", "--noinput", "-v0"], &[]);
        run(
            &[
                "createsuperuser",
                "--noinput",
                "--username",
                ADMIN_USERNAME,
                "--email",
                "admin@library.test",
            ],
            &[("DJANGO_SUPERUSER_PASSWORD", password)],
        );
        run(&["seed"], &[]);
        // A free port: bound, read and released for the server to take.
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let mut cmd = Command::new("python3");
        cmd.current_dir(site())
            .args(["manage.py", "runserver", "--noreload"])
            .arg(format!("127.0.0.1:{port}"))
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env("CATALOG_MUTANT", mutant.unwrap_or(""))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let server = cmd.spawn().expect("start manage.py runserver");
        let admin = DjangoAdmin {
            base: format!("http://127.0.0.1:{port}"),
            dir,
            server,
        };
        admin.wait_until_up(port);
        admin
    }

    /// Waits until the server answers its login page (it takes about a second to start).
    fn wait_until_up(&self, port: u16) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
                use std::io::{Read, Write};
                let _ = s.write_all(
                    b"GET /admin/login/ HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                );
                let mut head = [0u8; 12];
                if s.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/1.1 200") {
                    return;
                }
            }
            assert!(
                Instant::now() < deadline,
                "the Django server on port {port} did not come up"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The variables `manage.py` needs for this server's database: the Django install on
    /// `PYTHONPATH` and the SQLite file.
    pub fn env(&self) -> Vec<(String, String)> {
        Self::env_for(self.dir.path())
    }

    fn env_for(dir: &Path) -> Vec<(String, String)> {
        vec![
            (
                "PYTHONPATH".into(),
                fixtures().django_pythonpath.display().to_string(),
            ),
            (
                "CATALOG_DB".into(),
                dir.join("catalog.sqlite3").display().to_string(),
            ),
        ]
    }

    /// `manage.py ARGS` against this server's database.
    pub fn manage(&self, args: &[&str]) -> Output {
        manage_with(&self.env(), args, &[])
    }

    /// The catalogue as Django sees it: each author (sorted by name) as `name|country|active`
    /// followed by their books' titles, sorted, one line per author.
    pub fn catalogue(&self) -> Vec<String> {
        let code = "from catalog.models import Author\n\
            for a in Author.objects.order_by('name'):\n    \
            print('|'.join([a.name, a.country, str(a.active)] + sorted(b.title for b in a.book_set.all())))";
        let o = self.manage(&["shell", "-c", code]);
        assert!(
            o.status.success(),
            "manage.py shell failed:\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(str::to_string)
            .collect()
    }
}

fn manage_with(env: &[(String, String)], args: &[&str], extra: &[(&str, &str)]) -> Output {
    Command::new("python3")
        .current_dir(site())
        .arg("manage.py")
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .envs(extra.iter().copied())
        .output()
        .expect("run manage.py")
}
