//! The Network domain: the requests a page makes (for the failed requests of a failure's
//! evidence and the origins a reset clears), cookies, the HTTP cache.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Command, Event, Ignored};

/// Turns on the domain's events. Buffer sizes of 0: no response body is kept.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Enable {
    pub max_total_buffer_size: u64,
    pub max_resource_buffer_size: u64,
}

impl Command for Enable {
    const METHOD: &'static str = "Network.enable";
    type Response = Ignored;
}

#[derive(Debug, Serialize)]
pub(crate) struct ClearBrowserCookies {}

impl Command for ClearBrowserCookies {
    const METHOD: &'static str = "Network.clearBrowserCookies";
    type Response = Ignored;
}

#[derive(Debug, Serialize)]
pub(crate) struct ClearBrowserCache {}

impl Command for ClearBrowserCache {
    const METHOD: &'static str = "Network.clearBrowserCache";
    type Response = Ignored;
}

/// Every cookie of the page's context.
#[derive(Debug, Serialize)]
pub(crate) struct GetAllCookies {}

#[derive(Debug, Deserialize)]
pub(crate) struct Cookies {
    pub cookies: Vec<Cookie>,
}

impl Command for GetAllCookies {
    const METHOD: &'static str = "Network.getAllCookies";
    type Response = Cookies;
}

/// A cookie as the browser reports it. The fields Windup reads are typed; every other field
/// the browser sends is kept as it came, so a saved cookie holds all Chromium said of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cookie {
    /// The cookie's name.
    pub name: String,
    /// Its value (a session token, often: never logged).
    pub value: String,
    /// The domain it is sent to.
    pub domain: String,
    /// The path it is sent under.
    pub path: String,
    /// Seconds since the epoch; -1 for a session cookie.
    pub expires: f64,
    /// Whether page scripts cannot read it.
    pub http_only: bool,
    /// Whether it is sent over HTTPS only.
    pub secure: bool,
    /// Whether it ends with the browser session.
    pub session: bool,
    /// `Strict`, `Lax` or `None`, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_site: Option<String>,
    /// Chromium's priority (`Low`, `Medium`, `High`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
    /// The scheme that set it (`Secure`, `NonSecure`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_scheme: Option<String>,
    /// The port that set it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_port: Option<i64>,
    /// The rest (`size`, partition keys…), as the browser sent it.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Sets cookies in the page's context.
#[derive(Debug, Serialize)]
pub(crate) struct SetCookies {
    pub cookies: Vec<CookieParam>,
}

impl Command for SetCookies {
    const METHOD: &'static str = "Network.setCookies";
    type Response = Ignored;
}

/// A cookie to set: the fields `Network.setCookies` takes.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CookieParam {
    pub name: String,
    pub value: String,
    pub domain: String,
    pub path: String,
    pub secure: bool,
    pub http_only: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_site: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_scheme: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_port: Option<i64>,
    /// None for a session cookie, which ends with the browser session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires: Option<f64>,
}

impl From<&Cookie> for CookieParam {
    fn from(c: &Cookie) -> Self {
        CookieParam {
            name: c.name.clone(),
            value: c.value.clone(),
            domain: c.domain.clone(),
            path: c.path.clone(),
            secure: c.secure,
            http_only: c.http_only,
            same_site: c.same_site.clone(),
            priority: c.priority.clone(),
            source_scheme: c.source_scheme.clone(),
            source_port: c.source_port,
            expires: (!c.session).then_some(c.expires),
        }
    }
}

/// A request is about to be sent.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RequestWillBeSent {
    pub request_id: String,
    /// The document load it belongs to (a navigation's own request has its loader's id).
    #[serde(default)]
    pub loader_id: Option<String>,
    pub request: Request,
    /// The resource type: `Document`, `Script`, `XHR`, …
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// The answer that redirected here: the same request id goes on.
    #[serde(default)]
    pub redirect_response: Option<Response>,
}

impl Event for RequestWillBeSent {
    const METHOD: &'static str = "Network.requestWillBeSent";
}

#[derive(Debug, Deserialize)]
pub(crate) struct Request {
    pub url: String,
    /// `GET`, `POST`…
    #[serde(default)]
    pub method: String,
}

/// An HTTP answer arrived (headers only).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResponseReceived {
    #[serde(default)]
    pub request_id: String,
    pub response: Response,
}

impl Event for ResponseReceived {
    const METHOD: &'static str = "Network.responseReceived";
}

#[derive(Debug, Deserialize)]
pub(crate) struct Response {
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub status: u64,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LoadingFinished {
    pub request_id: String,
}

impl Event for LoadingFinished {
    const METHOD: &'static str = "Network.loadingFinished";
}

/// A request got no answer: refused, aborted, blocked, canceled.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LoadingFailed {
    pub request_id: String,
    #[serde(default)]
    pub error_text: Option<String>,
    #[serde(default)]
    pub canceled: Option<bool>,
    #[serde(default)]
    pub blocked_reason: Option<String>,
}

impl Event for LoadingFailed {
    const METHOD: &'static str = "Network.loadingFailed";
}
