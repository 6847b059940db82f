//! `windup scan` on fixture trees modelled on real open-source app layouts, each against its
//! exact expected route set: a route missing or one too many fails.

use std::path::{Path, PathBuf};

use windup_engine::scan::scan;
use windup_model::sitemap::{SiteMap, Source};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/scan")
        .join(name)
}

fn routes(name: &str) -> Vec<String> {
    let result = scan(&fixture(name), &[]).unwrap();
    assert!(result.warnings.is_empty(), "{:?}", result.warnings);
    // Every route a scan of these real layouts finds is one the site map's rule takes.
    for route in result.route_set() {
        assert_eq!(
            windup_model::sitemap::route_problem(&route),
            None,
            "{route}"
        );
    }
    result.route_set()
}

fn sorted(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// shadcn-ui/taxonomy's layout: route groups, catch-all and optional catch-all segments, API
/// routes, and `page.tsx` files under `_components/` and a private `_lib/` that are not routes.
#[test]
fn next_app_router_with_route_groups() {
    assert_eq!(
        routes("next-app-taxonomy"),
        sorted(&[
            "/",
            "/blog",
            "/blog/*slug",
            "/dashboard",
            "/dashboard/billing",
            "/dashboard/settings",
            "/docs/*slug?",
            "/editor/:postId",
            "/guides/*slug",
            "/login",
            "/pricing",
            "/register",
        ])
    );
}

/// vercel/commerce under `src/app`, with nextgram's parallel `@modal` slot and intercepting
/// `(.)`/`(..)` folders, which produce no URL of their own.
#[test]
fn next_app_router_under_src_with_slots_and_interception() {
    assert_eq!(
        routes("next-src-app"),
        sorted(&[
            "/",
            "/:page",
            "/cart",
            "/dashboard",
            "/photos/:id",
            "/product/:handle",
            "/search",
            "/search/:collection",
        ])
    );
}

/// The pages router (next.js examples, cal.com): `_app`, `_document`, `_error`, `404`, `500`,
/// `api/` and test files are not pages.
#[test]
fn next_pages_router() {
    assert_eq!(
        routes("next-pages"),
        sorted(&[
            "/",
            "/about",
            "/blog",
            "/blog/:slug",
            "/docs/*slug",
            "/settings/profile",
            "/shop/*slug?",
            "/team/:teamId/members",
        ])
    );
}

/// The react-router tutorial's data router with bulletproof-react's `lazy` routes: nested,
/// index and pathless layout routes, an action-only route that renders nothing, a splat.
#[test]
fn react_router_data_router() {
    assert_eq!(
        routes("rr-data-router"),
        sorted(&[
            "/",
            "/app",
            "/app/*splat",
            "/app/discussions",
            "/app/discussions/:discussionId",
            "/app/users",
            "/contacts/:contactId",
            "/contacts/:contactId/edit",
        ])
    );
}

/// realworld's `<Routes><Route>` JSX, with `React.lazy` components, nested and index routes and
/// a pathless layout route.
#[test]
fn react_router_jsx_routes() {
    assert_eq!(
        routes("rr-jsx-realworld"),
        sorted(&[
            "/",
            "/article/:id",
            "/editor",
            "/editor/:slug",
            "/login",
            "/profile/:username",
            "/profile/:username/favorites",
            "/register",
            "/settings",
            "/tags/:tag",
        ])
    );
}

/// A turborepo: `apps/web` composes route arrays from its own modules (a default export, a
/// spread imported below its use) and from the workspace package `@acme/settings`, re-exported
/// through its index.
#[test]
fn a_monorepo_with_routes_from_a_workspace_package() {
    assert_eq!(
        routes("monorepo-turbo"),
        sorted(&[
            "/",
            "/login",
            "/projects",
            "/projects/:projectId",
            "/projects/:projectId/issues/:issueId",
            "/settings",
            "/settings/billing",
            "/settings/members/:memberId",
            "/signup",
        ])
    );
}

#[test]
fn controls_and_links_per_route_component() {
    let result = scan(&fixture("next-app-taxonomy"), &[]).unwrap();
    let settings = result
        .routes
        .iter()
        .find(|r| r.route == "/dashboard/settings")
        .unwrap();
    let got: Vec<(String, String, Option<String>, Option<String>)> = settings
        .controls
        .iter()
        .map(|c| {
            (
                c.role.clone(),
                c.name.clone(),
                c.placeholder.clone(),
                c.testid.clone(),
            )
        })
        .collect();
    let own = |r: &str, n: &str| (r.to_string(), n.to_string(), None, None);
    assert_eq!(
        got,
        vec![
            own("form", "Your name"),
            (
                "textbox".into(),
                "Name".into(),
                Some("Your name".into()),
                None
            ),
            own("button", "Save"),
            own("link", "Billing"),
            (
                "generic".into(),
                String::new(),
                None,
                Some("danger-zone".into())
            ),
        ]
    );
    assert_eq!(
        settings.file.as_deref(),
        Some("app/(dashboard)/dashboard/settings/page.tsx")
    );
    // Into the site map: static pages, and an edge for the link.
    let mut map = SiteMap::new();
    result.apply_to(&mut map);
    assert_eq!(map.pages.len(), 12);
    assert!(
        map.pages
            .iter()
            .all(|p| p.source == Source::Static && p.scanned)
    );
    let edge = map
        .edges
        .iter()
        .find(|e| e.from == "/dashboard/settings")
        .unwrap();
    assert_eq!(edge.to, "/dashboard/billing");
    assert_eq!(edge.via, "click role=link[name=\"Billing\"]");
    // A design-system button and a workspace package's controls.
    let mono = scan(&fixture("monorepo-turbo"), &[]).unwrap();
    let billing = mono
        .routes
        .iter()
        .find(|r| r.route == "/settings/billing")
        .unwrap();
    assert!(
        billing
            .controls
            .iter()
            .any(|c| c.testid.as_deref() == Some("card-number")
                && c.placeholder.as_deref() == Some("Card number")),
        "{:?}",
        billing.controls
    );
}

#[test]
fn a_source_root_that_does_not_exist_is_an_error() {
    let err = scan(&fixture("next-pages"), &[PathBuf::from("apps/missing")]).unwrap_err();
    assert!(err.to_string().contains("does not exist"), "{err}");
}
