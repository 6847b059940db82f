//! `windup mcp`'s review tools over stdio: `steps` shows what would be saved and `undo` takes
//! the last step back, and every call, refused ones too, is in `mcp.log` with no value in it.

use serde_json::{Value, json};

use crate::mcp::{Client, PASSWORD, ref_of};
use crate::support::{example, serve};

/// `steps` lists what would be saved (credentials by name only) and `undo` takes the last step
/// back; every call is in mcp.log, the refused ones too (a literal credential, a ref the page
/// does not have, nothing to undo), with no value in it.
#[test]
fn steps_and_undo_show_and_take_back_the_recording_and_every_call_is_logged() {
    let project = example();
    let root = project.path();
    let (_server, base) = serve(root);
    let mut mcp = Client::start(root, &["--base-url", &base]);
    let (text, error) = mcp.tool("undo", json!({}));
    assert!(error && text.contains("no recorded step"), "{text}");
    let page = mcp.ok("browser_open", json!({"url": "/login.html"}));
    assert!(
        mcp.ok("steps", json!({}))
            .contains("No step is recorded yet")
    );
    let email = ref_of(&page, &["Email"]);
    let password = ref_of(&page, &["Password"]);
    mcp.ok(
        "fill",
        json!({"ref": email, "value_ref": "ACME_ADMIN_EMAIL"}),
    );
    let (text, error) = mcp.tool("fill", json!({"ref": password, "value": PASSWORD}));
    assert!(error && text.contains("value_ref"), "{text}");
    let (text, error) = mcp.tool("click", json!({"ref": "e999"}));
    assert!(error, "{text}");
    mcp.ok(
        "fill",
        json!({"ref": password, "value_ref": "ACME_ADMIN_PASSWORD"}),
    );
    let steps = mcp.ok("steps", json!({}));
    assert!(steps.contains("Start page: /login.html"), "{steps}");
    assert!(
        steps.contains("a1 fill") && steps.contains("value_ref=ACME_ADMIN_EMAIL"),
        "{steps}"
    );
    assert!(
        steps.contains("a2 fill") && steps.contains("value_ref=ACME_ADMIN_PASSWORD"),
        "{steps}"
    );
    let undone = mcp.ok("undo", json!({}));
    assert!(undone.contains("Took back a2"), "{undone}");
    let steps = mcp.ok("steps", json!({}));
    assert!(
        steps.contains("a1 fill") && !steps.contains("a2 "),
        "{steps}"
    );
    mcp.close();

    let log = std::fs::read_to_string(root.join("e2e/.windup/mcp.log")).unwrap();
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let refused: Vec<&Value> = lines.iter().filter(|l| l["ok"] == false).collect();
    assert_eq!(refused.len(), 3, "the refused undo, fill and click: {log}");
    assert!(refused.iter().any(|l| l["tool"] == "undo"), "{log}");
    assert!(
        refused
            .iter()
            .any(|l| l["tool"] == "fill" && l["about"] == password.as_str()),
        "{log}"
    );
    assert!(
        refused
            .iter()
            .any(|l| l["tool"] == "click" && l["about"] == "e999"),
        "{log}"
    );
    for tool in ["browser_open", "steps", "undo", "fill"] {
        assert!(
            lines.iter().any(|l| l["tool"] == tool && l["ok"] == true),
            "{tool}: {log}"
        );
    }
    assert!(
        !log.contains(PASSWORD) && !log.contains("admin@acme.test"),
        "{log}"
    );
}
