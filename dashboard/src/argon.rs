//! argon2 with bounded memory: every password hash (an account made) and verification (a
//! sign-in) of the process runs on one of [`THREADS`] dedicated threads, each holding one argon2
//! memory block of [`MAX_BLOCKS`] KiB (19 MiB with the parameters passwords are hashed with),
//! allocated at its first job and reused for every job after. So at most [`THREADS`] argon2
//! blocks exist, whatever the number of requests.
//!
//! Why not tokio's blocking pool behind the sign-in gate's semaphore: its permits were one per
//! core, so a large host ran that many 19 MiB instances at once, on any of the pool's many
//! threads (each keeping freed memory in its own malloc arena), and hashing for a new account
//! passed no gate at all. The review measured 48 concurrent sign-ins at 430 MiB, plateauing at
//! 579 MiB; `bench/argon2-memory.py` measures 200 now.
//!
//! A stored hash asking for more memory than [`MAX_BLOCKS`] never matches: the dashboard only
//! writes hashes with its own parameters, and a row that asks for more is not one of them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex, OnceLock};

use argon2::password_hash::{Output, ParamsString, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, PasswordHash, Version};
use subtle::ConstantTimeEq;

/// The hashing threads. Each verification takes about 40 ms in a release build, so two threads
/// check about 50 sign-ins a second; more threads would buy speed with 19 MiB each.
pub const THREADS: usize = 2;
/// The argon2 memory of one thread, in 1 KiB blocks: the default `m_cost` passwords are hashed
/// with (argon2id, m=19456, t=2, p=1).
pub const MAX_BLOCKS: usize = Params::DEFAULT_M_COST as usize;

/// argon2 memory blocks allocated by the process so far: at most [`THREADS`], ever.
static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

/// How many argon2 memory blocks the process has allocated (tests check the bound).
pub fn blocks_allocated() -> usize {
    ALLOCATED.load(Ordering::SeqCst)
}

/// Hashing failed (a password over argon2's length limit).
#[derive(Debug, thiserror::Error)]
#[error("argon2: {0}")]
pub struct HashError(String);

/// Something a hashing thread holds until its job is done (the sign-in gate's permit).
pub type Held = Box<dyn Send>;

enum Work {
    Hash(String),
    Verify(String, String),
}

enum Done {
    Hashed(Result<String, HashError>),
    Verified(bool),
}

struct Job {
    work: Work,
    /// Called on the hashing thread with the outcome: a channel the caller waits on.
    reply: Box<dyn FnOnce(Done) + Send>,
    held: Option<Held>,
}

struct Pool {
    jobs: Mutex<Sender<Job>>,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let (jobs, queue) = std::sync::mpsc::channel();
        let queue = Arc::new(Mutex::new(queue));
        for i in 0..THREADS {
            let queue = Arc::clone(&queue);
            std::thread::Builder::new()
                .name(format!("argon2-{i}"))
                .spawn(move || work(&queue))
                .expect("the argon2 threads start");
        }
        Pool {
            jobs: Mutex::new(jobs),
        }
    })
}

/// One hashing thread: its memory, then jobs until the process ends.
fn work(queue: &Mutex<Receiver<Job>>) {
    let mut blocks: Vec<Block> = Vec::new();
    loop {
        let job = match queue.lock().expect("argon2 queue lock").recv() {
            Ok(job) => job,
            Err(_) => return,
        };
        if blocks.is_empty() {
            blocks = vec![Block::default(); MAX_BLOCKS];
            ALLOCATED.fetch_add(1, Ordering::SeqCst);
        }
        let done = match &job.work {
            Work::Hash(password) => Done::Hashed(hash_with(&mut blocks, password)),
            Work::Verify(password, hash) => {
                Done::Verified(verify_with(&mut blocks, password, hash))
            }
        };
        drop(job.held);
        (job.reply)(done);
    }
}

/// Queues `work` and waits for it without holding a runtime thread.
async fn run(work: Work, held: Option<Held>) -> Option<Done> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let reply = Box::new(move |done| {
        let _ = tx.send(done);
    });
    submit(Job { work, reply, held });
    rx.await.ok()
}

/// Queues `work` and blocks the calling thread until it is done.
fn run_blocking(work: Work) -> Option<Done> {
    let (tx, rx) = std::sync::mpsc::channel();
    let reply = Box::new(move |done| {
        let _ = tx.send(done);
    });
    submit(Job {
        work,
        reply,
        held: None,
    });
    rx.recv().ok()
}

fn submit(job: Job) {
    pool()
        .jobs
        .lock()
        .expect("argon2 queue lock")
        .send(job)
        .expect("the argon2 threads never stop");
}

fn hashed(done: Option<Done>) -> Result<String, HashError> {
    match done {
        Some(Done::Hashed(outcome)) => outcome,
        _ => Err(HashError("the hashing thread is gone".into())),
    }
}

fn verified(done: Option<Done>) -> bool {
    matches!(done, Some(Done::Verified(true)))
}

/// Hashes a password for storage (PHC string, argon2id, the default parameters).
pub async fn hash(password: &str) -> Result<String, HashError> {
    hashed(run(Work::Hash(password.to_string()), None).await)
}

/// Whether `password` matches the stored `hash`; `held` is kept until the check is done, even
/// when the caller stops waiting.
pub async fn verify(password: String, hash: String, held: Option<Held>) -> bool {
    verified(run(Work::Verify(password, hash), held).await)
}

/// [`hash`], for callers outside the async runtime (tests, a CLI).
pub fn hash_blocking(password: &str) -> Result<String, HashError> {
    hashed(run_blocking(Work::Hash(password.to_string())))
}

/// [`verify`], for callers outside the async runtime.
pub fn verify_blocking(password: &str, hash: &str) -> bool {
    verified(run_blocking(Work::Verify(password.into(), hash.into())))
}

fn hash_with(blocks: &mut [Block], password: &str) -> Result<String, HashError> {
    let bad = |e: &dyn std::fmt::Display| HashError(e.to_string());
    let mut raw = [0u8; 16];
    getrandom::fill(&mut raw).expect("the operating system's random source failed");
    let salt = SaltString::encode_b64(&raw).map_err(|e| bad(&e))?;
    let params = Params::default();
    let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    argon
        .hash_password_into_with_memory(password.as_bytes(), &raw, &mut out, blocks)
        .map_err(|e| bad(&e))?;
    let phc = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params).map_err(|e| bad(&e))?,
        salt: Some(salt.as_salt()),
        hash: Some(Output::new(&out).map_err(|e| bad(&e))?),
    };
    Ok(phc.to_string())
}

fn verify_with(blocks: &mut [Block], password: &str, hash: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(hash) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
        return false;
    };
    let Ok(params) = Params::try_from(&parsed) else {
        return false;
    };
    if params.block_count() > blocks.len() {
        tracing::error!(
            m_cost = params.m_cost(),
            "a stored password hash asks for more argon2 memory than the dashboard's own; it never matches"
        );
        return false;
    }
    let Ok(algorithm) = Algorithm::try_from(parsed.algorithm) else {
        return false;
    };
    let Ok(version) = parsed
        .version
        .map_or(Ok(Version::default()), Version::try_from)
    else {
        return false;
    };
    let mut salt_buf = [0u8; 64];
    let Ok(salt) = salt.decode_b64(&mut salt_buf) else {
        return false;
    };
    let mut out = vec![0u8; expected.len()];
    Argon2::new(algorithm, version, params)
        .hash_password_into_with_memory(password.as_bytes(), salt, &mut out, blocks)
        .is_ok()
        && bool::from(out.ct_eq(expected.as_bytes()))
}

#[cfg(test)]
mod tests {
    use argon2::password_hash::{PasswordHasher, PasswordVerifier};

    use super::*;

    #[test]
    fn hashes_agree_with_argon2_s_own_and_verify_only_themselves() {
        let hash = hash_blocking("correct horse").unwrap();
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert!(verify_blocking("correct horse", &hash));
        assert!(!verify_blocking("wrong", &hash));
        assert!(!verify_blocking("correct horse", "not a hash"));
        // Argon2's own verifier takes ours, and ours takes its hashes.
        let parsed = PasswordHash::new(&hash).unwrap();
        assert!(
            Argon2::default()
                .verify_password(b"correct horse", &parsed)
                .is_ok()
        );
        let theirs = Argon2::default()
            .hash_password(
                b"battery staple",
                &SaltString::encode_b64(&[7; 16]).unwrap(),
            )
            .unwrap()
            .to_string();
        assert!(verify_blocking("battery staple", &theirs));
        assert!(!verify_blocking("battery stapl", &theirs));
    }

    #[test]
    fn a_hash_asking_for_more_memory_than_a_thread_holds_never_matches() {
        let params = Params::new(Params::DEFAULT_M_COST * 4, 1, 1, None).unwrap();
        let big = Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
            .hash_password(b"pw", &SaltString::encode_b64(&[1; 16]).unwrap())
            .unwrap()
            .to_string();
        assert!(!verify_blocking("pw", &big));
    }
}
