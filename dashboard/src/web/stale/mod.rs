//! Stale plans: every plan the cache stopped trusting, newest first, with the evidence of the
//! run that failed it, its triage verdict and a step diff against the plan that replaced it.
//! Two sources: the plans pushed runs stopped trusting (`from_run`, uploaded with the run) and
//! the shared cache's entries a newer plan replaced (`shared_cache`). `list` merges them,
//! `detail` sends an id to its source (`run-<n>` or `<n>`), `view` is what both details show.

mod detail;
mod from_run;
mod list;
mod shared_cache;
mod view;

pub(super) use detail::stale_detail;
pub(super) use list::stale_page;
