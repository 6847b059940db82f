//! Where a fragment may be used: on a page whose path its `start` route pattern matches (one
//! without `start`, written before fragments had one, anywhere). The planner's catalogue lists
//! only those, each with its start page and what it proves, and an answer's `use` is held to
//! the same rule.

use windup_model::sitemap::route_matches;
use windup_model::{Action, ActionType, Expect, Fragment};

use super::Fragments;

/// The path of a page's URL (no query, no fragment): what a `start` route is matched against.
/// A path given as it is (`/login.html?next=1`) works too.
pub fn page_path(url: &str) -> String {
    let path = match url::Url::parse(url) {
        Ok(u) => u.path().to_string(),
        Err(_) => url.split(['?', '#']).next().unwrap_or_default().to_string(),
    };
    if path.is_empty() { "/".into() } else { path }
}

/// What a postcondition proves, in one line: `visible: text="Projects"; url: /projects.html`.
pub fn proves(e: &Expect) -> String {
    let mut parts = Vec::new();
    if let Some(s) = &e.visible {
        parts.push(format!("visible: {s}"));
    }
    if let Some(s) = &e.hidden {
        parts.push(format!("hidden: {s}"));
    }
    if let Some(u) = &e.url {
        parts.push(format!("url: {u}"));
    }
    if let Some(v) = &e.value {
        parts.push(format!("value of {} is {:?}", v.selector, v.equals));
    }
    if let Some(c) = &e.count {
        parts.push(format!("{} of {}", c.equals, c.selector));
    }
    parts.join("; ")
}

/// A fragment as the planner's catalogue lists it:
/// `sign-in (starts on /login.html; proves visible: text="Projects"): Sign in as the admin`.
pub fn catalogue_line(f: &Fragment) -> String {
    let mut about = Vec::new();
    if let Some(s) = &f.start {
        about.push(format!("starts on {s}"));
    }
    if let Some(e) = f.expect.as_ref().filter(|e| !e.is_empty()) {
        about.push(format!("proves {}", proves(e)));
    }
    let description = f.description.trim();
    if about.is_empty() {
        format!("{}: {description}", f.id)
    } else {
        format!("{} ({}): {description}", f.id, about.join("; "))
    }
}

/// Whether `f` may be used on the page at `path`.
fn starts_on(f: &Fragment, path: &str) -> bool {
    f.start
        .as_deref()
        .is_none_or(|pattern| route_matches(pattern, path))
}

impl Fragments {
    /// The ids of the fragments that may be used on the page at `path`, sorted.
    pub fn usable_on(&self, path: &str) -> Vec<String> {
        self.by_id
            .values()
            .filter(|f| starts_on(f, path))
            .map(|f| f.id.clone())
            .collect()
    }

    /// The catalogue lines of the fragments that may be used on the page at `path`.
    pub fn catalogue(&self, path: &str) -> Vec<String> {
        self.by_id
            .values()
            .filter(|f| starts_on(f, path))
            .map(catalogue_line)
            .collect()
    }

    /// A copy with `fragment` added (or replacing the one of its id): how a fragment not yet
    /// written is run.
    pub fn with(&self, fragment: Fragment) -> Fragments {
        let mut by_id = self.by_id.clone();
        by_id.insert(fragment.id.clone(), fragment);
        Fragments { by_id }
    }

    /// The `use` steps among `actions` (planned on the page at `path`) whose fragment starts
    /// elsewhere, as problems the model can act on. A `goto` earlier in the same steps moves
    /// the page; any other step is taken to stay on it, as the planner is told to plan only
    /// the steps whose targets it sees and to stop where a new page begins.
    pub fn start_problems(&self, actions: &[Action], path: &str) -> Vec<String> {
        let mut here = path.to_string();
        let mut out = Vec::new();
        for (i, a) in actions.iter().enumerate() {
            match a.kind {
                ActionType::Goto => {
                    if let Some(u) = &a.url {
                        here = page_path(u);
                    }
                }
                ActionType::Use => {
                    let Some(f) = a.use_fragment.as_deref().and_then(|id| self.by_id.get(id))
                    else {
                        continue;
                    };
                    if !starts_on(f, &here) {
                        let start = f.start.as_deref().unwrap_or("/");
                        out.push(format!(
                            "actions[{i}].use: fragment `{}` starts on {start}, but this step would run on {here} (fix: use it only on a page matching {start}: reach that page first with \"complete\": false, or plan the steps yourself)",
                            f.id
                        ));
                    }
                }
                _ => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fragment(id: &str, start: Option<&str>) -> Fragment {
        serde_json::from_value(serde_json::json!({
            "fragment_version": "0.1", "id": id, "description": "Sign in as the admin",
            "start": start,
            "actions": [{"id": "a1", "type": "click", "target": {"selector": "text=\"Go\""}}],
            "expect": {"visible": "text=\"Projects\"", "url": "/projects.html"}
        }))
        .unwrap()
    }

    fn use_step(id: &str) -> Action {
        serde_json::from_value(serde_json::json!({"id": "a1", "type": "use", "use": id})).unwrap()
    }

    #[test]
    fn the_catalogue_shows_a_fragment_only_where_it_starts() {
        let all = Fragments::default()
            .with(fragment("sign-in", Some("/login.html")))
            .with(fragment("open", Some("/projects/:id")))
            .with(fragment("old", None));
        assert_eq!(all.usable_on("/login.html"), ["old", "sign-in"]);
        assert_eq!(
            all.usable_on(&page_path("http://h/projects/7?x=1")),
            ["old", "open"]
        );
        assert_eq!(
            all.catalogue("/login.html")[1],
            "sign-in (starts on /login.html; proves visible: text=\"Projects\"; url: /projects.html): Sign in as the admin"
        );
        assert_eq!(
            all.catalogue("/")[0],
            "old (proves visible: text=\"Projects\"; url: /projects.html): Sign in as the admin"
        );
    }

    #[test]
    fn a_use_off_its_start_is_a_problem_unless_a_goto_leads_there() {
        let all = Fragments::default().with(fragment("sign-in", Some("/login.html")));
        let problems = all.start_problems(&[use_step("sign-in")], "/");
        assert!(
            problems[0].contains("starts on /login.html, but this step would run on /"),
            "{problems:?}"
        );
        assert!(
            all.start_problems(&[use_step("sign-in")], "/login.html")
                .is_empty()
        );
        let goto: Action = serde_json::from_value(
            serde_json::json!({"id": "a0", "type": "goto", "url": "/login.html"}),
        )
        .unwrap();
        assert!(
            all.start_problems(&[goto, use_step("sign-in")], "/")
                .is_empty()
        );
        assert_eq!(page_path("/"), "/");
    }
}
