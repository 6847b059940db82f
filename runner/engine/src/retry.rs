//! When to try an HTTP request again: a capped exponential back-off with jitter, and the wait a
//! server asked for with `Retry-After`. One rule for every client (the LLM transport and the
//! dashboard client), so both back off the same way. A leaf: it knows no client.

use std::time::{Duration, SystemTime};

/// How long to wait between attempts. How many attempts is the caller's (a provider's `max_retries`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The first wait; each later one doubles it.
    pub base_delay: Duration,
    /// No back-off wait is longer.
    pub max_delay: Duration,
    /// A `Retry-After` longer than this ends the call at once instead of stalling the run.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// Millisecond back-off for tests; `Retry-After` is still honoured.
    pub fn fast() -> Self {
        RetryPolicy {
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(40),
            ..RetryPolicy::default()
        }
    }

    /// The wait before retry number `retry` (0 for the first), with up to 10% jitter added so
    /// that parallel scenarios do not retry in step.
    pub fn backoff(&self, retry: u32) -> Duration {
        let exp = self
            .base_delay
            .saturating_mul(1u32.checked_shl(retry.min(31)).unwrap_or(u32::MAX));
        let delay = exp.min(self.max_delay);
        delay + delay.mul_f64(fastrand::f64() * 0.1)
    }

    /// What follows the `attempts`-th attempt (1-based) failing transiently, with at most
    /// `max_retries` retries: a wait, or giving up. A `Retry-After` longer than
    /// `max_retry_after` gives up at once; a shorter one is waited at least.
    pub fn after_transient(
        &self,
        attempts: u32,
        max_retries: u32,
        retry_after: Option<Duration>,
    ) -> NextTry {
        match retry_after {
            Some(wait) if wait > self.max_retry_after => NextTry::WaitTooLong(wait),
            _ if attempts > max_retries => NextTry::Exhausted,
            _ => {
                let backoff = self.backoff(attempts - 1);
                NextTry::Wait(retry_after.map_or(backoff, |r| r.max(backoff)))
            }
        }
    }
}

impl RetryPolicy {
    /// [`RetryPolicy::after_transient`] as a caller's retry loop uses it: the wait before the
    /// next attempt, or, when it stops, the last `reason` to report (saying why Windup did not
    /// wait as long as `who`, the server, asked).
    pub fn next_wait(
        &self,
        attempts: u32,
        max_retries: u32,
        retry_after: Option<Duration>,
        reason: String,
        who: &str,
    ) -> Result<Duration, GaveUp> {
        match self.after_transient(attempts, max_retries, retry_after) {
            NextTry::Wait(wait) => Ok(wait),
            NextTry::WaitTooLong(wait) => Err(GaveUp::WaitTooLong {
                reason,
                who: who.to_string(),
                asked: wait,
                max: self.max_retry_after,
            }),
            NextTry::Exhausted => Err(GaveUp::Exhausted(reason)),
        }
    }
}

/// Why [`RetryPolicy::next_wait`] stopped: its message is the last attempt's reason, with why
/// Windup did not wait when the server asked for too long.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GaveUp {
    /// The server asked for a longer wait than the policy allows.
    #[error(
        "{reason}; {who} asked to retry after {} s, longer than the {} s Windup waits",
        .asked.as_secs(),
        .max.as_secs()
    )]
    WaitTooLong {
        /// What went wrong on the last attempt.
        reason: String,
        /// Who asked (`the provider`, `it`).
        who: String,
        /// The wait it asked for.
        asked: Duration,
        /// The longest wait the policy allows.
        max: Duration,
    },
    /// The retries are used up: what went wrong on the last attempt.
    #[error("{0}")]
    Exhausted(String),
}

/// [`RetryPolicy::after_transient`]'s answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextTry {
    /// Try again after this long.
    Wait(Duration),
    /// The server asked for a longer wait than the policy allows.
    WaitTooLong(Duration),
    /// The retries are used up.
    Exhausted,
}

/// `Retry-After` as seconds or as an HTTP date.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = value.parse::<f64>()
        && secs.is_finite()
        && secs >= 0.0
    {
        return Some(Duration::from_secs_f64(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_with_small_jitter() {
        let p = RetryPolicy::default();
        let within = |d: Duration, lo: u64| {
            d >= Duration::from_millis(lo) && d <= Duration::from_millis(lo + lo / 10)
        };
        assert!(within(p.backoff(0), 500));
        assert!(within(p.backoff(1), 1000));
        assert!(within(p.backoff(3), 4000));
        assert!(within(p.backoff(4), 8000));
        assert!(within(p.backoff(40), 8000));
    }

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777);
        assert_eq!(parse_retry_after("3", now), Some(Duration::from_secs(3)));
        assert_eq!(
            parse_retry_after(" 1.5 ", now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
    }
}
