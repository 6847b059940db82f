//! `serve --retain-days N`: once a day, runs older than N days are pruned with their results,
//! ledger records, screenshots and stale plans; the rollups' totals and the plan cache are kept (see
//! `store/sql/retention.rs`). Without the flag nothing is ever deleted.

use std::sync::Arc;
use std::time::Duration;

use crate::store::{Pruned, Result, Store};
use crate::time::now_ms;

const DAY_MS: i64 = 86_400_000;

/// One pass: prunes what started more than `retain_days` days before `now_ms`.
pub async fn prune(store: &dyn Store, retain_days: u32, now_ms: i64) -> Result<Pruned> {
    let before_ms = now_ms.saturating_sub(i64::from(retain_days).saturating_mul(DAY_MS));
    store.prune_runs(before_ms, now_ms).await
}

/// A pass now, then one a day, each logged; a failed pass is logged and tried the next day.
pub fn spawn_daily(store: Arc<dyn Store>, retain_days: u32) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut daily = tokio::time::interval(Duration::from_secs(86_400));
        daily.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            daily.tick().await;
            match prune(&*store, retain_days, now_ms()).await {
                Ok(p) => tracing::info!(
                    retain_days,
                    runs = p.runs,
                    artifacts = p.artifacts,
                    "retention: pruned runs and screenshots older than {retain_days} days"
                ),
                Err(e) => tracing::error!(error = %e, "retention failed; trying again in a day"),
            }
        }
    })
}
