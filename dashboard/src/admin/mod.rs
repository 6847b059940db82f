//! Creating projects, tokens and people: shared by the CLI, the API and the pages.

mod github;
mod people;
mod projects;
mod tokens;

pub use github::{TeamCheck, github_person, map_team, unmap_team};
pub use people::{
    Added, add_person, create_person, create_user, normal_email, people, remove_person,
    set_instance_admin,
};
pub use projects::{create_project, create_project_owned_by, set_repo, valid_slug};
pub use tokens::{
    CreatedToken, TokenRequest, create_token, issue_token, parse_expires_in, revoke_token,
    token_table,
};
