//! A step as the run page and its filmstrip name it: its text and its status.

/// A step as the run page names it: its summary, else its type.
pub(super) fn step_text(a: &windup_model::ActionResult) -> String {
    a.step
        .clone()
        .unwrap_or_else(|| a.kind.as_str().to_string())
}

/// A step's status as the page's CSS class and label: `passed`, `failed` or `skipped`.
pub(super) fn status_text(a: &windup_model::ActionResult) -> String {
    format!("{:?}", a.status).to_lowercase()
}
