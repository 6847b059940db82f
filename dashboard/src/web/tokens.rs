//! API tokens: the form that creates one, which shows the token once.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::{Path, State};
use axum::http::header::CACHE_CONTROL;
use axum::response::IntoResponse;

use super::error::PageResult;
use super::layout::Layout;
use super::project::project_of;
use super::session::Person;
use crate::secret::Scope;
use crate::{AppState, admin};

#[derive(Template, WebTemplate)]
#[template(path = "tokens.html")]
struct TokensPage {
    layout: Layout,
    slug: String,
    tab: &'static str,
    scopes: Vec<&'static str>,
    created: String,
    created_scopes: String,
    error: String,
}

pub(super) async fn tokens_page(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
) -> PageResult {
    project_of(&state, &slug).await?;
    Ok(TokensPage {
        layout: person.layout(),
        slug,
        tab: "tokens",
        scopes: Scope::ALL.iter().map(|s| s.as_str()).collect(),
        created: String::new(),
        created_scopes: String::new(),
        error: String::new(),
    }
    .into_response())
}

pub(super) async fn create_token(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
    body: axum::body::Bytes,
) -> PageResult {
    // Repeated `scope` fields: parsed by hand, as `Form` keeps only one value per name.
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(&body).into_owned().collect();
    let field = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    person.check_csrf(&field("csrf"))?;
    let project = project_of(&state, &slug).await?;
    let scopes: Vec<String> = pairs
        .iter()
        .filter(|(k, _)| k == "scope")
        .map(|(_, v)| v.clone())
        .collect();
    let branch = field("branch");
    let mut page = TokensPage {
        layout: person.layout(),
        slug,
        tab: "tokens",
        scopes: Scope::ALL.iter().map(|s| s.as_str()).collect(),
        created: String::new(),
        created_scopes: String::new(),
        error: String::new(),
    };
    match admin::create_token(&*state.store, &project, &scopes, Some(branch.trim())).await {
        Ok(t) => {
            page.created_scopes = t.scopes.join(" ");
            page.created = t.token;
            Ok(([(CACHE_CONTROL, "no-store")], page).into_response())
        }
        Err(e) => {
            page.error = e.message;
            Ok((e.status, page).into_response())
        }
    }
}
