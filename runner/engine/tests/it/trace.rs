//! The trace's bounds: one frame per step that ran, every picture a small JPEG, and past the
//! per-scenario bound a frame keeps its URL and box with a note instead of a picture.

use windup_engine::executor::{
    FRAME_WIDTH, MAX_FRAME_BYTES, MAX_FRAMES, MAX_TRACE_BYTES, Trace, TraceBounds,
};

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

/// A JPEG's width and height as its own frame header (SOF0-SOF2) says, not as Windup reports.
fn jpeg_size(jpeg: &[u8]) -> (u32, u32) {
    let mut i = 2;
    while i + 9 < jpeg.len() {
        assert_eq!(jpeg[i], 0xff, "a JPEG marker at {i}");
        let marker = jpeg[i + 1];
        let len = usize::from(u16::from_be_bytes([jpeg[i + 2], jpeg[i + 3]]));
        if (0xc0..=0xc2).contains(&marker) {
            let h = u16::from_be_bytes([jpeg[i + 5], jpeg[i + 6]]);
            let w = u16::from_be_bytes([jpeg[i + 7], jpeg[i + 8]]);
            return (u32::from(w), u32::from(h));
        }
        i += 2 + len;
    }
    panic!("no frame header in {} bytes", jpeg.len());
}

#[test]
fn a_trace_asked_for_the_viewports_width_keeps_its_pictures_at_that_size_and_bound() {
    let server = Server::start(&engine_dir().join("tests/fixtures/pages"));
    let plan = long_plan(3);
    block_on(async {
        let mut run = Run::new(&server.base).action_timeout(300);
        run.trace = Trace::On;
        // The default: the 1280 x 800 viewport scaled down to 320 pixels wide.
        let x = run.exec(browser(), &plan).await;
        let (w, h) = jpeg_size(&x.frames[0].jpeg);
        assert_eq!((w, h), (FRAME_WIDTH, 200));
        // Asked for the viewport's width: the pictures at the page's own size.
        run.trace_width = 1280;
        let x = run.exec(browser(), &plan).await;
        assert_eq!(
            x.frames.len(),
            3,
            "one picture per step, the failed one too"
        );
        let bounds = TraceBounds::for_width(1280);
        for f in &x.frames {
            assert_eq!(jpeg_size(&f.jpeg), (1280, 800));
            assert!(f.jpeg.len() <= bounds.frame_bytes, "{}", f.jpeg.len());
        }
        let viewport = x.actions[0].trace.as_ref().unwrap().viewport.unwrap();
        assert_eq!((viewport.width, viewport.height), (1280, 800));
        // Never wider than the viewport: a wider ask is not scaled up.
        run.trace_width = 1920;
        let x = run.exec(browser(), &plan).await;
        assert_eq!(jpeg_size(&x.frames[0].jpeg), (1280, 800));
    });
    // The bounds grow with the area: 16 times the pixels, 16 times the bytes.
    assert_eq!(
        TraceBounds::for_width(1280),
        TraceBounds {
            frame_bytes: 16 * MAX_FRAME_BYTES,
            trace_bytes: 16 * MAX_TRACE_BYTES
        }
    );
    assert_eq!(
        TraceBounds::for_width(160),
        TraceBounds::for_width(FRAME_WIDTH)
    );
}
