//! The in-page engine's Rust face: one typed function per entry point of `window.__windup`
//! (the script assembled from `injected/*.js`), with typed arguments and results. This is the
//! only place that names those entry points, and the in-page engine is the only script the
//! engine runs in a page: the expressions built here are calls into it with JSON data as
//! arguments.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use windup_model::selector::Part;

use super::error::BrowserError;
use super::evaluate::{eval_handle, eval_in};
use super::frames::{Realm, frame_of};
use super::page::Page;

/// Declares [`MODULES`] and [`INJECTED_JS`] from one list, so the two cannot disagree.
macro_rules! in_page_modules {
    ($($module:literal,)*) => {
        /// The in-page engine's modules (`runner/browser/injected/`), in the order they are
        /// assembled; only tests read the list itself.
        #[cfg(test)]
        pub const MODULES: &[&str] = &[$($module),*];

        /// The in-page engine: locators, actionability, snapshots. Plain data in, plain data
        /// out. Its modules (`runner/browser/injected/`) concatenated at build time, in the order
        /// `injected.rs` lists them, into one script.
        pub const INJECTED_JS: &str =
            concat!($(include_str!(concat!("../injected/", $module))),*);
    };
}

/// The in-page engine installed and configured: [`INJECTED_JS`], then its settings (the
/// attribute `testid=` reads), which every install of it in a document carries.
pub(crate) fn engine_script(testid_attribute: &str) -> String {
    let options = serde_json::json!({ "testIdAttribute": testid_attribute });
    format!("{INJECTED_JS};window.__windup.configure({options})")
}

// One IIFE cut along its concerns: each module is a slice of its body, headed by what it uses
// from the modules before it (their `const`s must come first; functions hoist). A new file in
// injected/ must be listed here (a test holds the folder to the list). Each module's own
// tests, in runner/engine/tests/it/ (integration tests against real Chromium):
//   prelude.js, epilogue.js  injected::the_assembled_engine_installs_every_entry_point
//   dom.js                   locators::shadow_dom_is_pierced, same_origin_iframes_are_searched_…
//   visibility.js            locators::the_visible_duplicate_wins
//   roles.js, pseudo.js,     locators::roles_and_names_agree_with_chromium (Chromium's own
//   names.js, names_native.js  accessibility tree as the oracle)
//   states.js                injected::checked_levels_and_disabled_agree_with_chromium
//   text.js                  locators::text_matches_the_innermost_element
//   selectors.js             locators::chains_has_text_and_nth, quotes_and_backslashes_…
//   navigation.js            injected::leaving_is_told_from_navigations_that_stay
//   actionability.js         actionability::*, failures::element_under_an_overlay_is_not_…
//   intercept.js             actionability::a_click_the_page_moves_away_from_lands_on_its_target_…
//   act.js                   locators (query, locate, isChecked), injected::select_chooses_…,
//                            failures::false_postcondition_is_postcondition_failed (check),
//                            frames (frameOwner), planning::calls::bench_breaks_the_app_… (mute),
//                            planning::transfers (fileInput)
//   typing.js                typing::*
//   snapshot.js              failures::missing_element_is_selector_not_found_with_what_was_found,
//                            report_runs (the snapshot in every report format)
//   interactive.js,          frames::the_observation_lists_a_cross_origin_frames_controls_…,
//   observe.js                 planning::grounding::* (refs whose selectors reach their element)
//   signature.js             sitemap::signatures_ignore_text_data_and_counts_but_not_controls
//   heal.js                  locators::the_visible_duplicate_wins (diagnose),
//                            planning::repair::todomvc_plans_replays_heals_after_a_markup_change…
//   evidence.js              failures::failure_evidence_names_the_target_and_covers_credential_…
//   document.js              failures::http_error_page_is_navigation_failed (status),
//                            planning::setups::setup_scenarios_sign_in_once_… (localStorage),
//                            planning::settling::* (settled)
//   mask.js                  screenshots::*, frames::a_credential_in_a_frame_of_another_origin_…
in_page_modules! {
    "prelude.js",
    "dom.js",
    "visibility.js",
    "roles.js",
    "states.js",
    "pseudo.js",
    "names.js",
    "names_native.js",
    "text.js",
    "selectors.js",
    "navigation.js",
    "actionability.js",
    "intercept.js",
    "act.js",
    "typing.js",
    "snapshot.js",
    "interactive.js",
    "observe.js",
    "signature.js",
    "heal.js",
    "evidence.js",
    "document.js",
    "mask.js",
    "epilogue.js",
}

pub use super::answers::{CountObserved, Observed, ValueObserved};
pub use super::answers::{
    Counts, Diagnosis, DocumentState, Focus, HealCandidate, HealCandidates, HealRule, Located,
    SetValue,
};

/// The postconditions of one `expect`, as selector parts; the URL is matched in Rust.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckSpec {
    /// A selector that must have a visible match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visible: Option<Vec<Part>>,
    /// A selector that must have none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<Vec<Part>>,
    /// A field's value to compare.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<ValueSpec>,
    /// A number of visible matches to compare.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<CountSpec>,
}

/// A `value` postcondition: the first visible match's value equals `equals`.
#[derive(Debug, Clone, Serialize)]
pub struct ValueSpec {
    /// The field's selector.
    pub parts: Vec<Part>,
    /// The value expected.
    pub equals: String,
}

/// A `count` postcondition: the selector has exactly `equals` visible matches.
#[derive(Debug, Clone, Serialize)]
pub struct CountSpec {
    /// The selector whose visible matches are counted.
    pub parts: Vec<Part>,
    /// The number expected.
    pub equals: u32,
}

/// One visible thing on the page, as an observation reports it: a control, or a text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// A selector that resolves to this element alone now (first visible match).
    pub selector: String,
    /// Its ARIA role, explicit or implicit; none for an element without one.
    #[serde(default)]
    pub role: Option<String>,
    /// A control's accessible name; a text's words.
    #[serde(default)]
    pub name: String,
    /// Its tag name (`button`, `input`…).
    #[serde(default)]
    pub tag: String,
    /// A control (something to act on) rather than a text.
    #[serde(default)]
    pub control: bool,
    /// How much it matters to the task: in the viewport, a control, sharing the task's words.
    #[serde(default, skip_serializing)]
    pub score: u32,
    /// Its nearest named container, as `listitem "Buy milk"` or `dialog`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// An `<input>`'s type (`text`, `checkbox`…).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub input_type: Option<String>,
    /// A field's current value (never read from password fields).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// `true`, `false` or `"mixed"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<Value>,
    /// Set when the element is disabled (natively or by `aria-disabled`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
    /// Set when the control is in view but something else takes a click at its centre (an
    /// overlay over it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered: Option<bool>,
    /// For a field with no accessible name: the short text just before it in its container
    /// (`Username` of `<p>Username <input></p>`), which says what it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub near: Option<String>,
    /// `aria-expanded`, or a `<details>` being open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expanded: Option<bool>,
    /// Set on a selected option, tab, row or tree item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<bool>,
    /// A link's target, resolved to an absolute URL (`windup new` lists the pages it leads to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub href: Option<String>,
}

/// The page as the in-page engine's `observe()` reports it.
#[derive(Debug, Clone, Deserialize)]
pub struct Seen {
    /// The page's URL.
    pub url: String,
    /// The document's title.
    pub title: String,
    /// At most the limit asked for, in document order.
    pub items: Vec<Item>,
    /// Visible elements per counted role (`listitem`, `checkbox[checked=true]`…).
    pub counts: std::collections::BTreeMap<String, u32>,
    /// How many items the page had before the limit.
    pub total: usize,
}

/// What `observe()` is asked for.
#[derive(Debug, Serialize)]
pub struct ObserveOptions<'a> {
    /// At most this many items.
    pub limit: usize,
    /// The task's words: items that use them are kept first.
    pub words: &'a [String],
    /// The app's origins (`http://host:port`): links to any other are left out. Empty keeps
    /// every link.
    pub origins: &'a [String],
}

/// The page's own errors, for a failure's evidence.
#[derive(Debug, Deserialize)]
pub struct PageFailures {
    /// Uncaught errors, rejections and `console.error` lines, oldest first.
    pub console: Vec<String>,
}

/// The current document's origin (`"null"` for an opaque one) and its localStorage entries.
#[derive(Debug, Deserialize)]
pub struct LocalStorage {
    /// The document's origin.
    pub origin: String,
    /// Its localStorage entries as `(key, value)`, in the order the page listed them.
    pub entries: Vec<(String, String)>,
}

/// One argument of a call, as JSON text.
fn arg(value: &impl Serialize) -> String {
    serde_json::to_string(value).expect("plain data serialises")
}

/// Calls `window.__windup.<function>(...args)`, installing the engine first if this document
/// has not got it (documents that existed before the session, `about:blank`).
async fn call<T: DeserializeOwned>(
    page: &Page,
    function: &str,
    args: &[String],
) -> Result<T, BrowserError> {
    call_in(page, &Realm::top(), function, args).await
}

/// [`call`] in one realm: the top document's main world or a frame's isolated world (where
/// the engine is installed on first use, since scripts for new documents run in main worlds).
async fn call_in<T: DeserializeOwned>(
    page: &Page,
    realm: &Realm,
    function: &str,
    args: &[String],
) -> Result<T, BrowserError> {
    let call = format!(
        "window.__windup ? window.__windup.{function}({}) : {{\"__windup_missing\": true}}",
        args.join(",")
    );
    let first: Value = eval_in(page, realm, &call).await?;
    let value = if first.get("__windup_missing").is_some() {
        eval_in::<Value>(page, realm, &format!("{};0", page.instance.engine_script)).await?;
        eval_in::<Value>(page, realm, &call).await?
    } else {
        first
    };
    serde_json::from_value(value).map_err(|e| BrowserError::Protocol(e.to_string()))
}

/// Finds the target and checks that it is actionable for `action` (a step type: `click`,
/// `fill`, `hover`…); for `fill` and `press` the element is focused (and for `fill` its content
/// selected) when it is.
pub async fn locate(
    page: &Page,
    realm: &Realm,
    parts: &[Part],
    action: &str,
) -> Result<Located, BrowserError> {
    call_in(page, realm, "locate", &[arg(&parts), arg(&action)]).await
}

/// Where the click after a `locate` for `click`, `check` or `uncheck` landed, which ends the
/// watch `locate` armed in `realm`: None on its target (or when no event of it reached the
/// target's document), else what it landed on (`<div class="x">`); that click's events were
/// stopped before the page saw them.
pub async fn hit_result(page: &Page, realm: &Realm) -> Result<Option<String>, BrowserError> {
    #[derive(Deserialize)]
    struct Landing {
        landed: bool,
        #[serde(default)]
        on: String,
    }
    let landing: Landing = call_in(page, realm, "hitResult", &[]).await?;
    Ok((!landing.landed).then_some(landing.on))
}

/// What the in-page engine found for an `upload`'s target.
#[derive(Debug, Clone, PartialEq)]
pub enum FileInput {
    /// The input, as a handle the DOM domain takes; release it once used.
    Found(String),
    /// The document is being replaced.
    Navigating,
    /// Nothing matches.
    NotFound,
    /// A match that cannot take the files, and why.
    NotActionable(String),
}

/// The `<input type=file>` the selector names, ready for `count` files. Unlike the other entry
/// points this one answers with a handle to the element, not with JSON.
pub async fn file_input(
    page: &Page,
    parts: &[Part],
    count: usize,
) -> Result<FileInput, BrowserError> {
    let call = format!(
        "window.__windup ? window.__windup.fileInput({}, {}) : \"__windup_missing\"",
        arg(&parts),
        arg(&count)
    );
    let mut found = eval_handle(page, &Realm::top(), &call).await?;
    if found.value.as_ref().and_then(Value::as_str) == Some("__windup_missing") {
        eval_in::<Value>(
            page,
            &Realm::top(),
            &format!("{};0", page.instance.engine_script),
        )
        .await?;
        found = eval_handle(page, &Realm::top(), &call).await?;
    }
    if found.subtype.as_deref() == Some("node")
        && let Some(id) = found.object_id
    {
        return Ok(FileInput::Found(id));
    }
    Ok(match found.value.as_ref().and_then(Value::as_str) {
        Some("navigating") => FileInput::Navigating,
        Some("not_found") => FileInput::NotFound,
        Some(other) => FileInput::NotActionable(
            other
                .strip_prefix("not_actionable: ")
                .unwrap_or(other)
                .to_string(),
        ),
        None => FileInput::NotFound,
    })
}

/// Tells the page that the navigation its last step started became a download, so the
/// document is not being left.
pub async fn download_started(page: &Page) -> Result<bool, BrowserError> {
    call(page, "downloadStarted", &[]).await
}

/// Visible and hidden matches of a selector.
pub async fn query(page: &Page, realm: &Realm, parts: &[Part]) -> Result<Counts, BrowserError> {
    call_in(page, realm, "query", &[arg(&parts)]).await
}

/// Chooses an option of the target `<select>` by value or label.
pub async fn select(
    page: &Page,
    realm: &Realm,
    parts: &[Part],
    value: &str,
) -> Result<Located, BrowserError> {
    call_in(page, realm, "select", &[arg(&parts), arg(&value)]).await
}

/// `true`, `false`, `"mixed"`, or null when there is no visible match.
pub async fn is_checked(page: &Page, realm: &Realm, parts: &[Part]) -> Result<Value, BrowserError> {
    call_in(page, realm, "isChecked", &[arg(&parts)]).await
}

/// Makes the first visible match deaf to the page (its input events never reach the page's
/// listeners); whether there was one.
pub async fn mute(page: &Page, realm: &Realm, parts: &[Part]) -> Result<bool, BrowserError> {
    call_in(page, realm, "mute", &[arg(&parts)]).await
}

/// Whether keystrokes sent now land in the fill target of `parts` (`strict`: it has the focus;
/// else its document still has it).
pub async fn focus_on(
    page: &Page,
    realm: &Realm,
    parts: &[Part],
    strict: bool,
) -> Result<Focus, BrowserError> {
    call_in(page, realm, "focusOn", &[arg(&parts), arg(&strict)]).await
}

/// Sets `text` on the fill target of `parts` itself, when it is still the field `facts` says.
pub async fn set_value(
    page: &Page,
    realm: &Realm,
    parts: &[Part],
    text: &str,
    facts: &crate::FieldFacts,
) -> Result<SetValue, BrowserError> {
    call_in(
        page,
        realm,
        "setValue",
        &[arg(&parts), arg(&text), arg(facts)],
    )
    .await
}

/// Match counts and the nearest accessible names, for a selector that found nothing usable.
pub async fn diagnose(
    page: &Page,
    realm: &Realm,
    parts: &[Part],
) -> Result<Diagnosis, BrowserError> {
    call_in(page, realm, "diagnose", &[arg(&parts)]).await
}

/// What a target that is gone may have become, by the healing rules (`runner::heal`).
pub async fn heal(page: &Page, parts: &[Part]) -> Result<HealCandidates, BrowserError> {
    call(page, "heal", &[arg(&parts)]).await
}

/// Observes the postconditions of `spec` once.
pub async fn check(page: &Page, realm: &Realm, spec: &CheckSpec) -> Result<Observed, BrowserError> {
    call_in(page, realm, "check", &[arg(spec)]).await
}

/// The frame held by the first visible match of `parts` (which end with a `frame=` step), when
/// there is one.
pub async fn frame_owner(
    page: &Page,
    realm: &Realm,
    parts: &[Part],
) -> Result<Option<String>, BrowserError> {
    // Installed first: the element comes back as a handle, not as JSON.
    let _: bool = call_in(page, realm, "installed", &[]).await?;
    let expression = format!("window.__windup.frameOwner({})", arg(&parts));
    match eval_handle(page, realm, &expression).await?.object_id {
        Some(handle) => frame_of(page, realm, handle).await,
        None => Ok(None),
    }
}

/// The ARIA snapshot of the page, cut to `max_chars`.
pub async fn snapshot(page: &Page, max_chars: usize) -> Result<String, BrowserError> {
    call(page, "snapshot", &[arg(&max_chars)]).await
}

/// The page's visible controls and texts, with selectors, contexts and role counts.
pub async fn observe(
    page: &Page,
    realm: &Realm,
    options: &ObserveOptions<'_>,
) -> Result<Seen, BrowserError> {
    call_in(page, realm, "observe", &[arg(options)]).await
}

/// The page's visible interactive elements as `tag|role|type` tokens.
pub async fn signature(page: &Page) -> Result<Vec<String>, BrowserError> {
    call(page, "signature", &[]).await
}

/// What the site map keeps of a page: its signature's tokens, up to `limit` controls as
/// (role, accessible name), and its title.
#[derive(Debug, Deserialize)]
pub struct Inventory {
    /// The tokens of the page's signature.
    pub tokens: Vec<String>,
    /// Its controls as (role, accessible name).
    pub controls: Vec<(String, String)>,
    /// The document's title.
    pub title: String,
}

/// The page's inventory, in one walk of its visible interactive elements.
pub async fn inventory(page: &Page, limit: usize) -> Result<Inventory, BrowserError> {
    call(page, "inventory", &[arg(&limit)]).await
}

/// The page's own errors since it loaded.
pub async fn failures(page: &Page) -> Result<PageFailures, BrowserError> {
    call(page, "failures", &[]).await
}

/// An id of the current document, the same while it lives: which document a field was typed in.
pub async fn document_id(page: &Page) -> Result<String, BrowserError> {
    call(page, "documentId", &[]).await
}

/// The text a page shows, in document order, for finding credentials in it on our side (the
/// page is never given one). No `Debug`: the text may hold a credential.
#[derive(Deserialize)]
pub struct TextRuns {
    /// The runs, in document order.
    pub runs: Vec<TextRun>,
    /// False when the page showed more than was asked for and the runs stop short.
    pub complete: bool,
}

/// One text node's text, or one field's shown value, placeholder or option.
#[derive(Deserialize)]
pub struct TextRun {
    /// The text.
    pub text: String,
    /// A field's: a run of its own, not joined to the text around it.
    #[serde(default)]
    pub field: bool,
}

/// The text the page shows (never a password field's value), up to `max_chars`; the page keeps
/// the runs' nodes for [`mask`] until [`unmask`].
pub async fn text_runs(
    page: &Page,
    realm: &Realm,
    max_chars: usize,
) -> Result<TextRuns, BrowserError> {
    call_in(page, realm, "textRuns", &[arg(&max_chars)]).await
}

/// What [`mask`] could not cover; when anything could not be, nothing stays drawn.
#[derive(Debug, Deserialize)]
pub struct Masked {
    /// The fields (by index) with no visible match.
    pub missing: Vec<usize>,
    /// Runs of [`text_runs`] whose node has left the document since.
    pub lost: u32,
    /// Boxes that did not end up on top of what they cover.
    pub uncovered: u32,
}

/// Covers, with opaque boxes in the top layer, the first visible match of each of `fields` and
/// the runs of the last [`text_runs`] listed in `runs`.
pub async fn mask(
    page: &Page,
    realm: &Realm,
    fields: &[Vec<Part>],
    runs: &[usize],
) -> Result<Masked, BrowserError> {
    call_in(page, realm, "mask", &[arg(&fields), arg(&runs)]).await
}

/// Removes the boxes of [`mask`] and forgets the runs of [`text_runs`].
pub async fn unmask(page: &Page, realm: &Realm) -> Result<bool, BrowserError> {
    call_in(page, realm, "unmask", &[]).await
}

/// Whether the document is being left: a navigation it started (a link, a form, a script) is
/// under way.
pub async fn is_leaving(page: &Page) -> Result<bool, BrowserError> {
    call(page, "isLeaving", &[]).await
}

/// Whether the current document has settled: unchanged for how long, busy regions, ready state.
pub async fn document_state(page: &Page) -> Result<DocumentState, BrowserError> {
    call(page, "settled", &[]).await
}

/// The current document's URL.
pub async fn url(page: &Page) -> Result<String, BrowserError> {
    call(page, "url", &[]).await
}

/// The HTTP status the current document came with, when it came over HTTP.
pub async fn navigation_status(page: &Page) -> Result<Option<u64>, BrowserError> {
    call(page, "navigationStatus", &[]).await
}

/// The current document's origin and localStorage.
pub async fn local_storage(page: &Page) -> Result<LocalStorage, BrowserError> {
    call(page, "localStorage", &[]).await
}

/// Writes `entries` into the localStorage of `origin` in the session's documents: in every new
/// document on that origin, before the page's own scripts, once per tab (the page may change or
/// clear them afterwards). Runs as a script for new documents, after the engine's own, until
/// the session ends.
pub async fn restore_local_storage(
    page: &Page,
    origin: &str,
    entries: &[(String, String)],
) -> Result<(), BrowserError> {
    let source = format!(
        "window.__windup && window.__windup.restoreLocalStorage({}, {})",
        arg(&origin),
        arg(&entries)
    );
    page.install_init_script(&source).await
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use super::{INJECTED_JS, MODULES};

    fn folder() -> &'static Path {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/injected"))
    }

    #[test]
    fn every_file_of_the_in_page_engine_is_a_listed_module_once() {
        let listed: BTreeSet<&str> = MODULES.iter().copied().collect();
        assert_eq!(listed.len(), MODULES.len(), "a module listed twice");
        let files: BTreeSet<String> = std::fs::read_dir(folder())
            .expect("injected/")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        let files: BTreeSet<&str> = files.iter().map(String::as_str).collect();
        assert_eq!(
            files, listed,
            "injected/ must hold exactly the modules src/injected.rs lists"
        );
        assert_eq!(MODULES.first(), Some(&"prelude.js"));
        assert_eq!(MODULES.last(), Some(&"epilogue.js"));
    }

    #[test]
    fn the_script_is_its_modules_in_order_each_headed_by_its_concern() {
        let mut assembled = String::new();
        for module in MODULES {
            let text = std::fs::read_to_string(folder().join(module)).expect("module");
            // Concatenated as is: a module not ending its last line would join the next one's.
            assert!(text.ends_with('\n'), "{module} does not end with a newline");
            let head = text.lines().next().unwrap_or_default();
            assert!(
                head.starts_with(&format!("// {module}: "))
                    || head.contains(&format!(" {module}, ")),
                "{module} does not start with a comment naming it and its concern: {head:?}"
            );
            assembled.push_str(&text);
        }
        assert_eq!(INJECTED_JS, assembled);
        assert!(INJECTED_JS.contains("if (!window.__windup) {"));
        assert!(INJECTED_JS.trim_end().ends_with("})();\n}"));
    }
}
