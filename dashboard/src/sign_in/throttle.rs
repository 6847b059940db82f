//! Failed sign-ins counted in sliding windows, per account and per client address. An attempt
//! reserves its failure before the password is checked, so concurrent guesses cannot slip past
//! the threshold while argon2 runs; a success gives the reservation back (and clears the
//! account's failures), an attempt that never reached a verdict (503, a dropped connection)
//! gives it back too.
//!
//! The counts live in memory: one dashboard process is one counter (several replicas behind a
//! balancer each count their own). Each table holds at most [`MAX_KEYS`] keys; past that the
//! expired ones are dropped, then the least recently failed tenth, so a flood of made-up
//! accounts costs bounded memory.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Keys kept per table (accounts, addresses).
const MAX_KEYS: usize = 100_000;

/// At most `limit` failures within `span`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub limit: usize,
    pub span: Duration,
}

#[derive(Default)]
struct Table {
    keys: HashMap<String, VecDeque<Instant>>,
}

impl Table {
    /// The failures of `key` still inside the window, oldest first.
    fn live(&mut self, key: &str, window: Window, now: Instant) -> Option<&mut VecDeque<Instant>> {
        let times = self.keys.get_mut(key)?;
        while times
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) >= window.span)
        {
            times.pop_front();
        }
        Some(times)
    }

    /// How long until `key` may try again, when it is at its limit.
    fn wait(&mut self, key: &str, window: Window, now: Instant) -> Option<Duration> {
        let times = self.live(key, window, now)?;
        if times.len() < window.limit {
            return None;
        }
        let oldest = *times.front()?;
        Some((oldest + window.span).saturating_duration_since(now))
    }

    fn push(&mut self, key: &str, window: Window, now: Instant) {
        if !self.keys.contains_key(key) && self.keys.len() >= MAX_KEYS {
            self.make_room(window, now);
        }
        self.keys.entry(key.to_string()).or_default().push_back(now);
    }

    /// Drops the expired keys; when that is not enough, the tenth that failed least recently
    /// (in one go, so a flood pays for a sort once per ten thousand new keys).
    fn make_room(&mut self, window: Window, now: Instant) {
        self.keys.retain(|_, times| {
            times
                .back()
                .is_some_and(|t| now.saturating_duration_since(*t) < window.span)
        });
        if self.keys.len() >= MAX_KEYS {
            let mut by_last: Vec<(Option<Instant>, String)> = self
                .keys
                .iter()
                .map(|(k, times)| (times.back().copied(), k.clone()))
                .collect();
            by_last.sort();
            for (_, key) in by_last.into_iter().take(MAX_KEYS / 10) {
                self.keys.remove(&key);
            }
        }
    }

    fn give_back(&mut self, key: &str, at: Instant) {
        if let Some(times) = self.keys.get_mut(key) {
            if let Some(i) = times.iter().position(|t| *t == at) {
                times.remove(i);
            }
            if times.is_empty() {
                self.keys.remove(key);
            }
        }
    }
}

#[derive(Default)]
struct Tables {
    accounts: Table,
    addresses: Table,
}

/// The failure counts of every account and address.
pub struct Throttle {
    account: Window,
    address: Window,
    tables: Mutex<Tables>,
}

impl Throttle {
    pub fn new(account: Window, address: Window) -> Arc<Throttle> {
        Arc::new(Throttle {
            account,
            address,
            tables: Mutex::default(),
        })
    }

    /// An attempt for `account` from `address`, with its failure reserved; or how long to wait
    /// when either is at its limit (nothing is counted then).
    pub fn begin(
        self: &Arc<Self>,
        account: &str,
        address: &str,
        now: Instant,
    ) -> Result<Attempt, Duration> {
        let mut tables = self.lock();
        let waits = [
            tables.accounts.wait(account, self.account, now),
            tables.addresses.wait(address, self.address, now),
        ];
        if let Some(wait) = waits.into_iter().flatten().max() {
            return Err(wait);
        }
        tables.accounts.push(account, self.account, now);
        tables.addresses.push(address, self.address, now);
        Ok(Attempt {
            throttle: Arc::clone(self),
            account: account.to_string(),
            address: address.to_string(),
            at: now,
            settled: false,
        })
    }

    /// Failures of `account` inside its window.
    pub fn account_failures(&self, account: &str, now: Instant) -> usize {
        let mut tables = self.lock();
        tables
            .accounts
            .live(account, self.account, now)
            .map_or(0, |t| t.len())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tables> {
        // A panic while holding the lock leaves whole counts behind; keep using them.
        self.tables.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One sign-in in progress. Dropped without a verdict, it counts for nothing.
pub struct Attempt {
    throttle: Arc<Throttle>,
    account: String,
    address: String,
    at: Instant,
    settled: bool,
}

impl Attempt {
    /// The password was wrong (or the account missing): the reserved failure stays.
    pub fn failed(mut self) {
        self.settled = true;
    }

    /// The password was right: the address's reservation is given back and the account's
    /// failures forgotten.
    pub fn succeeded(mut self) {
        self.settled = true;
        let mut tables = self.throttle.lock();
        tables.accounts.keys.remove(&self.account);
        tables.addresses.give_back(&self.address, self.at);
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        if !self.settled {
            let mut tables = self.throttle.lock();
            tables.accounts.give_back(&self.account, self.at);
            tables.addresses.give_back(&self.address, self.at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: Duration = Duration::from_secs(60);

    fn throttle() -> Arc<Throttle> {
        Throttle::new(
            Window {
                limit: 5,
                span: 15 * MIN,
            },
            Window {
                limit: 20,
                span: MIN,
            },
        )
    }

    #[test]
    fn the_sixth_failure_within_fifteen_minutes_waits_for_the_first_to_expire() {
        let t = throttle();
        let start = Instant::now();
        for i in 0..5 {
            let at = start + Duration::from_secs(i * 61);
            t.begin("ada@x", &format!("10.0.0.{i}"), at)
                .unwrap()
                .failed();
        }
        let later = start + 5 * MIN;
        let wait = t.begin("ada@x", "10.0.0.9", later).err().unwrap();
        assert_eq!(
            wait,
            10 * MIN,
            "the first failure leaves the window at 15 min"
        );
        // Refusals are not failures: waiting them out is enough.
        assert!(t.begin("ada@x", "10.0.0.9", start + 15 * MIN).is_ok());
    }

    #[test]
    fn twenty_failures_from_one_address_within_a_minute_and_other_addresses_are_unaffected() {
        let t = throttle();
        let now = Instant::now();
        for i in 0..20 {
            t.begin(&format!("user{i}@x"), "10.0.0.1", now)
                .unwrap()
                .failed();
        }
        assert_eq!(t.begin("new@x", "10.0.0.1", now).err(), Some(MIN));
        assert!(t.begin("new@x", "10.0.0.2", now).is_ok());
        assert!(t.begin("new@x", "10.0.0.1", now + MIN).is_ok());
    }

    #[test]
    fn a_success_forgets_the_accounts_failures_and_an_unsettled_attempt_counts_nothing() {
        let t = throttle();
        let now = Instant::now();
        for _ in 0..4 {
            t.begin("ada@x", "a", now).unwrap().failed();
        }
        t.begin("ada@x", "a", now).unwrap().succeeded();
        assert_eq!(t.account_failures("ada@x", now), 0);
        drop(t.begin("bob@x", "a", now).unwrap());
        assert_eq!(t.account_failures("bob@x", now), 0);
    }

    #[test]
    fn reservations_hold_concurrent_attempts_to_the_limit() {
        let t = throttle();
        let now = Instant::now();
        let held: Vec<Attempt> = (0..5)
            .map(|_| t.begin("ada@x", "a", now).unwrap())
            .collect();
        assert!(
            t.begin("ada@x", "a", now).is_err(),
            "five in flight fill the window"
        );
        held.into_iter().for_each(Attempt::failed);
        assert_eq!(t.account_failures("ada@x", now), 5);
    }

    #[test]
    fn the_tables_stay_bounded() {
        let t = throttle();
        let now = Instant::now();
        for i in 0..MAX_KEYS + 10 {
            let mut tables = t.lock();
            tables.accounts.push(&format!("u{i}"), t.account, now);
        }
        assert!(t.lock().accounts.keys.len() <= MAX_KEYS);
    }
}
