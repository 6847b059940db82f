//! Attaching to a Chromium someone else started (`--cdp-url`): a preflight that names what is
//! wrong before anything runs, then the browser's debugging WebSocket as the transport.
//!
//! The preflight tells three failures apart, each a [`BrowserError::Attach`] (bad input,
//! exit 2) with its fix: nothing answers at the URL; what answers is not Chromium's debugging
//! endpoint (no `/json/version`, or a `Browser` other than Chrome, Chromium or HeadlessChrome);
//! the Chromium is older than [`MIN_CHROMIUM_MAJOR`], the oldest Windup's tests run on. An
//! `http://` URL is checked with `/json/version`, which also names the WebSocket; a `ws://` URL
//! is connected to directly and checked with `Browser.getVersion`.
//!
//! Any host is accepted, but the debugging port gives whoever reaches it the whole browser
//! (its cookies and sign-ins), so one off this machine is warned about: `windup browser`
//! listens on 127.0.0.1 only.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite;
use windup_model::InputError;

use super::cdp::browser::GetVersion;
use super::cdp::target::SetDiscoverTargets;
use super::connection::Connection;
use super::error::BrowserError;
use super::transport::Transport;

/// The oldest Chromium major version Windup attaches to: the Debian 12 Chromium its tests run
/// on (docs/configuration.md, "Attaching to a running Chrome").
pub const MIN_CHROMIUM_MAJOR: u32 = 156;

/// How long the preflight's HTTP request and the WebSocket handshake may take.
const PREFLIGHT_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest CDP message read or written (a full-page screenshot is the largest there is).
const MAX_MESSAGE: usize = 256 << 20;

/// Parses a CDP URL from a flag or windup.toml (`file` and `field` name where it came from):
/// `http://HOST:PORT` or `ws://…`. TLS is refused: a debugging port speaks plain HTTP, and one
/// worth attaching to is on this machine.
pub fn parse_cdp_url(file: &str, field: &str, raw: &str) -> Result<url::Url, InputError> {
    let example = "give http://127.0.0.1:9222 (the address `windup browser` prints) or a ws://127.0.0.1:9222/devtools/browser/… URL";
    let url = url::Url::parse(raw)
        .map_err(|e| InputError::new(file, field, format!("`{raw}` is not a URL: {e}"), example))?;
    if !matches!(url.scheme(), "http" | "ws") || url.host().is_none() {
        return Err(InputError::new(
            file,
            field,
            format!(
                "`{raw}` is not a debugging address (http://HOST:PORT or ws://…; no https or wss: Chromium's debugging port speaks plain HTTP)"
            ),
            example,
        ));
    }
    Ok(url)
}

/// What `/json/version` answers; only what the preflight reads.
#[derive(Debug, Deserialize)]
pub(super) struct JsonVersion {
    /// `Chrome/156.0.8078.114`, `HeadlessChrome/…`.
    #[serde(rename = "Browser")]
    browser: String,
    /// The browser's own WebSocket: `ws://127.0.0.1:9222/devtools/browser/<id>`.
    #[serde(rename = "webSocketDebuggerUrl", default)]
    web_socket_debugger_url: Option<String>,
}

/// Checks the browser at `url`, connects to its WebSocket and turns target discovery on.
/// `answer_within` bounds the browser's first answers once connected.
pub(super) async fn attach(
    url: &url::Url,
    answer_within: Duration,
) -> Result<(Arc<Connection>, JoinHandle<()>), BrowserError> {
    let given = url.as_str().trim_end_matches('/').to_string();
    let wrong = |problem: String, fix: &str| BrowserError::Attach {
        url: given.clone(),
        problem,
        fix: fix.to_string(),
    };
    if !is_loopback(url) {
        tracing::warn!(
            "attaching to {given}: a debugging port off this machine gives whoever reaches it the whole browser; prefer one on 127.0.0.1 (`windup browser`)"
        );
    }
    let socket_url = match url.scheme() {
        "http" => {
            let version = json_version(url, &given).await?;
            check_product(&version.browser).map_err(|(p, f)| wrong(p, f))?;
            match version
                .web_socket_debugger_url
                .as_deref()
                .map(url::Url::parse)
            {
                Some(Ok(ws)) if ws.scheme() == "ws" => on_given_host(url, &ws),
                _ => {
                    return Err(wrong(
                        "its /json/version names no ws:// webSocketDebuggerUrl".into(),
                        NOT_CHROMIUM_FIX,
                    ));
                }
            }
        }
        "ws" => url.to_string(),
        other => {
            return Err(wrong(
                format!("`{other}://` is not a debugging address"),
                "give http://127.0.0.1:PORT or a ws://…/devtools/browser/… URL",
            ));
        }
    };
    let socket = connect(&socket_url, &given).await?;
    let (conn, reader) = Connection::start(Transport::WebSocket(Box::new(socket)));
    let checked = async {
        let version = conn.send(None, &GetVersion {}).await.map_err(|e| {
            wrong(
                format!("it does not answer Browser.getVersion ({e})"),
                NOT_CHROMIUM_FIX,
            )
        })?;
        check_product(&version.product).map_err(|(p, f)| wrong(p, f))?;
        // Discovery reports the tabs pages open, as for a browser Windup starts.
        conn.send(None, &SetDiscoverTargets { discover: true })
            .await
            .map_err(|e| {
                wrong(
                    format!("it refused target discovery ({e})"),
                    NOT_CHROMIUM_FIX,
                )
            })
    };
    let outcome = match tokio::time::timeout(answer_within, checked).await {
        Ok(outcome) => outcome.map(|_| ()),
        Err(_) => Err(wrong(
            format!(
                "it did not answer within {} s once connected",
                answer_within.as_secs()
            ),
            NOT_CHROMIUM_FIX,
        )),
    };
    match outcome {
        Ok(()) => Ok((conn, reader)),
        Err(e) => {
            conn.detach();
            reader.abort();
            Err(e)
        }
    }
}

/// The browser's WebSocket at the host and port the user gave, with the path `/json/version`
/// named: what answers there may name any host (a forwarded port, or a server pointing Windup
/// at another machine), and Windup connects only where it was told, so the off-machine warning
/// above holds for the connection it really makes.
fn on_given_host(given: &url::Url, named: &url::Url) -> String {
    let mut socket = given.clone();
    socket.set_path(named.path());
    socket.set_query(named.query());
    socket.set_fragment(None);
    let _ = socket.set_scheme("ws");
    if named.host() != given.host()
        || named.port_or_known_default() != given.port_or_known_default()
    {
        tracing::warn!(
            "the browser at {given} names its WebSocket at {named}; Windup connects to {socket} instead, where it was told to attach"
        );
    }
    socket.to_string()
}

const UNREACHABLE_FIX: &str = "start a debug browser with `windup browser` (it prints the URL to use), or start Chrome with --remote-debugging-port=9222 --remote-debugging-address=127.0.0.1, and check the port in --cdp-url";
const NOT_CHROMIUM_FIX: &str = "point --cdp-url at a Chromium started with --remote-debugging-port (its http://127.0.0.1:PORT address), such as the one `windup browser` prints";

/// GETs `/json/version` at the URL's host and port.
pub(super) async fn json_version(url: &url::Url, given: &str) -> Result<JsonVersion, BrowserError> {
    let wrong = |problem: String, fix: &str| BrowserError::Attach {
        url: given.to_string(),
        problem,
        fix: fix.to_string(),
    };
    let mut endpoint = url.clone();
    endpoint.set_path("/json/version");
    endpoint.set_query(None);
    let http = reqwest::Client::builder()
        .user_agent(concat!("windup/", env!("CARGO_PKG_VERSION")))
        .tls_backend_preconfigured(crate::http::tls_config())
        // A proxy from the environment must not see (or answer for) a loopback debugging port.
        .no_proxy()
        .timeout(PREFLIGHT_TIMEOUT)
        .build()
        .map_err(|e| wrong(format!("no HTTP client: {e}"), "report this as a bug"))?;
    let answer = http.get(endpoint.clone()).send().await.map_err(|e| {
        let why = if e.is_timeout() {
            format!("nothing answered within {} s", PREFLIGHT_TIMEOUT.as_secs())
        } else {
            format!("nothing answers there ({})", crate::http::error_chain(&e))
        };
        wrong(why, UNREACHABLE_FIX)
    })?;
    let status = answer.status();
    if !status.is_success() {
        return Err(wrong(
            format!("{endpoint} answered HTTP {status}, so this is not Chromium's debugging port"),
            NOT_CHROMIUM_FIX,
        ));
    }
    let body = answer.bytes().await.map_err(|e| {
        wrong(
            format!("its /json/version could not be read ({e})"),
            UNREACHABLE_FIX,
        )
    })?;
    serde_json::from_slice(&body).map_err(|_| {
        wrong(
            format!("{endpoint} is not Chromium's (no `Browser` in a JSON answer), so this is not a Chromium debugging port"),
            NOT_CHROMIUM_FIX,
        )
    })
}

/// Connects to the browser's WebSocket.
async fn connect(
    socket_url: &str,
    given: &str,
) -> Result<super::transport::WebSocket, BrowserError> {
    let wrong = |problem: String, fix: &str| BrowserError::Attach {
        url: given.to_string(),
        problem,
        fix: fix.to_string(),
    };
    let config = tungstenite::protocol::WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE))
        .max_frame_size(Some(MAX_MESSAGE));
    let connecting = tokio_tungstenite::connect_async_with_config(socket_url, Some(config), true);
    match tokio::time::timeout(PREFLIGHT_TIMEOUT, connecting).await {
        Ok(Ok((socket, _))) => Ok(socket),
        Ok(Err(tungstenite::Error::Io(e))) => Err(wrong(
            format!("nothing answers at {socket_url} ({e})"),
            UNREACHABLE_FIX,
        )),
        Ok(Err(tungstenite::Error::Http(answer))) => Err(wrong(
            format!(
                "{socket_url} answered the WebSocket handshake with HTTP {}, so it is not a Chromium browser's debugging WebSocket",
                answer.status()
            ),
            NOT_CHROMIUM_FIX,
        )),
        Ok(Err(e)) => Err(wrong(
            format!("{socket_url} is not a Chromium debugging WebSocket ({e})"),
            NOT_CHROMIUM_FIX,
        )),
        Err(_) => Err(wrong(
            format!(
                "{socket_url} did not finish the WebSocket handshake within {} s",
                PREFLIGHT_TIMEOUT.as_secs()
            ),
            UNREACHABLE_FIX,
        )),
    }
}

/// Whether a `Browser`/`product` string is a Chromium Windup supports: Ok, or the problem and
/// its fix.
fn check_product(product: &str) -> Result<(), (String, &'static str)> {
    let (name, version) = product.split_once('/').unwrap_or((product, ""));
    if !matches!(name, "Chrome" | "Chromium" | "HeadlessChrome") {
        return Err((
            format!("it is `{product}`, not Chromium (Chrome, Chromium or HeadlessChrome)"),
            NOT_CHROMIUM_FIX,
        ));
    }
    let major = version
        .split('.')
        .next()
        .and_then(|m| m.parse::<u32>().ok());
    match major {
        Some(major) if major >= MIN_CHROMIUM_MAJOR => Ok(()),
        Some(_) => Err((
            format!(
                "it is {product}, older than Chromium {MIN_CHROMIUM_MAJOR}, the oldest version Windup's tests cover"
            ),
            "update that Chrome or Chromium, or run without --cdp-url so Windup starts its own Chromium",
        )),
        None => Err((
            format!("it is `{product}`, whose version cannot be read"),
            NOT_CHROMIUM_FIX,
        )),
    }
}

/// Whether the URL's host is this machine: `localhost` or a loopback address.
fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_recent_enough_chromium_passes() {
        assert!(check_product(&format!("Chrome/{MIN_CHROMIUM_MAJOR}.0.1.2")).is_ok());
        assert!(check_product("HeadlessChrome/999.0.0.0").is_ok());
        assert!(check_product("Chromium/999.1").is_ok());
        let (old, _) = check_product("Chrome/90.0.4430.93").unwrap_err();
        assert!(old.contains("older than Chromium"), "{old}");
        let (other, _) = check_product("Firefox/128.0").unwrap_err();
        assert!(other.contains("not Chromium"), "{other}");
        assert!(check_product("Chrome/abc").is_err());
        assert!(check_product("").is_err());
    }

    #[test]
    fn loopback_hosts_are_told_apart() {
        let yes = [
            "http://127.0.0.1:9222",
            "http://localhost:9222",
            "ws://[::1]:9222/x",
        ];
        for u in yes {
            assert!(is_loopback(&url::Url::parse(u).unwrap()), "{u}");
        }
        let no = ["http://10.0.0.2:9222", "http://example.com:9222"];
        for u in no {
            assert!(!is_loopback(&url::Url::parse(u).unwrap()), "{u}");
        }
    }
}
