//! A loopback app whose answers a test computes per request: a handler gets the method, path,
//! query, headers and body, and returns the status, headers and body (a page that checks a
//! one-time code server-side, a download with `Content-Disposition`, an echo of an upload).

use std::sync::Arc;

use tokio::net::TcpListener;

use crate::block_on;
use crate::http::{read_request, respond};

/// One request as the handler sees it.
pub struct AppRequest {
    /// `GET`, `POST`…
    pub method: String,
    /// The path, without query.
    pub path: String,
    /// The query string, without `?` (empty when none).
    pub query: String,
    /// Names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body, as sent.
    pub body: Vec<u8>,
}

impl AppRequest {
    /// A query parameter's value, percent-decoded (`+` as a space).
    pub fn param(&self, name: &str) -> Option<String> {
        self.query.split('&').find_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (k == name).then(|| crate::percent_decode(&v.replace('+', " ")))
        })
    }
}

/// The handler's answer.
pub struct AppResponse {
    /// The status code.
    pub status: u16,
    /// Headers besides `content-length`; `content-type` defaults to JSON.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
}

impl AppResponse {
    /// A 200 HTML page.
    pub fn html(body: &str) -> AppResponse {
        AppResponse {
            status: 200,
            headers: vec![("content-type".into(), "text/html; charset=utf-8".into())],
            body: body.to_string(),
        }
    }
}

/// A running app on 127.0.0.1; stopped when dropped.
pub struct App {
    /// `http://127.0.0.1:<port>/`.
    pub base: url::Url,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for App {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl App {
    /// Starts an app answering every request with `handler`.
    pub fn start(handler: impl Fn(&AppRequest) -> AppResponse + Send + Sync + 'static) -> App {
        let handler = Arc::new(handler);
        block_on(async move {
            let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let addr = listener.local_addr().expect("addr");
            let task = tokio::spawn(async move {
                while let Ok((mut stream, _)) = listener.accept().await {
                    let handler = handler.clone();
                    tokio::spawn(async move {
                        let mut buf = Vec::new();
                        while let Ok(Some(raw)) = read_request(&mut stream, &mut buf).await {
                            let (path, query) = raw
                                .target
                                .split_once('?')
                                .map(|(p, q)| (p.to_string(), q.to_string()))
                                .unwrap_or((raw.target.clone(), String::new()));
                            let request = AppRequest {
                                method: raw.method,
                                path,
                                query,
                                headers: raw.headers,
                                body: raw.body,
                            };
                            let r = handler(&request);
                            if respond(&mut stream, r.status, &r.headers, &r.body)
                                .await
                                .is_err()
                            {
                                break;
                            }
                        }
                    });
                }
            });
            App {
                base: url::Url::parse(&format!("http://{addr}/")).expect("url"),
                task,
            }
        })
    }
}
