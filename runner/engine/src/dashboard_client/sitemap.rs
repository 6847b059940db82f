//! The shared site map: the dashboard's map for the run's branch (merged by the dashboard over
//! the default branch's) read before a run, and what the run learned merged back after it.
//! A restored map loses the facts the model's rule refuses (`SiteMap::drop_invalid`), each
//! with a warning, and keeps the rest.

use reqwest::Method;
use windup_model::api::SiteMapQuery;
use windup_model::limits::InputFile;
use windup_model::sitemap::{NoteSource, SiteMap};
use windup_model::validate::site_map_from_json;

use super::client::{Dashboard, DashboardError};

impl Dashboard {
    /// `GET /api/v1/sitemap?branch=NAME`, checked like the committed file. Its notes are the
    /// dashboard's, whatever source they claim: anyone with a token can push one.
    pub async fn get_site_map(&self, branch: Option<&str>) -> Result<SiteMap, DashboardError> {
        let url = self.endpoint_with(
            &["sitemap"],
            &SiteMapQuery {
                branch: branch.map(str::to_string),
            },
        );
        let bytes = self.send(Method::GET, url, None).await?;
        let text = String::from_utf8_lossy(&bytes);
        let text = without_bad_facts(&text);
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
        let url = self.endpoint_with(
            &["sitemap"],
            &SiteMapQuery {
                branch: Some(branch.to_string()),
            },
        );
        let body = serde_json::to_vec(map).map_err(|e| DashboardError::Local(e.to_string()))?;
        self.send(Method::PUT, url, Some((&body, "application/json")))
            .await
            .map(|_| ())
    }
}

/// The dashboard's map without the facts the runner never keeps (a route that is not a path
/// pattern, a note over its bounds, a `generation` past its bound), each left out with a
/// warning: one bad fact pushed by anyone with a cache token would otherwise refuse the whole
/// map to every run of the branch. Anything else wrong is left for the reader to name.
fn without_bad_facts(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() > InputFile::SiteMap.max_bytes() {
        return text.into();
    }
    let Ok(mut map) = serde_json::from_str::<SiteMap>(text) else {
        return text.into();
    };
    let dropped = map.drop_invalid();
    if dropped.is_empty() {
        return text.into();
    }
    for problem in &dropped {
        tracing::warn!("the dashboard's site map: {problem}; left out");
    }
    serde_json::to_string(&map)
        .map(Into::into)
        .unwrap_or_else(|_| text.into())
}
