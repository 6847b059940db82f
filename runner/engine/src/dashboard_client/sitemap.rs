//! The shared site map: the dashboard's map for the run's branch (merged by the dashboard over
//! the default branch's) read before a run, and what the run learned merged back after it.

use reqwest::Method;
use windup_model::sitemap::{NoteSource, SiteMap};
use windup_model::validate::site_map_from_json;

use super::client::{Dashboard, DashboardError};

impl Dashboard {
    /// `GET /api/v1/sitemap?branch=NAME`, checked like the committed file. Its notes are the
    /// dashboard's, whatever source they claim: anyone with a token can push one.
    pub async fn get_site_map(&self, branch: Option<&str>) -> Result<SiteMap, DashboardError> {
        let mut url = self.endpoint(&["sitemap"]);
        if let Some(b) = branch {
            url.query_pairs_mut().append_pair("branch", b);
        }
        let bytes = self.send(Method::GET, url, None).await?;
        let text = String::from_utf8_lossy(&bytes);
        let mut map = site_map_from_json("the dashboard's site map", &text).map_err(|p| {
            DashboardError::BadAnswer(
                p.0.iter()
                    .map(|e| format!("{}: {}", e.field, e.problem))
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })?;
        for note in &mut map.notes {
            note.source = Some(NoteSource::Dashboard);
        }
        Ok(map)
    }

    /// `PUT /api/v1/sitemap?branch=NAME`: the dashboard merges it into the branch's map.
    pub async fn put_site_map(&self, map: &SiteMap, branch: &str) -> Result<(), DashboardError> {
        let mut url = self.endpoint(&["sitemap"]);
        url.query_pairs_mut().append_pair("branch", branch);
        let body = serde_json::to_vec(map).map_err(|e| DashboardError::Local(e.to_string()))?;
        self.send(Method::PUT, url, Some((&body, "application/json")))
            .await
            .map(|_| ())
    }
}
