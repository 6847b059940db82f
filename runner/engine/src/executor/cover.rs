//! A screenshot (a failure's, a pass's last page, a trace frame) with every credential covered:
//! the fields typed from one in the page's current
//! document, and any text or field value on the page that shows a value typed from one (a page
//! echoing "Your key: …", a value the page filled in itself), in the top document and in every
//! frame of another origin. When anything cannot be covered, no screenshot is taken.
//!
//! The page is never given a credential: it hands over the text it shows, the credentials are
//! found in it here, and the page covers the runs named back. Messages say what could not be
//! covered, never a value.

use std::collections::BTreeSet;

use windup_model::Part;

use futures::future::BoxFuture;

use super::steps::{Executor, SecretField};
use crate::browser::injected::{self, TextRun};
use crate::browser::{BrowserError, Realm, Session};
use crate::locator::{Locator, scopes};

/// The most text searched on a page; a page showing more gets no screenshot.
const MAX_TEXT_CHARS: usize = 2_000_000;

/// The most runs covered on a page; a page showing a credential in more gets no screenshot.
const MAX_COVERED_RUNS: usize = 500;

/// Why a credential could not be covered, so no picture is taken. Never holds a value.
#[derive(Debug, thiserror::Error)]
pub(super) enum CoverError {
    /// The browser did not answer while the page was searched or covered (the cause is in the
    /// message, so not also its source).
    #[error("the page could not be searched for credentials ({0})")]
    Unreadable(BrowserError),
    /// A field typed from a credential has no visible match in any realm.
    #[error("a field typed from a credential on this page could not be found to be covered")]
    FieldGone,
    /// The page shows more text than is searched.
    #[error(
        "the page shows more than {max} characters, more than is searched for credentials",
        max = MAX_TEXT_CHARS
    )]
    TooMuchText,
    /// A credential is shown in more places than are covered.
    #[error("a credential is shown in {runs} places, more than {max} are covered", max = MAX_COVERED_RUNS)]
    TooManyRuns { runs: usize },
    /// The page did not find fields it was asked to cover.
    #[error(
        "{missing} field(s) typed from a credential on this page could not be found to be covered"
    )]
    FieldsMissing { missing: usize },
    /// Text showing a credential changed while it was being covered.
    #[error("text showing a credential changed while it was being covered")]
    TextChanged,
    /// Covers the page could not put in place.
    #[error("{uncovered} cover(s) could not be put over a credential")]
    Uncovered { uncovered: u32 },
}

impl Executor<'_, '_> {
    /// Remembers a field about to be typed into from a credential, and the value, so that both
    /// are covered before any screenshot.
    pub(super) async fn remember_secret(&mut self, locator: &Locator, value: &str) {
        let document = injected::document_id(self.session.page()).await.ok();
        self.secret_fields.push(SecretField {
            parts: locator.parts().to_vec(),
            document,
        });
        if !value.trim().is_empty() && !self.secret_values.iter().any(|v| v == value) {
            self.secret_values.push(value.to_string());
        }
    }

    /// The viewport with every credential covered; none when one cannot be covered.
    pub(super) async fn covered_screenshot(&mut self) -> Option<Vec<u8>> {
        match self.covered(|s| Box::pin(s.page().screenshot())).await {
            Ok(Ok(png)) => Some(png),
            Ok(Err(_)) => None,
            Err(why) => {
                tracing::warn!("{}: no screenshot is taken: {why}", self.cx.scenario_id);
                None
            }
        }
    }

    /// `take`'s picture of the page (a screenshot, a trace frame) with every credential
    /// covered while it is taken; or why one could not be covered, and no picture.
    pub(super) async fn covered<T>(
        &mut self,
        take: impl for<'a> FnOnce(&'a Session) -> BoxFuture<'a, Result<T, BrowserError>>,
    ) -> Result<Result<T, BrowserError>, CoverError> {
        if self.secret_fields.is_empty() && self.secret_values.is_empty() {
            return Ok(take(self.session).await);
        }
        let shot = match self.cover_credentials().await {
            Ok(()) => Ok(take(self.session).await),
            Err(why) => Err(why),
        };
        for realm in self
            .session
            .frames()
            .realms()
            .await
            .unwrap_or_else(|_| vec![Realm::top()])
        {
            let _ = injected::unmask(self.session.page(), &realm).await;
        }
        shot
    }

    /// Covers every credential the page shows, in every realm (the top document with its
    /// same-origin frames, each frame of another origin), or says why one could not be.
    async fn cover_credentials(&mut self) -> Result<(), CoverError> {
        let document = injected::document_id(self.session.page())
            .await
            .map_err(CoverError::Unreadable)?;
        // A field typed in an earlier document left with it; a value it held that the page
        // shows again is found in the text below.
        let fields: Vec<Vec<Part>> = self
            .secret_fields
            .iter()
            .filter(|f| f.document.as_ref().is_none_or(|d| *d == document))
            .map(|f| f.parts.clone())
            .collect();
        // Each field is covered in the realm of its first visible match, as a step finds it.
        let mut placed: Vec<(Realm, Vec<Part>)> = Vec::new();
        for parts in &fields {
            match self
                .field_realm(parts)
                .await
                .map_err(CoverError::Unreadable)?
            {
                Some(found) => placed.push(found),
                None => return Err(CoverError::FieldGone),
            }
        }
        let realms = self
            .session
            .frames()
            .realms()
            .await
            .map_err(CoverError::Unreadable)?;
        for realm in &realms {
            let here: Vec<Vec<Part>> = placed
                .iter()
                .filter(|(r, _)| r == realm)
                .map(|(_, p)| p.clone())
                .collect();
            self.cover_in(realm, &here).await?;
        }
        Ok(())
    }

    /// Where a field typed from a credential is now: the first realm with a visible match.
    async fn field_realm(
        &self,
        parts: &[Part],
    ) -> Result<Option<(Realm, Vec<Part>)>, BrowserError> {
        for (realm, rest) in scopes(self.session, parts).await? {
            if injected::query(self.session.page(), &realm, &rest)
                .await?
                .visible
                > 0
            {
                return Ok(Some((realm, rest)));
            }
        }
        Ok(None)
    }

    /// Covers `fields` and every text of one realm showing a credential.
    async fn cover_in(&self, realm: &Realm, fields: &[Vec<Part>]) -> Result<(), CoverError> {
        let runs = if self.secret_values.is_empty() {
            Vec::new()
        } else {
            let text = injected::text_runs(self.session.page(), realm, MAX_TEXT_CHARS)
                .await
                .map_err(CoverError::Unreadable)?;
            if !text.complete {
                return Err(CoverError::TooMuchText);
            }
            let runs = runs_showing(&text.runs, &self.secret_values);
            if runs.len() > MAX_COVERED_RUNS {
                return Err(CoverError::TooManyRuns { runs: runs.len() });
            }
            runs
        };
        if fields.is_empty() && runs.is_empty() {
            return Ok(());
        }
        let masked = injected::mask(self.session.page(), realm, fields, &runs)
            .await
            .map_err(CoverError::Unreadable)?;
        if !masked.missing.is_empty() {
            return Err(CoverError::FieldsMissing {
                missing: masked.missing.len(),
            });
        }
        if masked.lost > 0 {
            return Err(CoverError::TextChanged);
        }
        if masked.uncovered > 0 {
            return Err(CoverError::Uncovered {
                uncovered: masked.uncovered,
            });
        }
        Ok(())
    }
}

/// The runs (by index) that show any of `values`, ignoring case and counting any whitespace as
/// one space. Text runs are searched joined in document order, so a value split across elements
/// (`s3cret-<b>value</b>`) is found in each of its runs; a field's run is searched alone.
fn runs_showing(runs: &[TextRun], values: &[String]) -> Vec<usize> {
    let needles: Vec<String> = values
        .iter()
        .map(|v| {
            let (folded, _) = fold(std::iter::once(v.as_str()));
            folded.trim().to_string()
        })
        .filter(|v| !v.is_empty())
        .collect();
    let mut found = BTreeSet::new();
    let mut start = 0;
    while start < runs.len() {
        let end = if runs[start].field {
            start + 1
        } else {
            (start..runs.len())
                .find(|&i| runs[i].field)
                .unwrap_or(runs.len())
        };
        let (joined, starts) = fold(runs[start..end].iter().map(|r| r.text.as_str()));
        for needle in &needles {
            for (at, _) in joined.match_indices(needle.as_str()) {
                // The last run starting at or before the match, then every run it reaches.
                let first = starts.partition_point(|&s| s <= at).saturating_sub(1);
                let reached = starts[first..]
                    .iter()
                    .take_while(|&&s| s < at + needle.len());
                found.extend((first..).zip(reached).map(|(i, _)| start + i));
            }
        }
        start = end;
    }
    found.into_iter().collect()
}

/// `texts` joined, lowercased, with every run of whitespace as one space; and where each text
/// starts in the result.
fn fold<'a>(texts: impl Iterator<Item = &'a str>) -> (String, Vec<usize>) {
    let mut out = String::new();
    let mut starts = Vec::new();
    let mut after_space = false;
    for text in texts {
        starts.push(out.len());
        for c in text.chars() {
            if c.is_whitespace() {
                if !after_space {
                    out.push(' ');
                    after_space = true;
                }
            } else {
                out.extend(c.to_lowercase());
                after_space = false;
            }
        }
    }
    (out, starts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(texts: &[(&str, bool)]) -> Vec<TextRun> {
        texts
            .iter()
            .map(|(t, field)| TextRun {
                text: t.to_string(),
                field: *field,
            })
            .collect()
    }

    #[test]
    fn a_value_is_found_in_one_run_split_runs_and_any_case_or_spacing() {
        let values = vec!["s3cret-Value".to_string(), "hunter two".to_string()];
        let page = runs(&[
            ("Welcome", false),
            ("Your key: s3cret-value.", false),
            ("Other: s3cret-", false),
            ("VALUE", false),
            (" and more", false),
            ("hunter\n   two", true),
            ("hunter", true),
            ("nothing here", false),
        ]);
        assert_eq!(runs_showing(&page, &values), vec![1, 2, 3, 5]);
    }

    #[test]
    fn a_field_run_is_never_joined_to_its_neighbours() {
        let values = vec!["abcdef".to_string()];
        let page = runs(&[("abc", false), ("def", true), ("abc", true), ("def", false)]);
        assert!(runs_showing(&page, &values).is_empty());
        let page = runs(&[("abc", false), ("def", false), ("x", true)]);
        assert_eq!(runs_showing(&page, &values), vec![0, 1]);
    }

    #[test]
    fn blank_values_and_pages_without_a_value_cover_nothing() {
        let page = runs(&[("a b c", false)]);
        assert!(runs_showing(&page, &[" ".to_string()]).is_empty());
        assert!(runs_showing(&page, &["zzz".to_string()]).is_empty());
        assert!(runs_showing(&[], &["zzz".to_string()]).is_empty());
    }
}
