//! A cached plan checked against the site map before it replays: the plan is at risk when a
//! route it goes to left the app's source (the last scan no longer finds it), or when a target
//! it relies on (by role and name, label, placeholder or test id) left its page's inventory.
//!
//! An inventory is what a run saw when the page loaded, so it says nothing of a dialog or a
//! menu a step opens: only the first step that acts after arriving on a page is judged by it.
//! The scan's controls are those of the route's own file, without the components it imports,
//! so they feed the planner's slice but never make a target at risk.
//! At risk is a warning, not a verdict: the replay still runs first (it costs nothing, and may
//! pass); only with `--replan-at-risk` and a provider is the plan re-planned up front.

use windup_model::sitemap::{Control, MAX_CONTROLS, Page, SiteMap, Source};
use windup_model::{Action, ActionType, Part, Plan, Selector};

/// Why a plan is at risk, for the report and the re-planning prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtRisk {
    /// Each reason, one line.
    pub reasons: Vec<String>,
}

impl AtRisk {
    /// The reasons in one sentence.
    pub fn describe(&self) -> String {
        format!(
            "the site map says the plan is at risk: {}",
            self.reasons.join("; ")
        )
    }
}

/// Whether the map says `plan` will break.
pub fn at_risk(map: &SiteMap, plan: &Plan) -> Option<AtRisk> {
    let mut reasons = Vec::new();
    let scanned = map.scan.as_ref().is_some_and(|s| s.routes > 0);
    let mut at = route_check(map, &plan.start_url, scanned, "the start URL", &mut reasons);
    // Whether nothing has acted on the page since it loaded: its inventory still describes it.
    let mut fresh = true;
    for a in &plan.actions {
        match a.kind {
            ActionType::Goto => {
                let url = a.url.as_deref().unwrap_or("/");
                at = route_check(map, url, scanned, &format!("step {}", a.id), &mut reasons);
                fresh = true;
                continue;
            }
            ActionType::Use => {
                at = None;
                continue;
            }
            _ => {}
        }
        let Some(page) = at else {
            continue;
        };
        // A wait is for what a step brought about, often no control at all: not judged.
        if let Some(t) = &a.target
            && fresh
            && a.kind != ActionType::WaitFor
            && let Some(false) = present(page, &t.selector)
        {
            reasons.push(format!(
                "step {}'s target {} is no longer in the inventory of {}",
                a.id, t.selector, page.route
            ));
        }
        if a.kind != ActionType::WaitFor {
            fresh = false;
        }
        at = next_page(map, page, a);
        if at.is_some_and(|p| p.route != page.route) {
            fresh = true;
        }
    }
    (!reasons.is_empty()).then_some(AtRisk { reasons })
}

/// The page a URL opens, noting when the last scan no longer has its route.
fn route_check<'m>(
    map: &'m SiteMap,
    url: &str,
    scanned: bool,
    what: &str,
    reasons: &mut Vec<String>,
) -> Option<&'m Page> {
    let path = path_of(url);
    let page = map.page_for(&path);
    if scanned && !page.is_some_and(|p| p.scanned) {
        reasons.push(format!(
            "{what} goes to {path}, a route the last scan did not find in the app's source"
        ));
    }
    page
}

fn path_of(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) => u.path().to_string(),
        Err(_) => url.split(['?', '#']).next().unwrap_or(url).to_string(),
    }
}

/// Where a step leads: along a known edge; nowhere known when it expects another URL; else
/// the same page.
fn next_page<'m>(map: &'m SiteMap, page: &'m Page, a: &Action) -> Option<&'m Page> {
    let via = windup_model::sitemap::step_via(a);
    if let Some(e) = map
        .edges
        .iter()
        .find(|e| e.from == page.route && e.via == via)
    {
        return map.pages.iter().find(|p| p.route == e.to);
    }
    match a.expect.as_ref().and_then(|e| e.url.as_ref()) {
        Some(_) => None,
        None => Some(page),
    }
}

/// Roles an inventory records (the in-page engine's interactive elements).
const INTERACTIVE: [&str; 14] = [
    "button",
    "link",
    "textbox",
    "searchbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "menuitem",
    "tab",
    "switch",
    "slider",
    "spinbutton",
    "option",
];

/// Whether the inventory runs saw on the page has the selector's first part; `None` when it
/// cannot say (a CSS or text selector, no inventory from a run, one that was cut short, or one
/// that never records the kind).
fn present(page: &Page, selector: &str) -> Option<bool> {
    let parsed = Selector::parse(selector).ok()?;
    let controls: Vec<&Control> = page
        .controls
        .iter()
        .filter(|c| c.source == Source::Execution)
        .collect();
    if controls.is_empty() || controls.len() >= MAX_CONTROLS {
        return None;
    }
    let matches = |want: &str, got: &str, exact: bool| {
        if exact {
            got == want
        } else {
            got.to_lowercase().contains(&want.to_lowercase())
        }
    };
    match parsed.parts.first()? {
        // The inventory holds interactive elements only: a list or a heading is never in it.
        Part::Role { role, .. } if !INTERACTIVE.contains(&role.as_str()) => None,
        Part::Role { role, name, .. } => Some(controls.iter().any(|c| {
            c.role == *role
                && name
                    .as_ref()
                    .is_none_or(|n| matches(&n.value, &c.name, n.exact))
        })),
        Part::Label { value, exact } => {
            Some(controls.iter().any(|c| matches(value, &c.name, *exact)))
        }
        Part::Placeholder { value, exact } => {
            let known: Vec<&str> = controls
                .iter()
                .filter_map(|c| c.placeholder.as_deref())
                .collect();
            (!known.is_empty()).then(|| known.iter().any(|p| matches(value, p, *exact)))
        }
        Part::Testid { value } => {
            let known: Vec<&str> = controls
                .iter()
                .filter_map(|c| c.testid.as_deref())
                .collect();
            (!known.is_empty()).then(|| known.contains(&value.as_str()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use windup_model::sitemap::ScanInfo;

    fn map() -> SiteMap {
        let mut map = SiteMap::new();
        map.scan = Some(ScanInfo {
            sha: "x".into(),
            routes: 2,
        });
        for (route, controls) in [
            (
                "/projects",
                vec![("link", "Billing"), ("button", "New project")],
            ),
            ("/projects/:id", vec![("button", "Archive")]),
        ] {
            map.pages.push(Page {
                route: route.into(),
                source: Source::Static,
                scanned: true,
                title: None,
                signature: None,
                file: None,
                controls: controls
                    .into_iter()
                    .map(|(r, n)| Control {
                        role: r.into(),
                        name: n.into(),
                        placeholder: None,
                        testid: None,
                        source: Source::Execution,
                    })
                    .collect(),
                seen: 0,
            });
        }
        map
    }

    fn plan(start: &str, actions: &str) -> Plan {
        serde_json::from_str(&format!(
            r#"{{"plan_version":"0.1","scenario_id":"s","task":"t","start_url":"{start}","generated_by":"x","actions":{actions}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn a_plan_whose_targets_and_routes_are_known_is_not_at_risk() {
        let p = plan(
            "/projects",
            r#"[{"id":"a1","type":"click","target":{"selector":"role=button[name=\"New project\"]"}},
                {"id":"a2","type":"goto","url":"/projects/7"},
                {"id":"a3","type":"click","target":{"selector":"role=button[name=\"Archive\"]"}},
                {"id":"a4","type":"click","target":{"selector":"role=button[name=\"In a dialog\"]"}},
                {"id":"a5","type":"click","target":{"selector":"text=Anything"}}]"#,
        );
        assert_eq!(at_risk(&map(), &p), None);
    }

    #[test]
    fn a_target_that_left_the_inventory_or_a_route_that_left_the_source_is_at_risk() {
        let p = plan(
            "/projects",
            r#"[{"id":"a1","type":"click","target":{"selector":"role=button[name=\"Delete all\"]"}},
                {"id":"a2","type":"goto","url":"/reports"}]"#,
        );
        let risk = at_risk(&map(), &p).unwrap();
        assert_eq!(risk.reasons.len(), 2, "{risk:?}");
        assert!(risk.reasons[0].contains("a1"), "{risk:?}");
        assert!(risk.reasons[1].contains("/reports"), "{risk:?}");
    }
}
