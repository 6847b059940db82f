//! Who a GitHub sign-in is, and the team mappings. A GitHub account signs in as the person
//! linked to it; else as the account whose email GitHub has verified for it (which it then
//! links); else, when a project invited one of its verified emails or a team mapping gives it a
//! role, as a new account without a local password. Anyone else is refused: there is no open
//! sign-up. At every GitHub sign-in the roles team mappings grant are brought up to date:
//! given while the person is an active member of the team, taken back once they are not. A
//! role a person (an owner, the CLI) granted is never touched by a team.

use std::collections::BTreeMap;

use axum::http::StatusCode;

use super::people::{create_person, normal_email};
use crate::access::Role;
use crate::error::ApiError;
use crate::oauth::{GithubIdentity, valid_github_name};
use crate::store::{Project, Store, StoreError, TeamRoleRow};
use crate::time::now_ms;

/// A team mapping and whether the person signing in is an active member of its team (`None`
/// when GitHub could not say: the mapping's roles are then left as they are).
#[derive(Debug, Clone)]
pub struct TeamCheck {
    pub mapping: TeamRoleRow,
    pub member: Option<bool>,
}

fn refused(message: &str) -> ApiError {
    ApiError::new(StatusCode::FORBIDDEN, "github_not_linked", message)
}

/// The person a GitHub sign-in is (see the module's doc), with their team roles updated.
pub async fn github_person(
    store: &dyn Store,
    identity: &GithubIdentity,
    teams: &[TeamCheck],
) -> Result<i64, ApiError> {
    let now = now_ms();
    let emails: Vec<String> = identity
        .verified_emails
        .iter()
        .filter_map(|e| normal_email(e).ok())
        .collect();
    let mut person = store.user_by_github(identity.id).await?.map(|u| u.id);
    if person.is_none() {
        for email in &emails {
            let Some(user) = store.user(email).await? else {
                continue;
            };
            if user.github_id.is_some() {
                // Linked to another GitHub account: an email does not move an account.
                continue;
            }
            store
                .link_github(user.id, identity.id, &identity.login)
                .await?;
            store.claim_invitations(user.id, email, now).await?;
            person = Some(user.id);
            break;
        }
    }
    if person.is_none() {
        let mut invited = None;
        for email in &emails {
            if store.invited(email).await? {
                invited = Some(email);
                break;
            }
        }
        let team_grants = teams.iter().any(|t| t.member == Some(true));
        let email = invited.or(emails.first().filter(|_| team_grants));
        let Some(email) = email else {
            return Err(refused(if emails.is_empty() {
                "Your GitHub account has no verified email: verify one on GitHub, then ask an owner to invite it."
            } else {
                "No account here goes with your GitHub account: ask an owner of a project to invite one of your verified GitHub emails."
            }));
        };
        let id = create_person(store, email, None, false)
            .await
            .map_err(|e| match e.status {
                StatusCode::CONFLICT => refused(
                    "The account with your verified email is linked to another GitHub account.",
                ),
                _ => e,
            })?;
        store.link_github(id, identity.id, &identity.login).await?;
        person = Some(id);
    }
    let person = person.expect("found or made above");
    sync_team_roles(store, person, teams, now).await?;
    Ok(person)
}

/// Per project, the highest role the person's teams grant, replacing the role an earlier team
/// granted; none left takes that role back.
async fn sync_team_roles(
    store: &dyn Store,
    person: i64,
    teams: &[TeamCheck],
    now: i64,
) -> Result<(), StoreError> {
    let mut best: BTreeMap<i64, Option<(Role, String)>> = BTreeMap::new();
    let mut unknown: Vec<i64> = Vec::new();
    for check in teams {
        let slot = best.entry(check.mapping.project_id).or_default();
        match (check.member, Role::parse(&check.mapping.role)) {
            (None, _) => unknown.push(check.mapping.project_id),
            (Some(true), Some(role)) if slot.as_ref().is_none_or(|(r, _)| role > *r) => {
                *slot = Some((role, check.mapping.name()));
            }
            _ => {}
        }
    }
    for (project_id, grant) in best {
        let current = store.membership(project_id, person).await?;
        let team_granted = matches!(current, Some((_, Some(_))));
        match grant {
            Some((role, team)) if current.is_none() || team_granted => {
                store
                    .set_team_membership(project_id, person, role.as_str(), &team, now)
                    .await?;
            }
            None if team_granted && !unknown.contains(&project_id) => {
                if let Some((_, Some(team))) = current {
                    store
                        .remove_team_membership(project_id, person, &team)
                        .await?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// `org/team` as a mapping stores it (lower case), or why it is not one.
fn parse_team(org_team: &str) -> Result<(String, String), ApiError> {
    let lower = org_team.trim().to_lowercase();
    match lower.split_once('/') {
        Some((org, team)) if valid_github_name(org) && valid_github_name(team) => {
            Ok((org.to_string(), team.to_string()))
        }
        _ => Err(ApiError::unprocessable(
            "invalid_team",
            format!(
                "`{org_team}` is not ORG/TEAM: a GitHub organisation and a team's slug, e.g. acme-inc/qa"
            ),
        )),
    }
}

/// Members of the GitHub team `org/team` get `role` in `project` at their next GitHub sign-in.
pub async fn map_team(
    store: &dyn Store,
    project: &Project,
    org_team: &str,
    role: Role,
) -> Result<TeamRoleRow, ApiError> {
    let (org, team) = parse_team(org_team)?;
    let mapping = TeamRoleRow {
        project_id: project.id,
        org,
        team,
        role: role.as_str().to_string(),
    };
    store.set_team_role(&mapping, now_ms()).await?;
    Ok(mapping)
}

/// Removes a team mapping, and the roles it granted at once.
pub async fn unmap_team(
    store: &dyn Store,
    project: &Project,
    org_team: &str,
) -> Result<(), ApiError> {
    let (org, team) = parse_team(org_team)?;
    if store.remove_team_role(project.id, &org, &team).await? {
        Ok(())
    } else {
        Err(ApiError::not_found(
            "no_team_mapping",
            format!("`{}` maps no team `{org}/{team}`", project.slug),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn team_mappings_name_an_org_and_a_team() {
        assert_eq!(
            parse_team(" Acme-Inc/QA ").unwrap(),
            ("acme-inc".to_string(), "qa".to_string())
        );
        for bad in ["acme", "acme/", "/qa", "acme/qa/x", "acme/../x", "a b/qa"] {
            assert!(parse_team(bad).is_err(), "{bad}");
        }
    }
}
