//! Evaluating an expression in a realm of a page (the top document's main world, or a frame's
//! isolated world) and reading its value back. The expressions are the in-page engine's calls,
//! built by `injected.rs` alone (and, with the `test-access` feature, a test's own).

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::cdp::runtime::{Evaluate, RemoteObject};
use super::error::{BrowserError, is_context_lost};
use super::frames::Realm;
use super::page::Page;

/// Evaluates an expression in a realm (a frame's isolated world, or the top document's main
/// world) and returns its JSON value: only calls into the in-page engine (and, with the
/// `test-access` feature, a test's own expression).
pub(super) async fn eval_in<T: DeserializeOwned>(
    page: &Page,
    realm: &Realm,
    expression: &str,
) -> Result<T, BrowserError> {
    let object = evaluate(page, realm, expression, true)
        .await
        .map_err(|e| match e {
            BrowserError::Crashed(m) if page.instance.is_alive() => {
                BrowserError::Crashed(format!("the page stopped answering ({m})"))
            }
            other => other,
        })?;
    let value = object.value.unwrap_or(Value::Null);
    serde_json::from_value(value).map_err(|e| BrowserError::Protocol(e.to_string()))
}

/// Evaluates an expression (in a realm's context, or the top document's main world) whose
/// value may be an object (a DOM node), awaiting a promise; returns the remote object: a
/// handle to an object (the caller lets go of it), or a plain value.
pub(super) async fn eval_handle(
    page: &Page,
    realm: &Realm,
    expression: &str,
) -> Result<RemoteObject, BrowserError> {
    evaluate(page, realm, expression, false).await
}

/// The expression evaluated in the realm, awaiting a promise: by value (with a user gesture in a
/// frame's isolated world), or as a handle. An exception is a lost context (the document went
/// away) or the script's own error.
async fn evaluate(
    page: &Page,
    realm: &Realm,
    expression: &str,
    by_value: bool,
) -> Result<RemoteObject, BrowserError> {
    let context = realm.context;
    let evaluated = page
        .send_in(
            realm.session.as_deref(),
            &Evaluate {
                expression: expression.to_string(),
                return_by_value: by_value,
                await_promise: true,
                context_id: context,
                user_gesture: by_value && context.is_some(),
            },
        )
        .await?;
    match evaluated.exception_details {
        Some(details) if is_context_lost(&details.message()) => Err(BrowserError::ContextLost),
        Some(details) => Err(BrowserError::Script(details.message())),
        None => Ok(evaluated.result),
    }
}
