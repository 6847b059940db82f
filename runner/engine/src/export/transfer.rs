//! The steps that move files, in Playwright's terms: `upload` → `setInputFiles` with the files
//! of the project's `e2e/files/` (`windupFile`, resolved from the spec's own folder by the path
//! the export computed, or `WINDUP_FILES`); `download` → the click inside `Promise.all` with
//! `page.waitForEvent('download')`, then `expect.download`'s name (the same glob, as the
//! expression globset compiles) and size on the saved file.

use windup_model::DownloadExpect;

use super::assertion::{Untranslatable, js_pattern};
use super::ts;

/// The call `setInputFiles([...])` an upload step makes on its target.
pub(super) fn upload(files: &[String], timeout: Option<u64>) -> String {
    let files: Vec<String> = files
        .iter()
        .map(|f| format!("windupFile({})", ts::string(f)))
        .collect();
    let opt = match timeout {
        Some(ms) => format!(", {{ timeout: {ms} }}"),
        None => String::new(),
    };
    format!("setInputFiles([{}]{opt})", files.join(", "))
}

/// The click that starts a download (`click`, the expression to await), the wait for it, and
/// the checks of `expect.download`.
pub(super) fn download(
    page: &str,
    click: &str,
    want: Option<&DownloadExpect>,
    timeout: Option<u64>,
) -> Result<Vec<String>, Untranslatable> {
    let wait = match timeout {
        Some(ms) => format!("{page}.waitForEvent('download', {{ timeout: {ms} }})"),
        None => format!("{page}.waitForEvent('download')"),
    };
    let mut lines = vec![
        "{".to_string(),
        format!("  const [download] = await Promise.all([{wait}, {click}]);"),
        "  if (await download.failure()) throw new Error(`the download failed: ${await download.failure()}`);".to_string(),
    ];
    let Some(want) = want else {
        lines.push("}".into());
        return Ok(lines);
    };
    if let Some(glob) = &want.name {
        let g = globset::Glob::new(glob).map_err(|cause| Untranslatable::FileNameGlob {
            glob: glob.to_string(),
            cause,
        })?;
        let pattern = format!("^{}$", js_pattern(g.regex())?);
        lines.push(format!(
            "  expect(download.suggestedFilename()).toMatch({});",
            ts::regexp(&pattern)
        ));
    }
    if want.size.is_some() || want.min_size.is_some() || want.max_size.is_some() {
        lines.push("  const size = fs.statSync(await download.path()).size;".into());
    }
    if let Some(n) = want.size {
        lines.push(format!("  expect(size).toBe({n});"));
    }
    if let Some(n) = want.min_size {
        lines.push(format!("  expect(size).toBeGreaterThanOrEqual({n});"));
    }
    if let Some(n) = want.max_size {
        lines.push(format!("  expect(size).toBeLessThanOrEqual({n});"));
    }
    lines.push("}".into());
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_download_waits_for_the_event_and_checks_name_and_size() {
        let want = DownloadExpect {
            name: Some("report-*.csv".into()),
            min_size: Some(10),
            ..Default::default()
        };
        let lines = download("page", "page.getByRole('link').click()", Some(&want), None).unwrap();
        let text = lines.join("\n");
        assert!(
            text.contains(
                "Promise.all([page.waitForEvent('download'), page.getByRole('link').click()])"
            ),
            "{text}"
        );
        assert!(
            text.contains("expect(download.suggestedFilename()).toMatch(new RegExp(\"^report"),
            "{text}"
        );
        assert!(!text.contains("(?-u)"), "a JavaScript pattern: {text}");
        assert!(
            text.contains("expect(size).toBeGreaterThanOrEqual(10);"),
            "{text}"
        );
        assert_eq!(
            upload(&["a.pdf".into(), "b.png".into()], Some(500)),
            "setInputFiles([windupFile(\"a.pdf\"), windupFile(\"b.png\")], { timeout: 500 })"
        );
    }
}
