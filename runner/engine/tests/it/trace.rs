//! The trace's bounds: one frame per step that ran, every picture a small JPEG, and past the
//! per-scenario bound a frame keeps its URL and box with a note instead of a picture.

use windup_engine::executor::{FRAME_WIDTH, MAX_FRAME_BYTES, MAX_FRAMES, MAX_TRACE_BYTES, Trace};

use crate::support::*;

/// `n` steps waiting for the same heading, the last one on a button that is not there.
fn long_plan(n: usize) -> windup_model::Plan {
    let mut steps: Vec<String> = (1..n)
        .map(|i| {
            format!(
                r#"{{"id": "w{i}", "type": "wait_for", "target": {{"selector": "role=heading[name=\"Basic page\"]"}}}}"#
            )
        })
        .collect();
    steps.push(
        r#"{"id": "miss", "type": "click", "target": {"selector": "role=button[name=\"Missing\"]"}, "expect": {"visible": "text=\"x\""}}"#
            .into(),
    );
    plan_from_str(&format!(
        r#"{{"plan_version":"0.1","scenario_id":"t","task":"t","start_url":"/basic.html","generated_by":"human","actions":[{}]}}"#,
        steps.join(",")
    ))
}

#[test]
fn a_trace_holds_at_most_its_bound_of_pictures_and_notes_the_rest() {
    let server = Server::start(&engine_dir().join("tests/fixtures/pages"));
    let plan = long_plan(MAX_FRAMES + 3);
    block_on(async {
        let mut run = Run::new(&server.base).action_timeout(300);
        run.trace = Trace::On;
        let x = run.exec(browser(), &plan).await;
        assert_eq!(
            x.failure.as_ref().map(|f| f.action_id.as_deref()),
            Some(Some("miss"))
        );
        // Every step ran and left a frame, the failed one too.
        assert_eq!(x.actions.len(), MAX_FRAMES + 3);
        assert!(x.actions.iter().all(|a| a.trace.is_some()));
        assert_eq!(x.frames.len(), MAX_FRAMES, "the bound of pictures holds");
        let bytes: usize = x.frames.iter().map(|f| f.jpeg.len()).sum();
        assert!(bytes <= MAX_TRACE_BYTES, "{bytes}");
        for f in &x.frames {
            assert!(f.jpeg.starts_with(b"\xff\xd8\xff"), "a JPEG");
            assert!(f.jpeg.len() <= MAX_FRAME_BYTES, "{}", f.jpeg.len());
            assert!(x.actions[f.action].trace.as_ref().unwrap().note.is_none());
        }
        for a in &x.actions[MAX_FRAMES..] {
            let t = a.trace.as_ref().unwrap();
            assert!(
                t.note
                    .as_deref()
                    .unwrap()
                    .contains(&format!("at most {MAX_FRAMES}")),
                "{t:?}"
            );
            assert!(t.url.as_deref().unwrap().ends_with("/basic.html"), "{t:?}");
        }
        // A frame shows the whole viewport, scaled down; the heading's box is inside it.
        let first = x.actions[0].trace.as_ref().unwrap();
        let viewport = first.viewport.unwrap();
        assert!(viewport.width > FRAME_WIDTH, "{viewport:?}");
        let b = first.target_box.unwrap();
        assert!(
            b.width > 0 && b.x >= 0 && b.x as u32 + b.width <= viewport.width,
            "{b:?}"
        );
        assert!(
            x.actions
                .last()
                .unwrap()
                .trace
                .as_ref()
                .unwrap()
                .target_box
                .is_none()
        );

        // Off: nothing recorded.
        run.trace = Trace::Off;
        let x = run.exec(browser(), &long_plan(3)).await;
        assert!(x.frames.is_empty());
        assert!(x.actions.iter().all(|a| a.trace.is_none()));
    });
}
