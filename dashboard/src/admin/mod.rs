//! Creating projects, tokens and people: shared by the CLI, the API and the pages.

mod people;
mod projects;
mod tokens;

pub use people::create_user;
pub use projects::{create_project, valid_slug};
pub use tokens::{
    CreatedToken, TokenRequest, create_token, issue_token, parse_expires_in, revoke_token,
    token_table,
};
