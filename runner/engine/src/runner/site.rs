//! The site map during a run: read at the start (a file that cannot be read is a warning, and
//! is then left alone), a slice per scenario for the planner, the at-risk check of cached
//! plans, the pages the run saw collected through its events, and one merge and write at the
//! end, only when a fact changed.

use std::collections::HashMap;

use windup_model::sitemap::SiteMap;
use windup_model::{ActionStatus, FailureClass, Plan, ScenarioResult, ScenarioStatus};

use super::Runner;
use super::selection::Planned;
use crate::events::{Event, EventSink};
use crate::sitemap::{AtRisk, Collector, SLICE_CHARS, SiteMapFile, at_risk, learn, slice};

/// The run's site map.
pub(super) struct Site {
    file: SiteMapFile,
    /// `None` when the file could not be read: then nothing is learned or written.
    map: Option<SiteMap>,
    slices: HashMap<String, String>,
    pub(super) collector: Collector,
}

impl Site {
    /// No site map (the benchmark's scratch runs): no slice, no risk, nothing written.
    pub(super) fn none(root: &std::path::Path) -> Site {
        Site {
            file: SiteMapFile::new(root),
            map: None,
            slices: HashMap::new(),
            collector: Collector::default(),
        }
    }

    /// The planner's slice for a scenario, when the map knows pages.
    pub(super) fn slice(&self, scenario_id: &str) -> Option<&str> {
        self.slices.get(scenario_id).map(String::as_str)
    }

    /// Whether the map says a cached plan will break.
    pub(super) fn at_risk(&self, plan: &Plan) -> Option<AtRisk> {
        self.map.as_ref().and_then(|m| at_risk(m, plan))
    }

    /// A scenario that failed at its first step, on a start page the map has never seen (no
    /// page for its route, or one of another structure), most likely ran on something other
    /// than the app (a base URL pointing at another live server): nothing it saw is learnt.
    pub(super) fn forget_if_lost(&self, result: &ScenarioResult) {
        let Some(map) = &self.map else {
            return;
        };
        let failed_first = result.status == ScenarioStatus::Failed
            && result.failure_class == Some(FailureClass::SelectorNotFound)
            && result
                .actions
                .first()
                .is_some_and(|a| a.status == ActionStatus::Failed);
        if !failed_first {
            return;
        }
        let Some((url, signature)) = self.collector.first_page(&result.scenario_id) else {
            return;
        };
        let path = url::Url::parse(&url).map_or_else(|_| url.clone(), |u| u.path().to_string());
        let known = map
            .page_for(&path)
            .is_some_and(|p| p.signature.is_none() || p.signature == signature);
        if !known {
            tracing::info!(
                scenario_id = result.scenario_id,
                "its first step failed on a start page the site map has never seen ({path}): nothing it saw is learnt"
            );
            self.collector.forget(&result.scenario_id);
        }
    }

    /// Merges what the run saw and writes the file when a fact changed; a write that fails is a
    /// warning. Returns the map when it changed, for the dashboard.
    pub(super) fn close(
        &self,
        base_url: Option<&url::Url>,
        secrets: &crate::secrets::ProjectSecrets,
    ) -> Option<SiteMap> {
        let site = self;
        let map = site.map.as_ref()?;
        // Only the app's own pages: a sign-on page on another allowed origin has paths of its
        // own, which would be mistaken for the app's routes.
        let origin = base_url.map(|u| u.origin());
        let seen: Vec<_> = site
            .collector
            .take()
            .into_iter()
            .filter(|s| url::Url::parse(&s.url).is_ok_and(|u| Some(u.origin()) == origin))
            .collect();
        let redact = |s: &str| secrets.redact(s);
        let next = learn(map, &seen, &redact).or_else(|| {
            // Restored facts from the dashboard alone are worth writing too.
            let on_disk = site.file.load().ok()?;
            (on_disk != *map).then(|| map.clone())
        })?;
        match site.file.save(&next) {
            Ok(_) => Some(next),
            Err(e) => {
                tracing::warn!("could not write {}: {e}", site.file.path().display());
                None
            }
        }
    }
}

/// The caller's sink and the collector, both.
pub(super) struct Tee<'a>(pub &'a dyn EventSink, pub &'a Collector);

impl EventSink for Tee<'_> {
    fn on_event(&self, event: &Event) {
        self.0.on_event(event);
        self.1.on_event(event);
    }
}

impl Runner {
    /// Reads the site map (merged with the dashboard's, when one is configured) and works out
    /// each scenario's slice.
    pub(super) async fn open_site(&self, planned: &[Planned]) -> Site {
        let file = SiteMapFile::new(&self.config.root);
        let mut map = match file.load() {
            Ok(m) => Some(m),
            Err(problems) => {
                tracing::warn!(
                    "the site map is not used in this run and will not be updated: {problems}"
                );
                None
            }
        };
        if let Some(m) = &mut map
            && let Some(remote) = self.restore_site_map().await
        {
            m.merge(&remote);
        }
        let mut slices = HashMap::new();
        if let (Some(m), Some(_)) = (&map, self.planner()) {
            for p in planned {
                let s = &p.file.scenario;
                let words = format!("{} {}", s.task, s.hints.join(" "));
                if let Some(text) = slice(m, &words, &s.start_url, SLICE_CHARS) {
                    slices.insert(s.id.clone(), text);
                }
            }
        }
        Site {
            file,
            map,
            slices,
            collector: Collector::default(),
        }
    }
}

impl Runner {
    /// The dashboard's site map for the run's branch, when restoring is on; a failure is a
    /// warning.
    async fn restore_site_map(&self) -> Option<SiteMap> {
        if !self.config.dashboard.as_ref().is_some_and(|s| s.restore) {
            return None;
        }
        let client = self.dashboard_client()?.ok()?;
        let branch = crate::ci::branch(&self.config.root, &self.config.env);
        match client.get_site_map(branch.as_deref()).await {
            Ok(map) => Some(map),
            Err(e) => {
                tracing::warn!("the site map is not restored from the dashboard: {e}");
                None
            }
        }
    }

    /// Sends a changed site map to the dashboard, when saving is on; a failure is a warning.
    pub(super) async fn save_site_map(&self, map: &SiteMap) {
        if !self.config.dashboard.as_ref().is_some_and(|s| s.save) {
            return;
        }
        let Some(Ok(client)) = self.dashboard_client() else {
            return;
        };
        let Some(branch) = crate::ci::branch(&self.config.root, &self.config.env) else {
            return;
        };
        if let Err(e) = client.put_site_map(map, &branch).await {
            tracing::warn!("the site map is not saved to the dashboard: {e}");
        }
    }
}
