//! API tokens: the list (what each may do, when it was made and last used, when it expires,
//! whether it was revoked), the form that creates one and shows it once, and revocation.

use askama::Template;
use askama_web::WebTemplate;
use axum::Form;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::http::header::CACHE_CONTROL;
use axum::response::IntoResponse;

use super::access::{Access, project_of};
use super::csrf::CsrfForm;
use super::error::PageResult;
use super::layout::Layout;
use super::session::Person;
use crate::AppState;
use crate::access::Role;
use crate::admin::{self, TokenRequest};
use crate::secret::Scope;
use crate::store::{TokenInfo, TokenState};
use crate::time::{display, now_ms};

struct TokenLine {
    id: i64,
    name: String,
    scopes: String,
    branch: String,
    created: String,
    last_used: String,
    expires: String,
    state: &'static str,
    active: bool,
}

impl TokenLine {
    fn of(t: TokenInfo, now_ms: i64) -> TokenLine {
        let state = t.state(now_ms);
        TokenLine {
            id: t.id,
            name: t.name,
            scopes: t.scopes,
            branch: t.branch_glob.unwrap_or_else(|| "any".into()),
            created: display(t.created_ms),
            last_used: t.last_used_ms.map_or_else(|| "never".into(), display),
            expires: t.expires_ms.map_or_else(|| "never".into(), display),
            state: state.as_str(),
            active: state == TokenState::Active,
        }
    }
}

#[derive(Template, WebTemplate)]
#[template(path = "tokens.html")]
struct TokensPage {
    layout: Layout,
    slug: String,
    tab: &'static str,
    scopes: Vec<&'static str>,
    tokens: Vec<TokenLine>,
    created: String,
    created_scopes: String,
    notice: String,
    error: String,
}

impl TokensPage {
    async fn of(state: &AppState, access: Access) -> Result<Self, super::PageError> {
        let Access {
            project, layout, ..
        } = access;
        let now = now_ms();
        let tokens = state.store.tokens(project.id).await?;
        Ok(TokensPage {
            layout,
            slug: project.slug.clone(),
            tab: "tokens",
            scopes: Scope::ALL.iter().map(|s| s.as_str()).collect(),
            tokens: tokens.into_iter().map(|t| TokenLine::of(t, now)).collect(),
            created: String::new(),
            created_scopes: String::new(),
            notice: String::new(),
            error: String::new(),
        })
    }
}

pub(super) async fn tokens_page(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
) -> PageResult {
    let access = project_of(&state, &person, &slug, Role::Owner).await?;
    Ok(TokensPage::of(&state, access).await?.into_response())
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
    let access = project_of(&state, &person, &slug, Role::Owner).await?;
    let request = TokenRequest {
        name: field("name"),
        scopes: pairs
            .iter()
            .filter(|(k, _)| k == "scope")
            .map(|(_, v)| v.clone())
            .collect(),
        branch: Some(field("branch")),
        expires_in: Some(field("expires_in")),
    };
    match admin::issue_token(&*state.store, &access.project, &request).await {
        Ok(t) => {
            let mut page = TokensPage::of(&state, access).await?;
            page.created_scopes = t.scopes.join(" ");
            page.created = t.token;
            Ok(([(CACHE_CONTROL, "no-store")], page).into_response())
        }
        Err(e) => {
            let mut page = TokensPage::of(&state, access).await?;
            page.error = e.message;
            Ok((e.status, page).into_response())
        }
    }
}

pub(super) async fn revoke_token(
    State(state): State<AppState>,
    person: Person,
    Path((slug, id)): Path<(String, i64)>,
    Form(form): Form<CsrfForm>,
) -> PageResult {
    person.check_csrf(&form.csrf)?;
    let access = project_of(&state, &person, &slug, Role::Owner).await?;
    let (status, notice, error) =
        match admin::revoke_token(&*state.store, &access.project, id).await {
            Ok(t) => {
                let name = if t.name.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", t.name)
                };
                (
                    StatusCode::OK,
                    format!("Token {id}{name} revoked."),
                    String::new(),
                )
            }
            Err(e) => (e.status, String::new(), e.message),
        };
    let mut page = TokensPage::of(&state, access).await?;
    page.notice = notice;
    page.error = error;
    Ok((status, page).into_response())
}
