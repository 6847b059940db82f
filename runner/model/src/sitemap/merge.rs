//! Merging facts into a map by precedence, generalising routes that runs saw with many values,
//! and keeping the map in its canonical order and within its bounds.

use std::collections::{BTreeMap, BTreeSet};

use super::map::{Control, Edge, MAX_BYTES, MAX_CONTROLS, MAX_PAGES, Note, Page, SiteMap, Source};
use super::route::pattern_segments as segments;

/// Distinct values in one position, under the same parent and signature, that make it `:id`.
const PARAM_AFTER: usize = 3;

impl SiteMap {
    /// Adds what another map knows: each fact kept from the higher source, the incoming one on a
    /// tie. The dashboard merges an upload this way, and a run its own observations.
    pub fn merge(&mut self, other: &SiteMap) {
        for page in &other.pages {
            self.add_page(page.clone());
        }
        for edge in &other.edges {
            self.add_edge(edge.clone());
        }
        for note in &other.notes {
            self.add_note(note.clone());
        }
        if other.scan.is_some() {
            self.scan = other.scan.clone();
        }
        self.generation = self.generation.max(other.generation);
        self.canonicalize();
    }

    /// Adds a note unless the map has one with the same text; the oldest go past
    /// [`super::MAX_NOTES`].
    pub fn add_note(&mut self, note: Note) {
        if self.notes.iter().any(|n| n.text == note.text) {
            return;
        }
        self.notes.push(note);
        let over = self.notes.len().saturating_sub(super::MAX_NOTES);
        self.notes.drain(..over);
    }

    /// Adds one page's facts, merged with what the map has for its route.
    pub fn add_page(&mut self, page: Page) {
        match self.pages.iter_mut().find(|p| p.route == page.route) {
            None => self.pages.push(page),
            Some(old) => merge_page(old, page),
        }
    }

    /// Adds one edge; an edge already known keeps the higher source and the later `seen`.
    pub fn add_edge(&mut self, edge: Edge) {
        if edge.from == edge.to {
            return;
        }
        match self
            .edges
            .iter_mut()
            .find(|e| e.from == edge.from && e.to == edge.to && e.via == edge.via)
        {
            None => self.edges.push(edge),
            Some(old) => {
                old.source = old.source.max(edge.source);
                old.seen = old.seen.max(edge.seen);
            }
        }
    }

    /// Turns a position into a parameter where runs saw at least 3 distinct literal values under
    /// the same parent with the same signature (`/users/ann`, `/users/bob`, `/users/cy` →
    /// `/users/:id`), merging those pages and renaming their edges.
    pub fn generalize(&mut self) {
        let mut groups: BTreeMap<(String, usize, String), BTreeSet<String>> = BTreeMap::new();
        for p in &self.pages {
            let (Some(sig), Source::Execution) = (&p.signature, p.source) else {
                continue;
            };
            let segs = segments(&p.route);
            for (i, s) in segs.iter().enumerate() {
                if s.starts_with(':') || s.starts_with('*') {
                    continue;
                }
                let mut key = segs.clone();
                key[i] = "\u{0}";
                groups
                    .entry((key.join("/"), i, sig.clone()))
                    .or_default()
                    .insert(s.to_string());
            }
        }
        let mut renames: BTreeMap<String, String> = BTreeMap::new();
        for ((_, i, sig), values) in groups {
            if values.len() < PARAM_AFTER {
                continue;
            }
            for p in &self.pages {
                if p.signature.as_deref() != Some(sig.as_str()) || renames.contains_key(&p.route) {
                    continue;
                }
                let segs = segments(&p.route);
                if segs.len() > i && values.contains(segs[i]) {
                    let mut new = segs.clone();
                    new[i] = ":id";
                    renames.insert(p.route.clone(), format!("/{}", new.join("/")));
                }
            }
        }
        if renames.is_empty() {
            return;
        }
        let pages = std::mem::take(&mut self.pages);
        for mut p in pages {
            if let Some(to) = renames.get(&p.route) {
                p.route = to.clone();
            }
            self.add_page(p);
        }
        let edges = std::mem::take(&mut self.edges);
        for mut e in edges {
            for r in [&mut e.from, &mut e.to] {
                if let Some(to) = renames.get(r.as_str()) {
                    *r = to.clone();
                }
            }
            self.add_edge(e);
        }
        self.canonicalize();
    }

    /// Sorts pages, edges and controls, drops edges to or from unknown pages, and keeps the map
    /// within [`MAX_PAGES`] and [`MAX_BYTES`], dropping the least recently seen pages first.
    pub fn canonicalize(&mut self) {
        for p in &mut self.pages {
            p.controls.sort();
            p.controls.dedup();
        }
        self.pages.sort_by(|a, b| a.route.cmp(&b.route));
        self.pages.dedup_by(|a, b| a.route == b.route);
        self.bound();
        let routes: BTreeSet<&str> = self.pages.iter().map(|p| p.route.as_str()).collect();
        self.edges
            .retain(|e| routes.contains(e.from.as_str()) && routes.contains(e.to.as_str()));
        self.edges
            .sort_by(|a, b| (&a.from, &a.to, &a.via).cmp(&(&b.from, &b.to, &b.via)));
        self.edges
            .dedup_by(|a, b| a.from == b.from && a.to == b.to && a.via == b.via);
    }

    fn bound(&mut self) {
        let size = |v: &dyn erased::Sized| v.bytes();
        let mut total: usize = 200 + self.edges.iter().map(|e| size(e)).sum::<usize>();
        let mut cost: Vec<(u64, usize, String)> = self
            .pages
            .iter()
            .map(|p| {
                let own = size(p);
                total += own;
                (p.seen, own, p.route.clone())
            })
            .collect();
        if self.pages.len() <= MAX_PAGES && total <= MAX_BYTES {
            return;
        }
        // Least recently seen first; among equals, the later route, so the order is stable.
        cost.sort_by(|a, b| a.0.cmp(&b.0).then(b.2.cmp(&a.2)));
        let mut drop = BTreeSet::new();
        let mut left = self.pages.len();
        for (_, own, route) in cost {
            if left <= MAX_PAGES && total <= MAX_BYTES {
                break;
            }
            let edges: usize = self
                .edges
                .iter()
                .filter(|e| e.from == route || e.to == route)
                .map(|e| size(e))
                .sum();
            total = total.saturating_sub(own + edges);
            left -= 1;
            drop.insert(route);
        }
        self.pages.retain(|p| !drop.contains(&p.route));
        self.edges
            .retain(|e| !drop.contains(&e.from) && !drop.contains(&e.to));
    }
}

/// Serialised size of a part of the map, with its indentation's share.
mod erased {
    pub(super) trait Sized {
        fn bytes(&self) -> usize;
    }
    impl<T: serde::Serialize> Sized for T {
        fn bytes(&self) -> usize {
            // Pretty printing roughly doubles compact JSON for these small objects.
            serde_json::to_vec(self).map(|v| v.len() * 2).unwrap_or(0)
        }
    }
}

fn merge_page(old: &mut Page, new: Page) {
    if new.source >= old.source {
        if new.title.is_some() {
            old.title = new.title;
        }
        if new.signature.is_some() {
            old.signature = new.signature;
        }
        if new.file.is_some() {
            old.file = new.file;
        }
    }
    old.source = old.source.max(new.source);
    old.scanned |= new.scanned;
    old.seen = old.seen.max(new.seen);
    // Each source's inventory is replaced whole by its newer one.
    let sources: BTreeSet<Source> = new.controls.iter().map(|c| c.source).collect();
    old.controls.retain(|c| !sources.contains(&c.source));
    old.controls.extend(new.controls);
    cap_controls(&mut old.controls);
}

/// Keeps at most [`MAX_CONTROLS`] per source, in canonical order.
pub(super) fn cap_controls(controls: &mut Vec<Control>) {
    controls.sort();
    controls.dedup();
    let mut per: BTreeMap<Source, usize> = BTreeMap::new();
    controls.retain(|c| {
        let n = per.entry(c.source).or_default();
        *n += 1;
        *n <= MAX_CONTROLS
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(route: &str, source: Source, sig: &str, seen: u64) -> Page {
        Page {
            route: route.into(),
            source,
            scanned: false,
            title: Some(format!("title {route}")),
            signature: Some(sig.into()),
            file: None,
            controls: vec![],
            seen,
        }
    }

    #[test]
    fn a_higher_source_is_never_replaced_by_a_lower() {
        let mut map = SiteMap::new();
        map.add_page(page("/a", Source::Execution, "exec", 1));
        map.add_page(Page {
            title: Some("from the scan".into()),
            ..page("/a", Source::Static, "static", 2)
        });
        let p = &map.pages[0];
        assert_eq!(p.source, Source::Execution);
        assert_eq!(p.signature.as_deref(), Some("exec"));
        assert_eq!(p.title.as_deref(), Some("title /a"));
        assert_eq!(p.seen, 2);
    }

    #[test]
    fn three_values_under_one_parent_make_a_parameter() {
        let mut map = SiteMap::new();
        for u in ["ann", "bob"] {
            map.add_page(page(&format!("/users/{u}"), Source::Execution, "s", 1));
        }
        map.add_page(page("/users/new", Source::Execution, "other", 1));
        map.generalize();
        assert_eq!(map.pages.len(), 3, "two values stay literal");
        map.add_page(page("/users/cy", Source::Execution, "s", 2));
        map.add_edge(Edge {
            from: "/users".into(),
            to: "/users/cy".into(),
            via: "click x".into(),
            source: Source::Execution,
            seen: 2,
        });
        map.add_page(page("/users", Source::Execution, "list", 2));
        map.generalize();
        let routes: Vec<&str> = map.pages.iter().map(|p| p.route.as_str()).collect();
        assert_eq!(routes, ["/users", "/users/:id", "/users/new"]);
        assert_eq!(map.edges[0].to, "/users/:id");
    }

    #[test]
    fn the_least_recently_seen_pages_go_first() {
        let mut map = SiteMap::new();
        for i in 0..(MAX_PAGES + 10) {
            map.pages
                .push(page(&format!("/p{i:05}"), Source::Execution, "s", i as u64));
        }
        map.canonicalize();
        assert_eq!(map.pages.len(), MAX_PAGES);
        assert_eq!(map.pages[0].route, "/p00010");
    }

    #[test]
    fn the_map_stays_within_its_byte_bound() {
        let mut map = SiteMap::new();
        for i in 0..1500 {
            let mut p = page(&format!("/p{i:05}"), Source::Execution, "s", i as u64);
            p.controls = (0..MAX_CONTROLS)
                .map(|c| Control {
                    role: "button".into(),
                    name: format!("Button number {c}"),
                    placeholder: None,
                    testid: None,
                    source: Source::Execution,
                })
                .collect();
            map.pages.push(p);
        }
        map.canonicalize();
        let text = serde_json::to_string_pretty(&map).unwrap();
        assert!(text.len() <= MAX_BYTES, "{} bytes", text.len());
        assert!(map.pages.len() > 10);
        assert_eq!(
            map.pages.last().unwrap().route,
            "/p01499",
            "the newest stay"
        );
    }
}
