//! The plan trust boundary. A plan is untrusted data wherever it comes from (a model, the
//! committed cache, the dashboard, a file, a fragment): whichever road it comes in by, it is
//! checked here before it runs, and the browser holds every top-level navigation to the same
//! origins while it runs. A plan may go only to `http(s)` URLs on the app's origins, and name
//! only credentials the manifest declares, typed only on their own origins.

use std::collections::BTreeMap;

use url::{Origin, Url};
use windup_model::{Action, ActionType, InputError, Plan};

use crate::base_url::rebase;
use crate::secrets::{CredentialKind, FieldFacts, Manifest, Misfit, credential_fits};

/// Where plans may go and what they may type, for one project (or one replayed plan).
#[derive(Debug, Clone)]
pub struct Boundary {
    base_url: Url,
    /// The app's origins: the base URL's, `[planner] allowed_origins`, and the sign-on origins
    /// the manifest's accounts list. The base URL's comes first.
    app: Vec<Origin>,
    /// Each declared credential's ENV name, with the origins it may be typed on: the base URL's,
    /// then those its account lists.
    credentials: BTreeMap<String, Vec<Origin>>,
    /// Each declared credential's kind, which says what fields it may be typed into.
    kinds: BTreeMap<String, CredentialKind>,
}

impl Boundary {
    /// The project's boundary.
    pub fn new(base_url: &Url, allowed_origins: &[Origin], manifest: &Manifest) -> Boundary {
        let base = base_url.origin();
        let declared = manifest.credential_origins();
        let mut app = vec![base.clone()];
        for o in allowed_origins.iter().chain(declared.values().flatten()) {
            if !app.contains(o) {
                app.push(o.clone());
            }
        }
        let kinds = declared
            .keys()
            .filter_map(|name| Some((name.clone(), manifest.credential_kind(name)?)))
            .collect();
        let credentials = declared
            .into_iter()
            .map(|(name, mut origins)| {
                origins.retain(|o| *o != base);
                origins.insert(0, base.clone());
                (name, origins)
            })
            .collect();
        Boundary {
            base_url: base_url.clone(),
            app,
            credentials,
            kinds,
        }
    }

    /// The base URL's origin only, and no credentials.
    pub fn base_only(base_url: &Url) -> Boundary {
        Boundary::new(base_url, &[], &Manifest::default())
    }

    /// What a plan's paths are joined onto.
    pub fn base_url(&self) -> &Url {
        &self.base_url
    }

    /// The origins a top-level document may have, the base URL's first.
    pub fn app_origins(&self) -> &[Origin] {
        &self.app
    }

    /// Whether `url` is an `http(s)` URL on one of the app's origins.
    pub fn is_app(&self, url: &Url) -> bool {
        matches!(url.scheme(), "http" | "https") && self.app.contains(&url.origin())
    }

    /// The ENV names a `value_ref` may use, sorted.
    pub fn credential_names(&self) -> impl Iterator<Item = &str> {
        self.credentials.keys().map(String::as_str)
    }

    /// Whether the credential `name` may be typed into a document of `origin`.
    pub fn may_type(&self, name: &str, origin: &Origin) -> bool {
        self.credentials
            .get(name)
            .is_some_and(|origins| origins.contains(origin))
    }

    /// Whether the credential `name` may be typed into the field `field` (`secrets::fit`): a
    /// secret only into a password or one-time-code field, an identifier only into a one-line
    /// text, email or telephone input; else why not.
    pub fn fits_field(&self, name: &str, field: &FieldFacts) -> Result<(), Misfit> {
        match self.kinds.get(name) {
            Some(kind) => credential_fits(name, *kind, field),
            None => Err(Misfit::Undeclared(name.to_string())),
        }
    }

    /// The URL a `goto` (or a start URL) leads to, or the problem and its fix.
    pub fn destination(&self, raw: &str) -> Result<Url, (String, String)> {
        let url = rebase(&self.base_url, raw).map_err(|e| {
            (
                e.to_string(),
                "use a path on the app such as \"/\"".to_string(),
            )
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err((
                format!("`{}` is not an http(s) URL", clip(raw)),
                "use a path on the app such as \"/\"".into(),
            ));
        }
        if !self.app.contains(&url.origin()) {
            return Err((
                format!(
                    "`{}` leaves the application's origin {}",
                    clip(raw),
                    self.base_url.origin().ascii_serialization()
                ),
                "use a path on the app; other origins must be listed in windup.toml [planner] allowed_origins (or, for a sign-on page, in the account's `origins` in e2e/manifest.yaml)".into(),
            ));
        }
        Ok(url)
    }

    /// Problems with one step: where it goes and which credential it names. `field` is the
    /// step's path in `file` (`actions[3]`).
    pub fn step_problems(&self, file: &str, field: &str, a: &Action) -> Vec<InputError> {
        let mut out = Vec::new();
        if a.kind == ActionType::Goto
            && let Some(u) = &a.url
            && let Err((problem, fix)) = self.destination(u)
        {
            out.push(InputError::new(file, format!("{field}.url"), problem, fix));
        }
        if let Some(r) = &a.value_ref
            && !self.credentials.contains_key(r)
        {
            let known: Vec<&str> = self.credential_names().collect();
            out.push(InputError::new(
                file,
                format!("{field}.value_ref"),
                format!(
                    "`{}` is not a credential of this project",
                    clip(r)
                ),
                if known.is_empty() {
                    "declare it in e2e/manifest.yaml under an account, or type literal text with `value`".to_string()
                } else {
                    format!("use one of: {} (or declare it in e2e/manifest.yaml)", known.join(", "))
                },
            ));
        }
        out
    }

    /// Problems with a whole plan (its start URL and every step), named in `file`.
    pub fn plan_problems(&self, file: &str, prefix: &str, plan: &Plan) -> Vec<InputError> {
        let mut out = Vec::new();
        if let Err((problem, fix)) = self.destination(&plan.start_url) {
            out.push(InputError::new(
                file,
                format!("{prefix}start_url"),
                problem,
                fix,
            ));
        }
        out.extend(self.actions_problems(file, prefix, &plan.actions));
        out
    }

    /// Problems with a list of steps (a plan's or a fragment's).
    pub fn actions_problems(
        &self,
        file: &str,
        prefix: &str,
        actions: &[Action],
    ) -> Vec<InputError> {
        actions
            .iter()
            .enumerate()
            .flat_map(|(i, a)| self.step_problems(file, &format!("{prefix}actions[{i}]"), a))
            .collect()
    }
}

/// A quoted value kept short: a hostile plan's 1 MiB URL is not echoed whole.
fn clip(s: &str) -> String {
    const MAX: usize = 120;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(MAX).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> Boundary {
        let manifest: Manifest = serde_norway::from_str(
            "accounts:\n  admin:\n    password: ADMIN_PASSWORD\n    origins: [\"http://sso.test:9\"]\n",
        )
        .unwrap();
        let allowed = [Url::parse("http://cdn.test").unwrap().origin()];
        Boundary::new(
            &Url::parse("http://app.test:8/base/").unwrap(),
            &allowed,
            &manifest,
        )
    }

    #[test]
    fn gotos_stay_on_the_apps_http_origins() {
        let b = project();
        for ok in [
            "/x",
            "x?y#z",
            "http://app.test:8/",
            "http://cdn.test/a",
            "http://sso.test:9/login",
        ] {
            assert!(b.destination(ok).is_ok(), "{ok}");
        }
        for bad in [
            "javascript:alert(1)",
            "file:///etc/hostname",
            "data:text/html,<b>x</b>",
            "http://app.test:9/",
            "https://app.test:8/",
            "http://evil.test/",
            "//evil.test/x",
            "blob:http://app.test:8/1",
        ] {
            let (problem, fix) = b.destination(bad).unwrap_err();
            assert!(!problem.is_empty() && !fix.is_empty(), "{bad}");
        }
    }

    #[test]
    fn credentials_are_declared_and_typed_only_on_their_origins() {
        let b = project();
        assert_eq!(b.credential_names().collect::<Vec<_>>(), ["ADMIN_PASSWORD"]);
        let o = |u: &str| Url::parse(u).unwrap().origin();
        assert!(b.may_type("ADMIN_PASSWORD", &o("http://app.test:8/")));
        assert!(b.may_type("ADMIN_PASSWORD", &o("http://sso.test:9/")));
        // An allowed origin is not a credential origin.
        assert!(!b.may_type("ADMIN_PASSWORD", &o("http://cdn.test/")));
        assert!(!b.may_type("CI_DEPLOY_KEY", &o("http://app.test:8/")));
    }

    #[test]
    fn a_plan_is_named_field_by_field() {
        let plan: Plan = serde_json::from_value(serde_json::json!({
            "plan_version": "0.1", "scenario_id": "s", "task": "t", "start_url": "http://evil.test/",
            "generated_by": "x", "actions": [
                {"id": "a1", "type": "goto", "url": "file:///etc/hostname"},
                {"id": "a2", "type": "fill", "target": {"selector": "label=\"Key\""}, "value_ref": "CI_DEPLOY_KEY"}
            ]
        }))
        .unwrap();
        let fields: Vec<String> = project()
            .plan_problems("p.json", "plan.", &plan)
            .into_iter()
            .map(|e| e.field)
            .collect();
        assert_eq!(
            fields,
            [
                "plan.start_url",
                "plan.actions[0].url",
                "plan.actions[1].value_ref"
            ]
        );
    }
}
