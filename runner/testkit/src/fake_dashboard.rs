//! A fake team dashboard: a real HTTP/1.1 server on 127.0.0.1 speaking the runner's side of
//! API v1 with the model's wire types (`windup_model::api`), recording every request, with
//! scripted failures ahead of the contract.
//!
//! - `POST /api/v1/runs` takes a `RunUpload` (422 when the body does not fit it) and stores the
//!   body as sent by `report.run_id`: 201 `created: true` the first time, 200 `created: false`
//!   after (idempotent).
//! - `PUT /api/v1/runs/{id}/artifacts/{name}` stores a PNG or JPEG (415 without `content-type:
//!   image/png` or `image/jpeg`, 404 for an unknown run).
//! - `GET /api/v1/cache/{id}?branch=B` answers the entry stored for the branch, else for the
//!   default branch `main`, else 404. It does not filter on `scenario_sha` or `start_url`, so
//!   tests can check that the runner does.
//! - `PUT /api/v1/cache/{id}?branch=B` stores a `CacheEntry` (403 for a branch made read-only).
//! - `GET /api/v1/sitemap?branch=B` answers `main`'s site map with B's merged over it (an empty
//!   map when none); `PUT /api/v1/sitemap?branch=B` merges a `SiteMap` into B's, with the model's
//!   own `SiteMap::merge`, as the dashboard does.
//!
//! A wrong or missing `Authorization: Bearer` token gets 401, and the 401's message echoes what
//! was presented, as a careless server might, so tests can check the runner never repeats it.

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;
use windup_model::CacheEntry;
use windup_model::api::{
    ArtifactSaved, CachedPlan, PlanPutQuery, PlanQuery, PlanSaved, RunCreated, RunUpload,
    SiteMapQuery, SiteMapSaved,
};
use windup_model::sitemap::SiteMap;

use crate::RUNTIME;
use crate::http;

/// The branch a cache read falls back to.
pub const DEFAULT_BRANCH: &str = "main";

/// One request as the fake received it. Header names are lower-case; the path is decoded.
#[derive(Debug, Clone)]
pub struct DashRequest {
    pub method: String,
    /// Percent-decoded, without the query.
    pub path: String,
    pub query: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl DashRequest {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!("the body of {} {} is not JSON: {e}", self.method, self.path)
        })
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The query as one of the API's typed queries (`windup_model::api`), as the dashboard reads
    /// it; None when it is not one.
    pub fn query_as<Q: serde::de::DeserializeOwned>(&self) -> Option<Q> {
        let encoded = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&self.query)
            .finish();
        serde_urlencoded::from_str(&encoded).ok()
    }

    pub fn query(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

struct Scripted {
    status: u16,
    headers: Vec<(String, String)>,
}

#[derive(Default)]
struct State {
    token: String,
    base: String,
    script: VecDeque<Scripted>,
    requests: Vec<DashRequest>,
    runs: BTreeMap<String, Value>,
    artifacts: BTreeMap<(String, String), Vec<u8>>,
    /// (scenario id, branch) → (updated_at, entry).
    cache: BTreeMap<(String, String), (OffsetDateTime, Value)>,
    read_only: Vec<String>,
    /// Branch → its site map.
    sitemaps: BTreeMap<String, SiteMap>,
    connections: Vec<AbortHandle>,
}

/// The fake dashboard. Dropping it stops the server and closes its connections.
pub struct FakeDashboard {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    accept: AbortHandle,
}

impl Drop for FakeDashboard {
    fn drop(&mut self) {
        self.accept.abort();
        for c in self.state.lock().unwrap().connections.drain(..) {
            c.abort();
        }
    }
}

impl FakeDashboard {
    /// Starts on a random loopback port, accepting `token`.
    pub fn start(token: &str) -> FakeDashboard {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener.set_nonblocking(true).expect("non-blocking");
        let addr = listener.local_addr().expect("local addr");
        let state = Arc::new(Mutex::new(State {
            token: token.to_string(),
            base: format!("http://{addr}/"),
            ..State::default()
        }));
        let shared = state.clone();
        let accept = RUNTIME
            .spawn(async move {
                let listener = TcpListener::from_std(listener).expect("tokio listener");
                while let Ok((stream, _)) = listener.accept().await {
                    let state = shared.clone();
                    let task = tokio::spawn(async move {
                        let _ = serve(stream, &state).await;
                    });
                    shared.lock().unwrap().connections.push(task.abort_handle());
                }
            })
            .abort_handle();
        FakeDashboard {
            addr,
            state,
            accept,
        }
    }

    /// `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Answers the next request with `status` (and these headers, such as `Retry-After`)
    /// instead of the contract; queued answers go first, in order.
    pub fn fail_next(&self, status: u16, headers: &[(&str, &str)]) {
        self.state.lock().unwrap().script.push_back(Scripted {
            status,
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
        });
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<DashRequest> {
        self.state.lock().unwrap().requests.clone()
    }

    /// Requests with this method whose path starts with `prefix`.
    pub fn requests_to(&self, method: &str, prefix: &str) -> Vec<DashRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.method == method && r.path.starts_with(prefix))
            .collect()
    }

    /// The stored run uploads (bodies of `POST /api/v1/runs`), by run id.
    pub fn runs(&self) -> BTreeMap<String, Value> {
        self.state.lock().unwrap().runs.clone()
    }

    pub fn artifact(&self, run_id: &str, name: &str) -> Option<Vec<u8>> {
        self.state
            .lock()
            .unwrap()
            .artifacts
            .get(&(run_id.to_string(), name.to_string()))
            .cloned()
    }

    /// Stores a cache entry as if a run on `branch` had saved it at `updated_at` (RFC 3339).
    pub fn set_plan(&self, branch: &str, updated_at: &str, entry: Value) {
        let id = entry["key"]["scenario_id"]
            .as_str()
            .expect("entry.key.scenario_id")
            .to_string();
        let updated_at = OffsetDateTime::parse(updated_at, &Rfc3339).expect("RFC 3339 updated_at");
        self.state
            .lock()
            .unwrap()
            .cache
            .insert((id, branch.to_string()), (updated_at, entry));
    }

    /// The entry stored for a scenario on exactly this branch.
    pub fn plan(&self, scenario_id: &str, branch: &str) -> Option<Value> {
        self.state
            .lock()
            .unwrap()
            .cache
            .get(&(scenario_id.to_string(), branch.to_string()))
            .map(|(_, e)| e.clone())
    }

    /// The site map stored for a branch.
    pub fn site_map(&self, branch: &str) -> Option<SiteMap> {
        self.state.lock().unwrap().sitemaps.get(branch).cloned()
    }

    /// Cache writes to this branch get 403.
    pub fn read_only(&self, branch: &str) {
        self.state
            .lock()
            .unwrap()
            .read_only
            .push(branch.to_string());
    }
}

/// A loopback address where nothing listens: a dashboard that is down.
pub fn closed_port_url() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = l.local_addr().expect("addr");
    drop(l);
    format!("http://{addr}/")
}

async fn read_request(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<DashRequest>> {
    let Some(r) = http::read_request(stream, buf).await? else {
        return Ok(None);
    };
    let (raw_path, raw_query) = r.target.split_once('?').unwrap_or((&r.target, ""));
    Ok(Some(DashRequest {
        method: r.method,
        path: raw_path.to_string(),
        query: url::form_urlencoded::parse(raw_query.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect(),
        headers: r.headers,
        body: r.body,
    }))
}

fn error(status: u16, code: &str, message: &str) -> (u16, Vec<(String, String)>, String) {
    (
        status,
        Vec::new(),
        json!({"error": {"code": code, "message": message}}).to_string(),
    )
}

/// Now, to the second, as the real dashboard stores it.
fn now() -> OffsetDateTime {
    let now = OffsetDateTime::now_utc();
    now.replace_nanosecond(0).unwrap_or(now)
}

/// The JSON of an answer.
fn to_json(body: &impl serde::Serialize) -> String {
    serde_json::to_string(body).expect("an answer serializes")
}

/// The contract, for one request.
fn answer(s: &mut State, r: &DashRequest) -> (u16, Vec<(String, String)>, String) {
    let expected = format!("Bearer {}", s.token);
    match r.header("authorization") {
        Some(a) if a == expected => {}
        presented => {
            return error(
                401,
                "unauthorized",
                &format!("token not accepted: {}", presented.unwrap_or("(none)")),
            );
        }
    }
    let segments: Vec<String> = r
        .path
        .trim_start_matches('/')
        .split('/')
        .map(crate::percent_decode)
        .collect();
    let seg: Vec<&str> = segments.iter().map(String::as_str).collect();
    match (r.method.as_str(), seg.as_slice()) {
        ("POST", ["api", "v1", "runs"]) => {
            let body: Value = match serde_json::from_slice(&r.body) {
                Ok(v) => v,
                Err(e) => return error(400, "bad_request", &format!("not JSON: {e}")),
            };
            let upload: RunUpload = match serde_json::from_value(body.clone()) {
                Ok(u) => u,
                Err(e) => return error(422, "invalid", &format!("not a run upload: {e}")),
            };
            let run_id = upload.report.run_id;
            let created = !s.runs.contains_key(&run_id);
            s.runs.entry(run_id.clone()).or_insert(body);
            let url = format!("{}runs/{run_id}", s.base);
            (
                if created { 201 } else { 200 },
                Vec::new(),
                to_json(&RunCreated {
                    run_id,
                    url,
                    created,
                }),
            )
        }
        ("PUT", ["api", "v1", "runs", run_id, "artifacts", name]) => {
            let types = windup_model::api::ARTIFACT_TYPES;
            if !types
                .iter()
                .any(|(t, _)| r.header("content-type") == Some(t))
            {
                return error(
                    415,
                    "unsupported_media_type",
                    "send content-type: image/png or image/jpeg",
                );
            }
            if !s.runs.contains_key(*run_id) {
                return error(404, "not_found", "no such run");
            }
            let created = s
                .artifacts
                .insert((run_id.to_string(), name.to_string()), r.body.clone())
                .is_none();
            (
                if created { 201 } else { 200 },
                Vec::new(),
                to_json(&ArtifactSaved {
                    run_id: run_id.to_string(),
                    name: name.to_string(),
                    bytes: r.body.len() as u64,
                    created,
                }),
            )
        }
        ("GET", ["api", "v1", "cache", id]) => {
            let Some(q) = r.query_as::<PlanQuery>() else {
                return error(
                    400,
                    "bad_request",
                    "start_url and scenario_sha are required",
                );
            };
            let branch = q.branch.as_deref().unwrap_or(DEFAULT_BRANCH);
            let found = s
                .cache
                .get(&(id.to_string(), branch.to_string()))
                .map(|e| (branch, e))
                .or_else(|| {
                    s.cache
                        .get(&(id.to_string(), DEFAULT_BRANCH.to_string()))
                        .map(|e| (DEFAULT_BRANCH, e))
                });
            match found {
                Some((b, (updated_at, entry))) => (
                    200,
                    Vec::new(),
                    to_json(&CachedPlan {
                        branch: b.to_string(),
                        updated_at: *updated_at,
                        entry,
                    }),
                ),
                None => error(404, "not_found", "no plan for this scenario"),
            }
        }
        ("PUT", ["api", "v1", "cache", id]) => {
            let Some(PlanPutQuery { branch, .. }) = r.query_as::<PlanPutQuery>() else {
                return error(400, "bad_request", "branch is required");
            };
            if s.read_only.contains(&branch) {
                return error(403, "forbidden", "this token may not write that branch");
            }
            let entry: Value = match serde_json::from_slice(&r.body) {
                Ok(v) => v,
                Err(e) => return error(400, "bad_request", &format!("not JSON: {e}")),
            };
            if let Err(e) = serde_json::from_value::<CacheEntry>(entry.clone()) {
                return error(422, "invalid", &format!("not a cache entry: {e}"));
            }
            if entry["key"]["scenario_id"] != *id {
                return error(422, "invalid", "the entry is for another scenario");
            }
            let created = !s.cache.contains_key(&(id.to_string(), branch.clone()));
            s.cache
                .insert((id.to_string(), branch.clone()), (now(), entry));
            (
                if created { 201 } else { 200 },
                Vec::new(),
                to_json(&PlanSaved {
                    scenario_id: id.to_string(),
                    branch,
                    created,
                }),
            )
        }
        ("GET", ["api", "v1", "sitemap"]) => {
            let mut map = s
                .sitemaps
                .get(DEFAULT_BRANCH)
                .cloned()
                .unwrap_or_else(SiteMap::new);
            let q = r.query_as::<SiteMapQuery>().unwrap_or_default();
            if let Some(own) = q.branch.and_then(|b| s.sitemaps.get(&b)) {
                map.merge(own);
            }
            (200, Vec::new(), to_json(&map))
        }
        ("PUT", ["api", "v1", "sitemap"]) => {
            let Some(branch) = r.query_as::<SiteMapQuery>().and_then(|q| q.branch) else {
                return error(400, "bad_request", "branch is required");
            };
            if s.read_only.contains(&branch) {
                return error(403, "forbidden", "this token may not write that branch");
            }
            let upload: SiteMap = match serde_json::from_slice(&r.body) {
                Ok(m) => m,
                Err(e) => return error(422, "invalid", &format!("not a site map: {e}")),
            };
            let map = s.sitemaps.entry(branch.clone()).or_default();
            map.merge(&upload);
            let saved = SiteMapSaved {
                branch,
                pages: map.pages.len() as u64,
                edges: map.edges.len() as u64,
            };
            (200, Vec::new(), to_json(&saved))
        }
        _ => error(
            404,
            "not_found",
            &format!("no route {} {}", r.method, r.path),
        ),
    }
}

async fn serve(mut stream: TcpStream, state: &Mutex<State>) -> std::io::Result<()> {
    let mut buf = Vec::new();
    while let Some(request) = read_request(&mut stream, &mut buf).await? {
        let (status, headers, body) = {
            let mut s = state.lock().unwrap();
            s.requests.push(request.clone());
            match s.script.pop_front() {
                Some(f) => {
                    let (_, _, body) = error(f.status, "scripted", "scripted failure");
                    (f.status, f.headers, body)
                }
                None => answer(&mut s, &request),
            }
        };
        http::respond(&mut stream, status, &headers, &body).await?;
    }
    Ok(())
}
