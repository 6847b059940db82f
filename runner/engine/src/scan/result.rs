//! What a scan found, and the same as site-map facts (`static`).

use sha2::{Digest, Sha256};
use windup_model::sitemap::{Control, Edge, Page, ScanInfo, SiteMap, Source, route_matches};

/// One route the scan found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScannedRoute {
    /// The route pattern (`/projects/:id`, `/docs/*slug`, `/shop/*slug?`).
    pub route: String,
    /// The file of its component, relative to the project root, when known.
    pub file: Option<String>,
    /// The controls its component renders, as far as the source says.
    pub controls: Vec<Control>,
    /// Literal `href`/`to` paths its component links to, with the link's text.
    pub links: Vec<(String, String)>,
}

/// Every route of the app, sorted by route, each once.
#[derive(Debug, Clone, Default)]
pub struct ScanResult {
    /// The routes, sorted.
    pub routes: Vec<ScannedRoute>,
    /// What the scan could not read, for people (files that did not parse, roots without a
    /// known framework).
    pub warnings: Vec<String>,
}

impl ScanResult {
    /// The route patterns, sorted.
    pub fn route_set(&self) -> Vec<String> {
        self.routes.iter().map(|r| r.route.clone()).collect()
    }

    /// Merges the scan into a site map: each route a `static` page marked `scanned`, pages the
    /// scan no longer finds unmarked (and dropped when nothing but an older scan knew them), and
    /// an edge for each link to a known route.
    pub fn apply_to(&self, map: &mut SiteMap) {
        let found: std::collections::BTreeSet<&str> =
            self.routes.iter().map(|r| r.route.as_str()).collect();
        map.pages
            .retain(|p| p.source != Source::Static || found.contains(p.route.as_str()));
        for p in &mut map.pages {
            p.scanned = found.contains(p.route.as_str());
        }
        map.edges.retain(|e| e.source != Source::Static);
        for r in &self.routes {
            map.add_page(Page {
                route: r.route.clone(),
                source: Source::Static,
                scanned: true,
                title: None,
                signature: None,
                file: r.file.clone(),
                controls: r.controls.clone(),
                seen: 0,
            });
        }
        for r in &self.routes {
            for (href, text) in &r.links {
                let target = self
                    .routes
                    .iter()
                    .find(|t| t.route == *href)
                    .or_else(|| self.routes.iter().find(|t| route_matches(&t.route, href)));
                if let Some(t) = target {
                    let via = if text.is_empty() {
                        "link".to_string()
                    } else {
                        format!("click role=link[name={text:?}]")
                    };
                    map.add_edge(Edge {
                        from: r.route.clone(),
                        to: t.route.clone(),
                        via,
                        source: Source::Static,
                        seen: 0,
                    });
                }
            }
        }
        let mut hasher = Sha256::new();
        for r in &found {
            hasher.update(r.as_bytes());
            hasher.update(b"\n");
        }
        map.scan = Some(ScanInfo {
            sha: format!("sha256:{}", hex::encode(hasher.finalize())),
            routes: found.len() as u64,
        });
        map.canonicalize();
    }
}
