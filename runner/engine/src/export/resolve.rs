//! Which locators of a spec are unique on the live app, and how each is written accordingly.
//!
//! Windup acts on the first visible match; Playwright is strict (more than one match is an
//! error) and counts hidden matches. A spec a person writes says `getByRole(…)` where that is
//! unique and `….filter({ visible: true }).first()` only where it is not, and that depends on the
//! app's pages at each step, which only running the flow shows. So `--check` runs each spec
//! first as a *probe* ([`Resolution::Probe`]): every step and check is tried on its plain
//! locator under Playwright's own strict mode and, where Playwright reports a strict-mode
//! violation, on the first visible match; counts are compared with and without hidden matches;
//! and the tabs and dialogs the pages open are noted. Playwright's own verdicts are appended to
//! a file ([`PROBE_ENV`] names it) and read back as [`Evidence`]; the specs are then written
//! from it ([`Resolution::Known`]): plain where the plain locator was unique every time,
//! filtered only on the steps where it was not, the tab follower only where a step opened a
//! tab, the dialog handler only where a dialog came. A spec whose probe failed, or an export
//! without `--check` ([`Resolution::Unknown`]), keeps the filtered form everywhere and the tab
//! follower after every step: with no run, nothing is known, and that form does what Windup
//! does on any page.
//!
//! Evidence is taken from a run rather than from the plan because the plan carries none: a
//! selector that is unique on one page state is not on another (a menu item once its submenu
//! opens, a row once a second one is added), and Windup's own verified run does not record
//! match counts.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use windup_model::{Part, Selector};

use super::locator::{Resolve, every_match, locator};
use super::ts;

/// The environment variable naming the file a probing spec appends its findings to.
pub const PROBE_ENV: &str = "WINDUP_PROBE";

/// How the specs of an export resolve their locators.
#[derive(Debug, Clone, Copy, Default)]
pub enum Resolution<'a> {
    /// Nothing is known: the first visible match everywhere, the tab follower after each step.
    #[default]
    Unknown,
    /// The probing form `--check` runs first.
    Probe,
    /// Written from what the probe found (a scenario it has no evidence for is `Unknown`).
    Known(&'a Evidence),
}

/// What probing found, per scenario id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Evidence {
    specs: BTreeMap<String, SpecEvidence>,
}

/// What probing found in one scenario's spec.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct SpecEvidence {
    /// Sites whose plain locator passed under strict mode (or, for a count, counted no hidden
    /// match) every time they ran.
    pub unique: BTreeSet<String>,
    /// Sites where it did not at least once.
    pub ambiguous: BTreeSet<String>,
    /// Steps after which the page had opened a tab that the steps then moved into.
    pub popups: BTreeSet<String>,
    /// Whether any page showed a dialog.
    pub dialogs: bool,
    /// `value` sites, and whether their element was a form control (`toHaveValue`) or not
    /// (`toHaveText`).
    pub controls: BTreeMap<String, bool>,
}

/// One line a probing spec appends.
#[derive(Deserialize)]
struct Finding {
    spec: String,
    #[serde(default)]
    site: Option<String>,
    #[serde(default)]
    unique: Option<bool>,
    #[serde(default)]
    popup: Option<bool>,
    #[serde(default)]
    dialog: Option<bool>,
    #[serde(default)]
    control: Option<bool>,
}

impl Evidence {
    /// Reads a probe's findings, keeping only the scenarios in `passed` (a spec that failed may
    /// not have reached every step). Lines that do not parse are ignored: the file is written
    /// by the probes alone, and a missing finding only keeps a step in the filtered form.
    pub fn read(text: &str, passed: &[String]) -> Evidence {
        let mut specs: BTreeMap<String, SpecEvidence> = BTreeMap::new();
        for finding in text
            .lines()
            .filter_map(|l| serde_json::from_str::<Finding>(l).ok())
        {
            if !passed.contains(&finding.spec) {
                continue;
            }
            let e = specs.entry(finding.spec).or_default();
            if finding.dialog == Some(true) {
                e.dialogs = true;
            }
            let Some(site) = finding.site else { continue };
            match finding.unique {
                Some(true) => {
                    e.unique.insert(site.clone());
                }
                Some(false) => {
                    e.ambiguous.insert(site.clone());
                }
                None => {}
            }
            if finding.popup == Some(true) {
                e.popups.insert(site.clone());
            }
            if let Some(c) = finding.control {
                e.controls.insert(site, c);
            }
        }
        Evidence { specs }
    }

    /// The scenarios there is evidence for.
    pub fn scenarios(&self) -> impl Iterator<Item = &str> {
        self.specs.keys().map(String::as_str)
    }

    pub(super) fn spec(&self, id: &str) -> Option<&SpecEvidence> {
        self.specs.get(id)
    }
}

/// How one spec writes its locators.
#[derive(Debug, Clone, Copy)]
pub(super) enum Sites<'a> {
    Unknown,
    Probe,
    Known(&'a SpecEvidence),
}

impl<'a> Sites<'a> {
    /// The form for scenario `id` under `resolution`.
    pub(super) fn of(resolution: Resolution<'a>, id: &str) -> Sites<'a> {
        match resolution {
            Resolution::Unknown => Sites::Unknown,
            Resolution::Probe => Sites::Probe,
            Resolution::Known(e) => e.spec(id).map_or(Sites::Unknown, Sites::Known),
        }
    }

    /// Whether the spec follows tabs after every step (nothing is known of them).
    pub(super) fn follows_every_step(self) -> bool {
        !matches!(self, Sites::Known(_))
    }

    /// Whether the page opened a tab after step `site` (only ever known evidence).
    pub(super) fn opened_tab(self, site: &str) -> bool {
        matches!(self, Sites::Known(e) if e.popups.contains(site))
    }

    /// Whether the plain locator of `site` is known to be unique.
    fn unique(self, site: &str) -> bool {
        matches!(self, Sites::Known(e) if e.unique.contains(site) && !e.ambiguous.contains(site))
    }

    /// `write(l)` with `l` the locator of the element `selector` picks: the plain locator where
    /// it is known unique, the first visible match where not or where nothing is known, and in
    /// the probe a call of `probe` that tries the plain one first.
    pub(super) fn with(
        self,
        page: &str,
        site: &str,
        selector: &Selector,
        write: impl Fn(&str) -> String,
    ) -> String {
        if picks_its_own(selector) {
            return write(&every_match(page, selector));
        }
        match self {
            Sites::Probe => format!(
                "probe({}, {}, (l) => {})",
                ts::string(site),
                every_match(page, selector),
                write("l")
            ),
            _ if self.unique(site) => write(&every_match(page, selector)),
            _ => write(&locator(page, selector, Resolve::First)),
        }
    }

    /// `call` (`click()`, `fill("x")`…) on the element `selector` picks, as an expression to
    /// await.
    pub(super) fn on(self, page: &str, site: &str, selector: &Selector, call: &str) -> String {
        self.with(page, site, selector, |l| format!("{l}.{call}"))
    }

    /// An assertion (`toBeVisible()`…) on the element `selector` picks, as an expression to
    /// await.
    pub(super) fn expect(
        self,
        page: &str,
        site: &str,
        selector: &Selector,
        matcher: &str,
    ) -> String {
        self.with(page, site, selector, |l| format!("expect({l}).{matcher}"))
    }

    /// `toHaveCount(n)` of the visible matches: on the plain locator where the probe found no
    /// hidden match when the count held.
    pub(super) fn count(self, page: &str, site: &str, selector: &Selector, args: &str) -> String {
        if picks_its_own(selector) {
            return format!(
                "expect({}).toHaveCount({args})",
                locator(page, selector, Resolve::AllVisible)
            );
        }
        match self {
            Sites::Probe => format!(
                "probeCount({}, {}, {args})",
                ts::string(site),
                every_match(page, selector)
            ),
            _ if self.unique(site) => {
                format!(
                    "expect({}).toHaveCount({args})",
                    every_match(page, selector)
                )
            }
            _ => format!(
                "expect({}).toHaveCount({args})",
                locator(page, selector, Resolve::AllVisible)
            ),
        }
    }

    /// Whether the element of the `value` check at `site` was a form control, when known.
    pub(super) fn control(self, site: &str) -> Option<bool> {
        match self {
            Sites::Known(e) => e.controls.get(site).copied(),
            _ => None,
        }
    }
}

/// A selector ending in `nth=` already picks one visible match: nothing to resolve.
fn picks_its_own(selector: &Selector) -> bool {
    matches!(selector.parts.last(), Some(Part::Nth { .. }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(s: &str) -> Selector {
        Selector::parse(s).unwrap()
    }

    #[test]
    fn findings_of_passed_specs_only_and_a_site_ambiguous_once_stays_ambiguous() {
        let text = r#"{"spec":"a","site":"a1","unique":true}
{"spec":"a","site":"a2","unique":true}
{"spec":"a","site":"a2","unique":false}
{"spec":"a","site":"a3","popup":true}
{"spec":"a","dialog":true}
{"spec":"a","site":"a4.value","control":false}
not json
{"spec":"b","site":"a1","unique":true}
"#;
        let e = Evidence::read(text, &["a".to_string()]);
        assert_eq!(e.scenarios().collect::<Vec<_>>(), ["a"]);
        let sites = Sites::of(Resolution::Known(&e), "a");
        assert!(sites.unique("a1"));
        assert!(!sites.unique("a2"));
        assert!(sites.opened_tab("a3"));
        assert!(!sites.follows_every_step());
        assert_eq!(sites.control("a4.value"), Some(false));
        // No evidence for b (it failed): the safe form.
        assert!(Sites::of(Resolution::Known(&e), "b").follows_every_step());
    }

    #[test]
    fn unique_is_plain_ambiguous_is_the_first_visible_match_unknown_is_safe() {
        let spec = SpecEvidence {
            unique: BTreeSet::from(["a1".to_string()]),
            ambiguous: BTreeSet::from(["a2".to_string()]),
            ..SpecEvidence::default()
        };
        let known = Sites::Known(&spec);
        let save = sel(r#"role=button[name="Save"]"#);
        assert_eq!(
            known.on("page", "a1", &save, "click()"),
            r#"page.getByRole("button", { name: "Save", exact: true }).click()"#
        );
        assert_eq!(
            known.on("page", "a2", &save, "click()"),
            r#"page.getByRole("button", { name: "Save", exact: true }).filter({ visible: true }).first().click()"#
        );
        // A site the probe never saw is not assumed unique.
        assert_eq!(
            known.on("page", "a9", &save, "click()"),
            Sites::Unknown.on("page", "a9", &save, "click()")
        );
        assert_eq!(
            known.expect("page", "a1", &sel("text=Saved"), "toBeVisible()"),
            r#"expect(page.getByText("Saved")).toBeVisible()"#
        );
        assert_eq!(
            known.count("page", "a1", &sel("css=li"), "2"),
            r#"expect(page.locator("li")).toHaveCount(2)"#
        );
        assert_eq!(
            known.count("page", "a2", &sel("css=li"), "2"),
            r#"expect(page.locator("li").filter({ visible: true })).toHaveCount(2)"#
        );
        // `nth=` picks its own match whatever is known.
        assert_eq!(
            known.on("page", "a1", &sel("css=li >> nth=1"), "click()"),
            r#"page.locator("li").filter({ visible: true }).nth(1).click()"#
        );
    }

    #[test]
    fn the_probe_tries_the_plain_locator_first() {
        assert_eq!(
            Sites::Probe.on("page", "a1", &sel("css=#q"), r#"fill("x")"#),
            r##"probe("a1", page.locator("#q"), (l) => l.fill("x"))"##
        );
        assert_eq!(
            Sites::Probe.count("page", "a1.count", &sel("css=li"), "3"),
            r#"probeCount("a1.count", page.locator("li"), 3)"#
        );
    }
}
