//! The gate in front of argon2: each verification holds one of `concurrent` permits for as long
//! as it runs (the permit moves into the hashing job, so a request dropped mid-check still
//! holds it until argon2 returns), at most `queue` sign-ins wait for a permit, and any beyond
//! that are turned away at once. The gate bounds the waiting; argon2's memory is bounded by
//! its own fixed threads (`argon`: two 19 MiB blocks, allocated once), whatever the requests.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The queue is full: the caller answers 503.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("too many sign-ins at once")]
pub struct Busy;

pub struct Gate {
    permits: Arc<Semaphore>,
    queue: usize,
    waiting: AtomicUsize,
    /// Holders of a permit now, and the most there ever were (tests check the bound holds).
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
}

/// A permit to run one verification; given back when dropped.
pub struct Pass {
    _permit: OwnedSemaphorePermit,
    in_flight: Arc<AtomicUsize>,
}

impl Drop for Pass {
    fn drop(&mut self) {
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Gate {
    pub fn new(concurrent: usize, queue: usize) -> Gate {
        Gate {
            permits: Arc::new(Semaphore::new(concurrent.max(1))),
            queue,
            waiting: AtomicUsize::new(0),
            in_flight: Arc::default(),
            max_in_flight: Arc::default(),
        }
    }

    /// A permit now, or after waiting in the queue; `Busy` when the queue is full.
    pub async fn enter(&self) -> Result<Pass, Busy> {
        let permit = match Arc::clone(&self.permits).try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                let queued = self
                    .waiting
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                        (n < self.queue).then_some(n + 1)
                    });
                if queued.is_err() {
                    return Err(Busy);
                }
                let _leave = Leave(&self.waiting);
                Arc::clone(&self.permits)
                    .acquire_owned()
                    .await
                    .expect("the gate's semaphore is never closed")
            }
        };
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        Ok(Pass {
            _permit: permit,
            in_flight: Arc::clone(&self.in_flight),
        })
    }

    /// Verifies `password` against the argon2 `hash` on argon2's own threads (`argon`),
    /// holding a permit until the check is done.
    pub async fn verify(&self, password: String, hash: String) -> Result<bool, Busy> {
        let pass = self.enter().await?;
        Ok(crate::argon::verify(password, hash, Some(Box::new(pass))).await)
    }

    /// Sign-ins waiting for a permit now.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::SeqCst)
    }

    /// The most permits ever held at once.
    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }
}

/// Leaves the queue when the wait ends, or when the waiting request is dropped.
struct Leave<'a>(&'a AtomicUsize);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn beyond_the_permits_and_the_queue_entries_are_refused() {
        let gate = Arc::new(Gate::new(2, 3));
        let held = [gate.enter().await.unwrap(), gate.enter().await.unwrap()];
        let mut queued = Vec::new();
        for _ in 0..3 {
            let g = Arc::clone(&gate);
            queued.push(tokio::spawn(async move { g.enter().await.map(drop) }));
        }
        while gate.waiting() < 3 {
            tokio::task::yield_now().await;
        }
        assert_eq!(gate.enter().await.err(), Some(Busy));
        drop(held);
        for q in queued {
            assert_eq!(q.await.unwrap(), Ok(()));
        }
        assert_eq!(gate.waiting(), 0);
        assert_eq!(gate.max_in_flight(), 2);
    }
}
