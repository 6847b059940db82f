//! `windup mcp`'s `screenshot`, `console` and `network` over stdio: the screenshot decodes as a
//! PNG of the viewport with the page's own pixels, the console and the requests are those since
//! the last observation, and a credential typed earlier is masked in both.

use base64::Engine as _;
use serde_json::{Value, json};

use crate::mcp::{Client, PASSWORD, ref_of};
use crate::support::{example, serve};

/// A page with a red box in the viewport's top-left corner, a message logged as it loads, and a
/// button that logs the password field's value, sends it in a fetch and shows it (white on
/// white, from 300 px down).
const PAGE: &str = r#"<!doctype html>
<html><head><title>Watch</title>
<style>body{margin:0} #box{position:fixed;top:0;left:0;width:200px;height:100px;background:rgb(255,0,0)}</style>
</head><body>
<div id="box"></div>
<main style="margin-top:140px">
<label>Password <input id="pw" type="password"></label>
<button id="send">Send</button>
<p id="echo" style="position:fixed;top:300px;left:0;margin:0;font:40px monospace;color:#fff;background:#fff"></p>
</main>
<script>
console.log('loaded before the step');
document.getElementById('send').addEventListener('click', async () => {
  const v = document.getElementById('pw').value;
  console.warn('sending ' + v);
  const r = await fetch('/watch.json?key=' + encodeURIComponent(v));
  document.getElementById('echo').textContent = 'Sent ' + v + ': ' + r.status;
});
</script>
</body></html>"#;

/// The viewport Windup gives a page unless windup.toml says otherwise.
const VIEWPORT: (u32, u32) = (1280, 800);

/// The RGB of the pixel at `(x, y)` of a PNG, and its size.
fn pixel(png: &[u8], x: u32, y: u32) -> ((u32, u32), [u8; 3]) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a PNG frame");
    let channels = info.color_type.samples();
    let at = ((y * info.width + x) as usize) * channels;
    (
        (info.width, info.height),
        [buf[at], buf[at + 1], buf[at + 2]],
    )
}

/// The screenshot's PNG bytes.
fn screenshot(mcp: &mut Client) -> Vec<u8> {
    let result = mcp.result("screenshot", json!({}));
    assert_ne!(result["isError"], true, "{result}");
    let image = &result["content"][0];
    assert_eq!(image["type"], "image", "{result}");
    assert_eq!(image["mimeType"], "image/png", "{result}");
    base64::engine::general_purpose::STANDARD
        .decode(image["data"].as_str().unwrap())
        .unwrap()
}

#[test]
fn screenshot_console_and_network_show_the_page_since_the_last_observation_masked() {
    let project = example();
    let root = project.path();
    std::fs::write(root.join("app/watch.html"), PAGE).unwrap();
    std::fs::write(root.join("app/watch.json"), "{\"ok\":true}").unwrap();
    let (_server, base) = serve(root);
    let mut mcp = Client::start(root, &["--base-url", &base]);
    let (text, error) = mcp.tool("console", json!({}));
    assert!(error && text.contains("browser_open"), "{text}");

    let page = mcp.ok("browser_open", json!({"url": "/watch.html"}));
    let png = screenshot(&mut mcp);
    let (size, red) = pixel(&png, 20, 20);
    assert_eq!(size, VIEWPORT, "the viewport, not the full page");
    assert_eq!(red, [255, 0, 0], "the page's red box");
    let (_, white) = pixel(&png, 600, 20);
    assert_eq!(white, [255, 255, 255], "the page's white background");

    let console = mcp.ok("console", json!({}));
    assert!(
        console.contains("[log] loaded before the step"),
        "{console}"
    );
    assert!(console.contains("<untrusted_page_content>"), "{console}");

    let password = ref_of(&page, &["Password"]);
    mcp.ok(
        "fill",
        json!({"ref": password, "value_ref": "ACME_ADMIN_PASSWORD"}),
    );
    let page = mcp.ok("observe", json!({}));
    mcp.ok("click", json!({"ref": ref_of(&page, &["Send"])}));

    let console = mcp.ok("console", json!({}));
    assert!(console.contains("[warning] sending •••"), "{console}");
    assert!(!console.contains("loaded before the step"), "{console}");
    let network = mcp.ok("network", json!({}));
    let fetch = network
        .lines()
        .find(|l| l.contains("/watch.json"))
        .unwrap_or_else(|| panic!("no fetch in:\n{network}"));
    assert!(fetch.starts_with("GET "), "{fetch}");
    assert!(fetch.contains("-> 200 [Fetch]"), "{fetch}");
    assert!(fetch.contains("key=•••"), "{fetch}");
    assert!(
        !network.contains("/watch.html"),
        "the page's own load came before the last observation: {network}"
    );
    // The page shows the password now, white on white: the screenshot has it under the
    // opaque cover (#111) that the page itself never draws there.
    let png = screenshot(&mut mcp);
    assert_eq!(pixel(&png, 20, 20), (VIEWPORT, [255, 0, 0]));
    assert_eq!(
        pixel(&png, 10, 320).1,
        [17, 17, 17],
        "the shown password is covered"
    );
    mcp.close();

    let log = std::fs::read_to_string(root.join("e2e/.windup/mcp.log")).unwrap();
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for tool in ["screenshot", "console", "network"] {
        assert!(
            lines.iter().any(|l| l["tool"] == tool && l["ok"] == true),
            "{tool}: {log}"
        );
    }
    assert!(
        lines
            .iter()
            .any(|l| l["tool"] == "console" && l["ok"] == false),
        "the refused console call: {log}"
    );
    let encoded = PASSWORD.replace(' ', "%20");
    for text in [&console, &network, &log] {
        assert!(
            !text.contains(PASSWORD) && !text.contains(&encoded),
            "{text}"
        );
    }
}
