//! One scenario's verified plan as a `@playwright/test` spec: the start URL, then every step
//! in order with its postconditions, fragments written out in place, a setup's storage saved
//! and a dependent's loaded, each locator as `resolve` knows it, and only the pieces of
//! `runtime` the spec uses. The spec imports `@playwright/test` and Node's own modules only.

use std::fmt::Write;

use windup_model::{Action, ActionType, Plan, Scenario, Selector};

use super::assertion::assertions;
use super::resolve::{Resolution, Sites};
use super::runtime::{
    ACCEPT_DIALOGS, MISSING_HELPER, SAVED_STORAGE_HELPER, STORAGE_FILE_HELPER, TOTP_HELPER,
    files_helper, prelude, probe_helpers, value_helper,
};
use super::ts;
use crate::fragments::Fragments;

/// Nested `use` deeper than this is a loop (the executor's limit).
const MAX_FRAGMENT_DEPTH: usize = 8;

/// The page variable every step acts on: Windup's current tab.
const PAGE: &str = "page";

/// What is wrong with a plan for export: the field and what to change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Bad {
    /// The field's path in the plan's file, such as `plan.actions[2].use`.
    pub field: String,
    /// What is wrong.
    pub problem: String,
    /// What to do about it.
    pub fix: String,
}

/// A scenario with its verified plan, ready to write.
pub(super) struct SpecInput<'a> {
    /// The scenario (its id, task, time limit, setup role and needs).
    pub scenario: &'a Scenario,
    /// Its verified plan.
    pub plan: &'a Plan,
    /// Where the plan was read, for the header (relative to the project root).
    pub plan_file: &'a str,
    /// The project's fragments, written out where a step uses one.
    pub fragments: &'a Fragments,
    /// The ENV names of the manifest's TOTP secrets: a `value_ref` naming one types the code.
    pub totp: &'a [String],
    /// The project's `e2e/files/` as seen from the folder the spec is written to.
    pub files_dir: &'a str,
    /// What is known of the app's pages, which decides how each locator is written.
    pub resolution: Resolution<'a>,
}

/// The spec's text.
pub(super) fn spec(input: &SpecInput<'_>) -> Result<String, Bad> {
    let scenario = input.scenario;
    let sites = Sites::of(input.resolution, &scenario.id);
    let probe = matches!(sites, Sites::Probe);
    let mut body = Body {
        lines: Vec::new(),
        secret_helper: false,
        value_helper: false,
        files_helper: false,
        totp_helper: false,
        fs: false,
        totp: input.totp.to_vec(),
        sites,
        tabs: 0,
    };
    body.line(&format!(
        "await {PAGE}.goto({});",
        ts::string(&input.plan.start_url)
    ));
    for (i, action) in input.plan.actions.iter().enumerate() {
        body.step(action, &format!("plan.actions[{i}]"), input.fragments, 0)?;
    }
    let storage = !scenario.needs.is_empty() || scenario.setup;
    if scenario.setup {
        body.blank();
        body.line("// Windup saves a passed setup's storage for the scenarios that need it.");
        body.line(&format!(
            "await context.storageState({{ path: storageFile(test.info().project.testDir, {}) }});",
            ts::string(&scenario.id)
        ));
    }

    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Exported by `windup export --format playwright` from the verified plan of `{}`\n\
         // ({}).\n\
         // Plain Playwright, no Windup dependency; exporting again overwrites this file.",
        ts::comment(&scenario.id),
        ts::comment(input.plan_file)
    );
    // Windup's page behaviour in full where nothing is known of the pages.
    let follow = sites.follows_every_step();
    let dialogs = matches!(sites, Sites::Known(e) if e.dialogs);
    let mut names = vec!["expect", "test"];
    if body.value_helper || probe {
        names.push("type Locator");
    }
    if follow {
        names.push("type Page");
    }
    let _ = writeln!(
        out,
        "import {{ {} }} from '@playwright/test';",
        names.join(", ")
    );
    if body.totp_helper {
        out.push_str("import * as crypto from 'node:crypto';\n");
    }
    if !scenario.needs.is_empty() || body.fs || probe {
        out.push_str("import * as fs from 'node:fs';\n");
    }
    if storage || body.files_helper {
        out.push_str("import * as path from 'node:path';\n");
    }
    out.push('\n');
    if !scenario.needs.is_empty() {
        let needs: Vec<String> = scenario.needs.iter().map(|n| ts::string(n)).collect();
        let _ = writeln!(
            out,
            "// Windup starts this scenario with the storage its setups saved: {}.\n\
             test.use({{\n  storageState: async ({{}}, use, testInfo) =>\n    \
             use(savedStorage(testInfo.project.testDir, [{}])),\n}});\n",
            ts::comment(&scenario.needs.join(", ")),
            needs.join(", ")
        );
    }
    let page = if follow || body.tabs > 0 {
        "page: first"
    } else {
        "page"
    };
    let context = if follow || scenario.setup {
        ", context"
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "test({}, async ({{ {page}{context} }}) => {{",
        ts::string(&scenario.id)
    );
    for line in ts::comment_lines(&input.plan.task, 94) {
        let _ = writeln!(out, "  // {line}");
    }
    if let Some(ms) = scenario.timeout_ms {
        let _ = writeln!(out, "  test.setTimeout({ms});");
    }
    if follow {
        out.push_str(&prelude(probe));
    } else {
        if body.tabs > 0 {
            out.push_str("  let page = first;\n");
        }
        if dialogs {
            let _ = writeln!(
                out,
                "  // As Windup: every dialog is accepted (a prompt with its default text).\n  {ACCEPT_DIALOGS}"
            );
        }
    }
    for line in &body.lines {
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "  {line}");
        }
    }
    out.push_str("});\n");
    if body.secret_helper {
        out.push_str(MISSING_HELPER);
    }
    if probe {
        out.push_str(&probe_helpers(&scenario.id));
    }
    if body.value_helper {
        out.push_str(&value_helper(probe));
    }
    if body.files_helper {
        out.push_str(&files_helper(input.files_dir));
    }
    if body.totp_helper {
        out.push_str(TOTP_HELPER);
    }
    if storage {
        out.push_str(STORAGE_FILE_HELPER);
    }
    if !scenario.needs.is_empty() {
        out.push_str(SAVED_STORAGE_HELPER);
    }
    Ok(out)
}

/// The lines inside the test function, and which helpers they call.
struct Body<'a> {
    lines: Vec<String>,
    secret_helper: bool,
    value_helper: bool,
    files_helper: bool,
    totp_helper: bool,
    /// A step reads a file's size (`node:fs`).
    fs: bool,
    /// The manifest's TOTP secrets' ENV names.
    totp: Vec<String>,
    /// How locators are written.
    sites: Sites<'a>,
    /// Tabs the steps move into (known only from a probe).
    tabs: usize,
}

impl Body<'_> {
    fn line(&mut self, line: &str) {
        self.lines.push(line.to_string());
    }

    fn blank(&mut self) {
        self.lines.push(String::new());
    }

    /// One step: a comment naming it, the action, its postconditions.
    fn step(
        &mut self,
        action: &Action,
        field: &str,
        fragments: &Fragments,
        depth: usize,
    ) -> Result<(), Bad> {
        self.blank();
        let mut label = match (action.kind, &action.use_fragment) {
            (ActionType::Use, Some(id)) => {
                let about = fragments
                    .get(id)
                    .map(|f| f.description.as_str())
                    .unwrap_or("");
                format!(
                    "// {}: fragment `{id}` (e2e/fragments/{id}.json): {about}",
                    action.id
                )
            }
            _ => format!("// {}: {}", action.id, action.summary()),
        };
        if let Some(d) = action
            .target
            .as_ref()
            .and_then(|t| t.description.as_deref())
        {
            let _ = write!(label, " ({d})");
        }
        self.line(&ts::comment(&label));
        let timeout = action.timeout_ms;
        let opt = |first: bool| match timeout {
            Some(ms) if first => format!("{{ timeout: {ms} }}"),
            Some(ms) => format!(", {{ timeout: {ms} }}"),
            None => String::new(),
        };
        let target = || -> Result<Selector, Bad> {
            let source = action
                .target
                .as_ref()
                .map(|t| t.selector.as_str())
                .ok_or_else(|| Bad {
                    field: format!("{field}.target"),
                    problem: format!("`{}` has no target", action.kind),
                    fix: "run `windup validate` and fix the plan".into(),
                })?;
            let selector = Selector::parse(source).map_err(|e| Bad {
                field: format!("{field}.target.selector"),
                problem: format!("bad selector `{source}`: {e}"),
                fix: "run `windup validate` and fix the plan".into(),
            })?;
            Ok(selector)
        };
        let sites = self.sites;
        let id = action.id.as_str();
        let on = |call: &str| -> Result<String, Bad> {
            Ok(format!("await {};", sites.on(PAGE, id, &target()?, call)))
        };
        // A tab this step opened, known from the probe: waited for as a person would.
        let tab = sites.opened_tab(id).then(|| {
            self.tabs += 1;
            format!("popup{}", self.tabs)
        });
        if let Some(t) = &tab {
            self.line(&format!("const {t} = {PAGE}.waitForEvent('popup');"));
        }
        match action.kind {
            ActionType::Goto => {
                let url = action.url.as_deref().unwrap_or("/");
                self.line(&format!("await {PAGE}.goto({});", ts::string(url)));
            }
            ActionType::Click => self.line(&on(&format!("click({})", opt(true)))?),
            ActionType::Fill => {
                let text = self.text(action, field)?;
                self.line(&on(&format!("fill({text}{})", opt(false)))?);
            }
            ActionType::Press => {
                let key = ts::string(action.key.as_deref().unwrap_or_default());
                match action.target {
                    Some(_) => self.line(&on(&format!("press({key}{})", opt(false)))?),
                    // Windup presses the key in whatever has focus.
                    None => self.line(&format!("await {PAGE}.keyboard.press({key});")),
                }
            }
            ActionType::Select => {
                let text = self.text(action, field)?;
                self.line(&on(&format!("selectOption({text}{})", opt(false)))?);
            }
            ActionType::Check => self.line(&on(&format!("check({})", opt(true)))?),
            ActionType::Uncheck => self.line(&on(&format!("uncheck({})", opt(true)))?),
            ActionType::Hover => self.line(&on(&format!("hover({})", opt(true)))?),
            ActionType::WaitFor => self.line(&on(&format!("waitFor({})", opt(true)))?),
            ActionType::Use => self.fragment(action, field, fragments, depth)?,
            ActionType::Upload => {
                self.files_helper = true;
                let files = action.files.clone().unwrap_or_default();
                self.line(&on(&super::transfer::upload(&files, timeout))?);
            }
            ActionType::Download => {
                let want = action.expect.as_ref().and_then(|e| e.download.as_ref());
                self.fs |= want.is_some_and(|w| {
                    w.size.is_some() || w.min_size.is_some() || w.max_size.is_some()
                });
                let click = sites.on(PAGE, id, &target()?, &format!("click({})", opt(true)));
                let lines =
                    super::transfer::download(PAGE, &click, want, timeout).map_err(|problem| {
                        Bad {
                            field: format!("{field}.expect.download"),
                            problem: problem.to_string(),
                            fix: "run `windup validate` and fix the plan".into(),
                        }
                    })?;
                for l in lines {
                    self.line(&l);
                }
            }
        }
        // Windup looks for a tab the page opened before each step and each check.
        let input = !matches!(
            action.kind,
            ActionType::Goto | ActionType::WaitFor | ActionType::Use
        );
        match (self.sites, &tab) {
            (Sites::Unknown, _) if input => self.line("await followNewTab();"),
            (Sites::Probe, _) if input => {
                self.line(&format!("await followNewTab({});", ts::string(id)))
            }
            (Sites::Known(e), Some(t)) => {
                self.line("// As Windup: the steps move into the tab the page opened.");
                self.line(&format!("{PAGE} = await {t};"));
                if e.dialogs {
                    self.line(ACCEPT_DIALOGS);
                }
            }
            _ => {}
        }
        if let Some(expect) = action.expect.as_ref().filter(|e| e.has_page_checks()) {
            self.expect(expect, timeout, &format!("{field}.expect"), id)?;
        }
        Ok(())
    }

    /// A `use` step: the fragment's steps in its place, then the fragment's postconditions.
    fn fragment(
        &mut self,
        action: &Action,
        field: &str,
        fragments: &Fragments,
        depth: usize,
    ) -> Result<(), Bad> {
        let id = action.use_fragment.as_deref().unwrap_or_default();
        let bad = |problem: String| Bad {
            field: format!("{field}.use"),
            problem,
            fix: "add the fragment to e2e/fragments/, or run `windup validate` and fix the plan"
                .into(),
        };
        let fragment = fragments
            .get(id)
            .ok_or_else(|| bad(format!("no fragment `{id}` in e2e/fragments/")))?;
        if depth >= MAX_FRAGMENT_DEPTH {
            return Err(bad(format!(
                "fragments nest deeper than {MAX_FRAGMENT_DEPTH}"
            )));
        }
        for (i, inner) in fragment.actions.iter().enumerate() {
            let mut labelled = inner.clone();
            labelled.id = format!("{}:{id}:{}", action.id, inner.id);
            self.step(
                &labelled,
                &format!("e2e/fragments/{id}.json actions[{i}]"),
                fragments,
                depth + 1,
            )?;
        }
        if let Some(expect) = fragment.expect.as_ref().filter(|e| !e.is_empty()) {
            self.blank();
            self.line(&ts::comment(&format!(
                "// Fragment `{id}`'s own postconditions"
            )));
            self.expect(
                expect,
                action.timeout_ms,
                &format!("e2e/fragments/{id}.json expect"),
                &format!("{}.fragment", action.id),
            )?;
        }
        Ok(())
    }

    /// A step's postconditions (`site`: the step's id, or `<id>.fragment` for a fragment's own).
    fn expect(
        &mut self,
        expect: &windup_model::Expect,
        timeout: Option<u64>,
        field: &str,
        site: &str,
    ) -> Result<(), Bad> {
        let written =
            assertions(PAGE, expect, timeout, self.sites, site).map_err(|problem| Bad {
                field: field.to_string(),
                problem: problem.to_string(),
                fix: "run `windup validate` and fix the plan".into(),
            })?;
        self.value_helper |= written.value_helper;
        for l in written.lines {
            self.line(&l);
        }
        Ok(())
    }

    /// The text a `fill` types or a `select` picks: a literal, or the variable `value_ref`
    /// names, read from the environment when the spec runs. Never the variable's value.
    fn text(&mut self, action: &Action, field: &str) -> Result<String, Bad> {
        match (&action.value_ref, &action.value) {
            (Some(name), _) => {
                if !is_env_name(name) {
                    return Err(Bad {
                        field: format!("{field}.value_ref"),
                        problem: format!("`{name}` is not an environment variable name"),
                        fix: "name a variable in capitals, digits and `_`, declared in e2e/manifest.yaml".into(),
                    });
                }
                self.secret_helper = true;
                let value = format!("process.env.{name} ?? missing({})", ts::string(name));
                if self.totp.contains(name) {
                    // Windup types the current one-time code, never the secret.
                    self.totp_helper = true;
                    return Ok(format!("totp({value})"));
                }
                Ok(value)
            }
            (None, Some(v)) => Ok(ts::string(v)),
            (None, None) => Err(Bad {
                field: format!("{field}.value"),
                problem: format!("`{}` has neither `value` nor `value_ref`", action.kind),
                fix: "run `windup validate` and fix the plan".into(),
            }),
        }
    }
}

/// `^[A-Z][A-Z0-9_]*$`, as the plan schema says; checked again because it becomes code.
fn is_env_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_uppercase())
        && bytes.all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use windup_model::{DownloadExpect, Expect, Target};

    fn scenario(setup: bool, needs: &[&str]) -> Scenario {
        Scenario {
            id: "demo".into(),
            task: "Do it\n// and more".into(),
            start_url: "/".into(),
            hints: vec![],
            tags: vec![],
            timeout_ms: Some(30_000),
            setup,
            needs: needs.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn step(id: &str, kind: ActionType) -> Action {
        Action::on(id, kind, None)
    }

    fn plan(actions: Vec<Action>) -> Plan {
        Plan {
            plan_version: "0.1".into(),
            scenario_id: "demo".into(),
            task: "Do it\n// and more".into(),
            start_url: "/start".into(),
            generated_by: "human".into(),
            actions,
        }
    }

    fn export(s: &Scenario, p: &Plan, fragments: &Fragments) -> String {
        spec(&SpecInput {
            scenario: s,
            plan: p,
            plan_file: "e2e/.windup/cache/demo.json",
            fragments,
            totp: &[],
            files_dir: "../e2e/files",
            resolution: Resolution::Unknown,
        })
        .unwrap()
    }

    fn target(selector: &str) -> Option<Target> {
        Some(Target {
            selector: selector.into(),
            description: None,
        })
    }

    fn export_known(p: &Plan, evidence: &super::super::resolve::Evidence) -> String {
        spec(&SpecInput {
            scenario: &scenario(false, &[]),
            plan: p,
            plan_file: "e2e/.windup/cache/demo.json",
            fragments: &Fragments::default(),
            totp: &[],
            files_dir: "../e2e/files",
            resolution: Resolution::Known(evidence),
        })
        .unwrap()
    }

    fn evidence(findings: &str) -> super::super::resolve::Evidence {
        super::super::resolve::Evidence::read(findings, &["demo".to_string()])
    }

    /// Two steps on the same selector: unique when the first ran, ambiguous when the second did.
    fn save_twice() -> Plan {
        let mut a1 = step("a1", ActionType::Click);
        a1.target = target(r#"role=button[name="Save"]"#);
        a1.expect = Some(Expect {
            visible: Some("text=Saved".into()),
            ..Expect::default()
        });
        let mut a2 = a1.clone();
        a2.id = "a2".into();
        plan(vec![a1, a2])
    }

    #[test]
    fn a_locator_playwright_found_unique_is_written_plain() {
        let text = export_known(
            &save_twice(),
            &evidence(
                r#"{"spec":"demo","site":"a1","unique":true}
{"spec":"demo","site":"a1.visible","unique":true}
{"spec":"demo","site":"a2","unique":true}
{"spec":"demo","site":"a2.visible","unique":true}"#,
            ),
        );
        assert!(
            text.contains(
                "  // a1: click role=button[name=\"Save\"]\n  await page.getByRole(\"button\", { name: \"Save\", exact: true }).click();\n  await expect(page.getByText(\"Saved\")).toBeVisible();\n"
            ),
            "{text}"
        );
        assert!(!text.contains("filter({ visible: true })"), "{text}");
    }

    #[test]
    fn a_locator_playwright_found_ambiguous_takes_the_first_visible_match_on_that_step_only() {
        let text = export_known(
            &save_twice(),
            &evidence(
                r#"{"spec":"demo","site":"a1","unique":true}
{"spec":"demo","site":"a1.visible","unique":true}
{"spec":"demo","site":"a2","unique":false}
{"spec":"demo","site":"a2.visible","unique":true}"#,
            ),
        );
        assert!(
            text.contains(
                "  // a2: click role=button[name=\"Save\"]\n  await page.getByRole(\"button\", { name: \"Save\", exact: true }).filter({ visible: true }).first().click();\n  await expect(page.getByText(\"Saved\")).toBeVisible();\n"
            ),
            "{text}"
        );
        assert_eq!(
            text.matches("filter({ visible: true })").count(),
            1,
            "{text}"
        );
    }

    #[test]
    fn without_tabs_or_dialogs_there_is_no_follower_and_no_handler() {
        let text = export_known(
            &save_twice(),
            &evidence(r#"{"spec":"demo","site":"a1","unique":true}"#),
        );
        for absent in [
            "followNewTab",
            "popup",
            "dialog",
            "newCDPSession",
            "type Page",
            "page: first",
        ] {
            assert!(!text.contains(absent), "{absent}:\n{text}");
        }
        assert!(
            text.contains("test(\"demo\", async ({ page }) => {"),
            "{text}"
        );
        // A tab and a dialog seen: the step that opened the tab waits for it, as a person writes.
        let text = export_known(
            &save_twice(),
            &evidence(
                r#"{"spec":"demo","site":"a2","popup":true}
{"spec":"demo","dialog":true}"#,
            ),
        );
        assert!(!text.contains("followNewTab"), "{text}");
        assert!(
            text.contains("const popup1 = page.waitForEvent('popup');\n  await page.getByRole(\"button\", { name: \"Save\", exact: true }).filter({ visible: true }).first().click();\n  // As Windup: the steps move into the tab the page opened.\n  page = await popup1;\n  page.on('dialog'"),
            "{text}"
        );
        assert!(text.contains("let page = first;"), "{text}");
        assert_eq!(text.matches("waitForEvent('popup')").count(), 1, "{text}");
    }

    #[test]
    fn the_probe_tries_plain_locators_and_notes_tabs_and_value_kinds() {
        let mut a1 = step("a1", ActionType::Click);
        a1.target = target("css=#save");
        a1.expect = Some(Expect {
            value: Some(windup_model::ValueExpect {
                selector: "role=status".into(),
                equals: "Saved".into(),
            }),
            ..Expect::default()
        });
        let text = spec(&SpecInput {
            scenario: &scenario(false, &[]),
            plan: &plan(vec![a1.clone()]),
            plan_file: "p.json",
            fragments: &Fragments::default(),
            totp: &[],
            files_dir: "../e2e/files",
            resolution: Resolution::Probe,
        })
        .unwrap();
        for needle in [
            r##"await probe("a1", page.locator("#save"), (l) => l.click());"##,
            r#"await followNewTab("a1");"#,
            r#"await probe("a1.value", page.getByRole("status"), (l) => expectValue(l, "Saved", undefined, "a1.value"));"#,
            "if (site) record({ site, control });",
            "JSON.stringify({ spec: \"demo\", ...finding })",
        ] {
            assert!(text.contains(needle), "{needle}\n{text}");
        }
        // What the probe found decides the matcher: no helper left.
        let text = export_known(
            &plan(vec![a1]),
            &evidence(
                r#"{"spec":"demo","site":"a1.value","unique":true}
{"spec":"demo","site":"a1.value","control":false}"#,
            ),
        );
        assert!(
            text.contains(r#"await expect(page.getByRole("status")).toHaveText("Saved");"#),
            "{text}"
        );
        assert!(!text.contains("expectValue"), "{text}");
    }

    #[test]
    fn value_ref_reads_the_environment_never_a_value() {
        let mut fill = step("a1", ActionType::Fill);
        fill.target = target(r#"label="Password""#);
        fill.value_ref = Some("ADMIN_PASSWORD".into());
        let text = export(
            &scenario(false, &[]),
            &plan(vec![fill]),
            &Fragments::default(),
        );
        assert!(
            text.contains(r#".fill(process.env.ADMIN_PASSWORD ?? missing("ADMIN_PASSWORD"));"#),
            "{text}"
        );
        assert!(text.contains("function missing(name: string): never"));
    }

    #[test]
    fn dialogs_are_accepted_and_new_tabs_followed() {
        let text = export(
            &scenario(false, &[]),
            &plan(vec![step("a1", ActionType::Goto)]),
            &Fragments::default(),
        );
        assert!(text.contains("p.on('dialog', (dialog) => dialog.accept(dialog.defaultValue()));"));
        assert!(text.contains("p.on('popup', (tab) => {"));
        assert!(text.contains("const followNewTab = async () => {"));
        // The task's line break cannot start code.
        assert!(text.contains("  // Do it // and more\n"), "{text}");
        assert!(text.contains("test.setTimeout(30000);"));
    }

    #[test]
    fn actions_map_to_locator_methods() {
        let mut press = step("a1", ActionType::Press);
        press.key = Some("Enter".into());
        let mut select = step("a2", ActionType::Select);
        select.target = target("css=select#size");
        select.value = Some("Large".into());
        select.timeout_ms = Some(900);
        let mut check = step("a3", ActionType::Check);
        check.target = target("role=checkbox");
        let mut wait = step("a4", ActionType::WaitFor);
        wait.target = target("text=Done");
        let text = export(
            &scenario(false, &[]),
            &plan(vec![press, select, check, wait]),
            &Fragments::default(),
        );
        for needle in [
            r#"await page.goto("/start");"#,
            "await page.keyboard.press(\"Enter\");\n  await followNewTab();",
            r##"await page.locator("select#size").filter({ visible: true }).first().selectOption("Large", { timeout: 900 });"##,
            r#"await page.getByRole("checkbox").filter({ visible: true }).first().check();"#,
            r#"await page.getByText("Done").filter({ visible: true }).first().waitFor();"#,
        ] {
            assert!(text.contains(needle), "{needle}\n{text}");
        }
    }

    #[test]
    fn fragments_are_written_out_in_place() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("login.json"),
            r#"{"fragment_version":"0.1","id":"login","description":"Sign in",
               "actions":[{"id":"f1","type":"click","target":{"selector":"role=button[name=\"Sign in\"]"}}],
               "expect":{"url":"/home"}}"#,
        )
        .unwrap();
        let fragments = Fragments::load(dir.path()).unwrap();
        let mut use_step = step("a1", ActionType::Use);
        use_step.use_fragment = Some("login".into());
        let text = export(&scenario(false, &[]), &plan(vec![use_step]), &fragments);
        assert!(
            text.contains("// a1: fragment `login` (e2e/fragments/login.json): Sign in"),
            "{text}"
        );
        assert!(text.contains("// a1:login:f1: click role=button"), "{text}");
        assert!(text.contains(r#".getByRole("button", { name: "Sign in", exact: true })"#));
        assert!(text.contains("toHaveURL(new RegExp("), "{text}");
    }

    #[test]
    fn setups_save_storage_and_dependents_load_it() {
        let goto = step("a1", ActionType::Goto);
        let setup = export(
            &scenario(true, &[]),
            &plan(vec![goto.clone()]),
            &Fragments::default(),
        );
        assert!(setup.contains(
            r#"await context.storageState({ path: storageFile(test.info().project.testDir, "demo") });"#
        ));
        let dependent = export(
            &scenario(false, &["sign-in"]),
            &plan(vec![goto]),
            &Fragments::default(),
        );
        assert!(
            dependent.contains("use(savedStorage(testInfo.project.testDir, [\"sign-in\"]))"),
            "{dependent}"
        );
        assert!(dependent.contains("import * as fs from 'node:fs';"));
    }

    #[test]
    fn a_value_check_brings_its_helper() {
        let mut click = step("a1", ActionType::Click);
        click.target = target("role=button");
        click.expect = Some(Expect {
            value: Some(windup_model::ValueExpect {
                selector: "role=status".into(),
                equals: "Saved".into(),
            }),
            ..Expect::default()
        });
        let text = export(
            &scenario(false, &[]),
            &plan(vec![click]),
            &Fragments::default(),
        );
        assert!(text.contains("import { expect, test, type Locator, type Page }"));
        assert!(text.contains("async function expectValue(target: Locator"));
    }

    #[test]
    fn a_totp_value_ref_types_the_code_and_files_move_through_playwright() {
        let step = |id: &str, kind: ActionType, selector: &str| Action {
            target: target(selector),
            ..step(id, kind)
        };
        let plan = Plan {
            plan_version: "0.2".into(),
            ..plan(vec![
                Action {
                    value_ref: Some("ADMIN_TOTP".into()),
                    ..step("a1", ActionType::Fill, "label=\"Code\"")
                },
                Action {
                    value_ref: Some("ADMIN_PASSWORD".into()),
                    ..step("a2", ActionType::Fill, "label=\"Password\"")
                },
                Action {
                    files: Some(vec!["invoice.pdf".into()]),
                    ..step("a3", ActionType::Upload, "label=\"Invoice\"")
                },
                Action {
                    expect: Some(Expect {
                        download: Some(DownloadExpect {
                            name: Some("report.csv".into()),
                            size: Some(8),
                            ..Default::default()
                        }),
                        ..Default::default()
                    }),
                    ..step("a4", ActionType::Download, "role=link[name=\"Report\"]")
                },
            ])
        };
        let text = spec(&SpecInput {
            scenario: &scenario(false, &[]),
            plan: &plan,
            plan_file: "p.json",
            fragments: &Fragments::default(),
            totp: &["ADMIN_TOTP".to_string()],
            files_dir: "../e2e/files",
            resolution: Resolution::Unknown,
        })
        .unwrap();
        assert!(
            text.contains("fill(totp(process.env.ADMIN_TOTP ?? missing(\"ADMIN_TOTP\")))"),
            "{text}"
        );
        assert!(
            text.contains("fill(process.env.ADMIN_PASSWORD ?? missing(\"ADMIN_PASSWORD\"))"),
            "{text}"
        );
        assert!(text.contains("function totp(secret: string)"), "{text}");
        assert!(
            text.contains("import * as crypto from 'node:crypto';"),
            "{text}"
        );
        assert!(
            text.contains(".setInputFiles([windupFile(\"invoice.pdf\")])"),
            "{text}"
        );
        assert!(text.contains("function windupFile(name: string)"), "{text}");
        assert!(text.contains("page.waitForEvent('download')"), "{text}");
        assert!(text.contains("expect(size).toBe(8);"), "{text}");
        assert!(text.contains("import * as fs from 'node:fs';"), "{text}");
        // The download's check is on the file, never a page assertion.
        assert!(!text.contains("toBeVisible"), "{text}");
    }
}
