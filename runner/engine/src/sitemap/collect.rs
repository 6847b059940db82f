//! Passive collection: every page the executor reports (`Event::PageSeen`) becomes an
//! `execution` fact, and each step that led from one page to another an edge. Runs collect in
//! memory; the runner merges once at the end of the run ([`learn`]).

use std::collections::HashMap;
use std::sync::Mutex;

use windup_model::sitemap::{
    Control, Edge, MAX_GENERATION, Page, SiteMap, Source, generalize_path, route_problem,
};

use crate::events::{Event, EventSink};

/// One page a run saw.
#[derive(Debug, Clone)]
pub struct Seen {
    /// The scenario that saw it (edges never cross scenarios).
    pub scenario_id: String,
    /// Its URL.
    pub url: String,
    /// Its structural signature.
    pub signature: Option<String>,
    /// Its title.
    pub title: Option<String>,
    /// Its first controls as (role, accessible name).
    pub controls: Vec<(String, String)>,
    /// The step that led there.
    pub via: Option<String>,
}

/// Subscribes to a run's events and keeps the pages it saw, in order.
#[derive(Default)]
pub struct Collector {
    seen: Mutex<Vec<Seen>>,
}

impl Collector {
    /// What was seen so far, taken out.
    pub fn take(&self) -> Vec<Seen> {
        std::mem::take(&mut *self.seen.lock().expect("collector lock"))
    }

    /// The first page a scenario saw (its start page): URL and signature.
    pub fn first_page(&self, scenario_id: &str) -> Option<(String, Option<String>)> {
        let seen = self.seen.lock().expect("collector lock");
        seen.iter()
            .find(|s| s.scenario_id == scenario_id)
            .map(|s| (s.url.clone(), s.signature.clone()))
    }

    /// Drops everything a scenario saw: none of it is learnt.
    pub fn forget(&self, scenario_id: &str) {
        let mut seen = self.seen.lock().expect("collector lock");
        seen.retain(|s| s.scenario_id != scenario_id);
    }
}

impl EventSink for Collector {
    fn on_event(&self, event: &Event) {
        if let Event::PageSeen {
            scenario_id,
            url,
            signature,
            title,
            controls,
            via,
        } = event
        {
            self.seen.lock().expect("collector lock").push(Seen {
                scenario_id: scenario_id.clone(),
                url: url.clone(),
                signature: signature.clone(),
                title: title.clone(),
                controls: controls.clone(),
                via: via.clone(),
            });
        }
    }
}

/// The map with what a run saw merged in as `execution` facts; `None` when no fact changed (so
/// nothing is written). `redact` masks credential values in titles, names and steps before
/// they are kept. A page goes under the route that already matches its path (a scanned
/// `/projects/:projectId`), else its path with numbers, UUIDs and hashes as `:id`.
pub fn learn(map: &SiteMap, seen: &[Seen], redact: &dyn Fn(&str) -> String) -> Option<SiteMap> {
    // Saturating: a map at the bound (one pushed with `u64::MAX` once wrapped to 0 here, and
    // every page then looked older than the rest) stays there.
    let generation = map.generation.saturating_add(1).min(MAX_GENERATION);
    let mut next = map.clone();
    let mut last: HashMap<&str, String> = HashMap::new();
    for s in seen {
        let Ok(url) = url::Url::parse(&s.url) else {
            continue;
        };
        if !matches!(url.scheme(), "http" | "https") {
            continue;
        }
        let path = url.path();
        let route = next
            .page_for(path)
            .map(|p| p.route.clone())
            .unwrap_or_else(|| generalize_path(path));
        if route_problem(&route).is_some() {
            // A path no route pattern spells (too long, odd characters): not kept, and no
            // edge runs through it.
            last.remove(s.scenario_id.as_str());
            continue;
        }
        next.add_page(Page {
            route: route.clone(),
            source: Source::Execution,
            scanned: false,
            title: s.title.as_deref().map(redact),
            signature: s.signature.clone(),
            file: None,
            controls: s
                .controls
                .iter()
                .map(|(role, name)| Control {
                    role: role.clone(),
                    name: redact(name),
                    placeholder: None,
                    testid: None,
                    source: Source::Execution,
                })
                .collect(),
            seen: generation,
        });
        if let (Some(via), Some(from)) = (&s.via, last.get(s.scenario_id.as_str())) {
            next.add_edge(Edge {
                from: from.clone(),
                to: route.clone(),
                via: redact(via),
                source: Source::Execution,
                seen: generation,
            });
        }
        last.insert(&s.scenario_id, route);
    }
    next.generalize();
    next.generation = generation;
    next.canonicalize();
    (!same_facts(map, &next)).then_some(next)
}

/// Equal but for recency (`generation` and `seen`).
fn same_facts(a: &SiteMap, b: &SiteMap) -> bool {
    let strip = |m: &SiteMap| {
        let mut m = m.clone();
        m.canonicalize();
        m.generation = 0;
        m.pages.iter_mut().for_each(|p| p.seen = 0);
        m.edges.iter_mut().for_each(|e| e.seen = 0);
        m
    };
    strip(a) == strip(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(scenario: &str, url: &str, sig: &str, via: Option<&str>) -> Seen {
        Seen {
            scenario_id: scenario.into(),
            url: format!("http://127.0.0.1:9/{url}"),
            signature: Some(sig.into()),
            title: Some(format!(
                "{} · alice@example.com",
                url.split('/').next().unwrap_or_default()
            )),
            controls: vec![("button".into(), "Save".into())],
            via: via.map(str::to_string),
        }
    }

    fn mask(s: &str) -> String {
        s.replace("alice@example.com", "***")
    }

    #[test]
    fn a_run_learns_pages_and_edges_and_an_unchanged_run_changes_nothing() {
        let run = vec![
            seen("a", "login", "s-login", None),
            seen(
                "a",
                "projects/42",
                "s-project",
                Some("click role=button[name=\"Sign in\"]"),
            ),
            seen("b", "settings/billing", "s-billing", None),
        ];
        let map = learn(&SiteMap::new(), &run, &mask).expect("new facts");
        let routes: Vec<&str> = map.pages.iter().map(|p| p.route.as_str()).collect();
        assert_eq!(routes, ["/login", "/projects/:id", "/settings/billing"]);
        assert_eq!(map.edges.len(), 1);
        assert_eq!(map.edges[0].from, "/login");
        assert_eq!(map.edges[0].to, "/projects/:id");
        assert_eq!(map.pages[0].title.as_deref(), Some("login · ***"));
        assert_eq!(map.generation, 1);
        assert!(
            learn(&map, &run, &mask).is_none(),
            "the same run again changes nothing"
        );
        let other = vec![seen("a", "projects/7", "s-project", None)];
        assert!(
            learn(&map, &other, &mask).is_none(),
            "another id of a known route"
        );
    }

    #[test]
    fn the_generation_stops_at_its_bound_and_paths_no_route_spells_are_left_out() {
        let mut map = SiteMap::new();
        map.generation = MAX_GENERATION;
        let long = format!("p/{}", "x".repeat(600));
        let run = vec![
            seen("a", "login", "s-login", None),
            seen("a", &long, "s-long", Some("click a")),
            seen("a", "home", "s-home", Some("click b")),
        ];
        let next = learn(&map, &run, &mask).expect("new facts");
        assert_eq!(next.generation, MAX_GENERATION, "never wraps to 0");
        let routes: Vec<&str> = next.pages.iter().map(|p| p.route.as_str()).collect();
        assert_eq!(routes, ["/home", "/login"]);
        assert!(next.edges.is_empty(), "no edge through the page left out");
        assert!(next.problems().is_empty());
    }
}
