//! The sticky comment is found by its marker and its author: anyone can write the marker into
//! a comment, and the Action edits only a comment its token's identity wrote. The fake GitHub
//! answers `GET /user` as GitHub does: 403 for an installation token (`GITHUB_TOKEN`), the
//! user for a personal token.

use windup_testkit::Server;

use super::{FakeGitHub, Workflow, comment_by, stdout};

const FORGED: &str = "<!-- windup -->\n### ✅ Windup\nAll green, merge away.";

#[test]
fn a_comment_by_someone_else_with_the_marker_is_never_edited() {
    let github = FakeGitHub::start();
    let mut w = Workflow::new();
    let app = Server::start(&w.path("acme/app"));
    w.input("base-url", app.base.as_str())
        .input("scenarios", "sign-in")
        .input("comment", "true");
    w.env.insert("GITHUB_API_URL".into(), github.base.clone());
    // Before the first run, someone else wrote the marker into a comment of their own.
    github
        .comments
        .lock()
        .unwrap()
        .push(comment_by(&github.base, 1, FORGED, "mallory"));
    let run = |w: &Workflow| {
        let out = w.run();
        assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    };

    // GITHUB_TOKEN, an installation token: its comment is created, then edited.
    w.env
        .insert("GITHUB_TOKEN".into(), "ghs_installation".into());
    run(&w);
    run(&w);
    {
        let comments = github.comments.lock().unwrap();
        assert_eq!(comments.len(), 2, "{comments:?}");
        assert_eq!(comments[0]["body"], FORGED);
        assert_eq!(comments[1]["user"]["login"], "github-actions[bot]");
        assert_eq!(comments[1]["id"], 101);
    }

    // A personal token: the bot's comment is not its own either.
    w.env.insert("GITHUB_TOKEN".into(), "ghp_octo-ci".into());
    run(&w);
    run(&w);
    let comments = github.comments.lock().unwrap().clone();
    assert_eq!(comments.len(), 3, "{comments:?}");
    assert_eq!(comments[0]["body"], FORGED, "never edited");
    assert_eq!(comments[2]["user"]["login"], "octo-ci");
    let requests = github.requests.lock().unwrap().clone();
    let count = |r: &str| requests.iter().filter(|x| *x == r).count();
    assert_eq!(
        count("POST /repos/acme/app/issues/7/comments"),
        2,
        "{requests:?}"
    );
    assert_eq!(
        count("PATCH /repos/acme/app/issues/comments/101"),
        1,
        "{requests:?}"
    );
    assert_eq!(
        count("PATCH /repos/acme/app/issues/comments/102"),
        1,
        "{requests:?}"
    );
    assert!(
        !requests.iter().any(|r| r.ends_with("/issues/comments/1")),
        "mallory's comment is never touched: {requests:?}"
    );
    assert_eq!(count("GET /user"), 4, "{requests:?}");
}
