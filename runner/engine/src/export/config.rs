//! `playwright.config.ts`, written only where none exists: windup.toml's settings in
//! Playwright's terms (base URL, time limits, viewport, Chromium), and the two projects a
//! Windup suite needs: `setup` for setup scenarios (`*.setup.ts`), which save their storage,
//! and `chromium` for the rest (`*.spec.ts`), which depends on it.

use std::fmt::Write;
use std::path::Path;

use super::ts;
use crate::timeouts::Timeouts;

/// What the config carries over from windup.toml.
#[derive(Debug, Clone)]
pub struct ConfigInput<'a> {
    /// `base_url`, when windup.toml sets one; `BASE_URL` in the environment overrides it.
    pub base_url: Option<&'a url::Url>,
    /// `[timeouts]`.
    pub timeouts: Timeouts,
    /// `[browser] viewport_width` and `viewport_height`.
    pub viewport: (u32, u32),
    /// The Chromium Windup runs (`[browser] executable`, else the one it finds);
    /// `CHROMIUM_PATH` in the environment overrides it.
    pub executable: Option<&'a Path>,
    /// `[browser] args`.
    pub args: &'a [String],
    /// `[browser] testid_attribute`, what `getByTestId` reads.
    pub testid_attribute: &'a str,
}

/// The config's text.
pub(super) fn config(input: &ConfigInput<'_>) -> String {
    let base = match input.base_url {
        Some(u) => format!("process.env.BASE_URL ?? {}", ts::string(u.as_str())),
        None => "process.env.BASE_URL".to_string(),
    };
    let executable = match input.executable {
        Some(p) => format!(
            "process.env.CHROMIUM_PATH || {}",
            ts::string(&p.to_string_lossy())
        ),
        None => "process.env.CHROMIUM_PATH || undefined".to_string(),
    };
    let args: Vec<String> = input.args.iter().map(|a| ts::string(a)).collect();
    let ms = |d: std::time::Duration| d.as_millis();
    let mut out = String::new();
    let _ = write!(
        out,
        "// Written by `windup export --format playwright` because there was none; yours to edit\n\
         // (exporting again never overwrites it). The settings are windup.toml's.\n\
         import {{ defineConfig }} from '@playwright/test';\n\
         \n\
         export default defineConfig({{\n  \
           testDir: '.',\n  \
           // [timeouts] scenario_ms: a whole scenario (a scenario's own timeout_ms is set in its spec).\n  \
           timeout: {scenario},\n  \
           // [timeouts] action_ms: how long a step waits for its target and for its postconditions.\n  \
           expect: {{ timeout: {action} }},\n  \
           use: {{\n    \
             baseURL: {base},\n    \
             actionTimeout: {action},\n    \
             navigationTimeout: {navigation},\n    \
             viewport: {{ width: {width}, height: {height} }},\n    \
             // Chromium: CHROMIUM_PATH, else the one Windup ran when exporting, else Playwright's own.\n    \
             launchOptions: {{ executablePath: {executable}, args: [{args}] }},\n    \
             // [browser] testid_attribute: the attribute getByTestId reads.\n    \
             testIdAttribute: {testid},\n  \
           }},\n  \
           projects: [\n    \
             // Setup scenarios save their storage (in .auth/) for the specs that need it.\n    \
             {{ name: 'setup', testMatch: /\\.setup\\.ts$/ }},\n    \
             {{ name: 'chromium', testMatch: /\\.spec\\.ts$/, dependencies: ['setup'] }},\n  \
           ],\n\
         }});\n",
        scenario = ms(input.timeouts.scenario),
        action = ms(input.timeouts.action),
        navigation = ms(input.timeouts.navigation),
        width = input.viewport.0,
        height = input.viewport.1,
        args = args.join(", "),
        testid = ts::string(input.testid_attribute),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carries_windup_toml_over() {
        let base = url::Url::parse("http://127.0.0.1:8080").unwrap();
        let text = config(&ConfigInput {
            base_url: Some(&base),
            timeouts: Timeouts::default(),
            viewport: (1280, 800),
            executable: Some(Path::new("/usr/bin/chromium")),
            args: &["--lang=en".to_string()],
            testid_attribute: "data-test",
        });
        for needle in [
            r#"baseURL: process.env.BASE_URL ?? "http://127.0.0.1:8080/","#,
            "timeout: 60000,",
            "expect: { timeout: 5000 },",
            "actionTimeout: 5000,",
            "navigationTimeout: 15000,",
            "viewport: { width: 1280, height: 800 },",
            r#"launchOptions: { executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium", args: ["--lang=en"] },"#,
            r#"testIdAttribute: "data-test","#,
            r"{ name: 'setup', testMatch: /\.setup\.ts$/ },",
            r"{ name: 'chromium', testMatch: /\.spec\.ts$/, dependencies: ['setup'] },",
        ] {
            assert!(text.contains(needle), "{needle}\n{text}");
        }
    }
}
