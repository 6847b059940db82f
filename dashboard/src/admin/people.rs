//! People who sign in to the pages, and their roles: accounts (a local password, or none for
//! an account made by a GitHub sign-in), instance administrators, each project's members, and
//! invitations that wait for an account of their email.

use crate::access::Role;
use crate::error::ApiError;
use crate::store::{InvitationRow, MemberRow, Project, Store};
use crate::time::now_ms;

/// An email as accounts and invitations store it: trimmed, lower case.
pub fn normal_email(email: &str) -> Result<String, ApiError> {
    let email = email.trim().to_lowercase();
    let valid = email.len() <= 254
        && email
            .split_once('@')
            .is_some_and(|(user, host)| !user.is_empty() && !host.is_empty())
        && !email.chars().any(|c| c.is_whitespace() || c.is_control());
    if valid {
        Ok(email)
    } else {
        Err(ApiError::unprocessable(
            "invalid_email",
            "give an email address",
        ))
    }
}

/// A person who signs in with a password; not an instance administrator.
pub async fn create_user(store: &dyn Store, email: &str, password: &str) -> Result<(), ApiError> {
    create_person(store, email, Some(password), false).await?;
    Ok(())
}

/// Makes an account: with a local password (at least 12 characters) or, for a GitHub sign-in,
/// none. Invitations waiting for its email become its roles. Its id.
pub async fn create_person(
    store: &dyn Store,
    email: &str,
    password: Option<&str>,
    instance_admin: bool,
) -> Result<i64, ApiError> {
    let email = normal_email(email)?;
    let hash = match password {
        Some(password) if password.chars().count() < 12 => {
            return Err(ApiError::unprocessable(
                "weak_password",
                "use a password of at least 12 characters",
            ));
        }
        Some(password) => crate::argon::hash(password).await.map_err(|e| {
            ApiError::unprocessable("invalid_password", format!("hashing failed: {e}"))
        })?,
        None => String::new(),
    };
    let now = now_ms();
    let id = store.create_user(&email, &hash, now).await?;
    if instance_admin {
        store.set_instance_admin(&email, true).await?;
    }
    store.claim_invitations(id, &email, now).await?;
    Ok(id)
}

/// Flags or unflags an instance administrator.
pub async fn set_instance_admin(
    store: &dyn Store,
    email: &str,
    admin: bool,
) -> Result<(), ApiError> {
    let email = normal_email(email)?;
    if store.set_instance_admin(&email, admin).await? {
        Ok(())
    } else {
        Err(no_account(&email))
    }
}

fn no_account(email: &str) -> ApiError {
    ApiError::not_found("no_user", format!("no account has the email `{email}`"))
}

/// What [`add_person`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// The account has the role now.
    Member,
    /// No account has the email yet: the role waits for it.
    Invited,
}

/// Gives `email` the role in `project`: at once when an account has that email, else as an
/// invitation. A project's last owner cannot be made a viewer.
pub async fn add_person(
    store: &dyn Store,
    project: &Project,
    email: &str,
    role: Role,
) -> Result<Added, ApiError> {
    let email = normal_email(email)?;
    let now = now_ms();
    let Some(user) = store.user(&email).await? else {
        store.invite(project.id, &email, role.as_str(), now).await?;
        return Ok(Added::Invited);
    };
    if role != Role::Owner {
        keep_an_owner(store, project, user.id).await?;
    }
    store
        .set_role(project.id, user.id, role.as_str(), now)
        .await?;
    Ok(Added::Member)
}

/// Takes `email`'s role in `project` (or its invitation) away. The last owner stays.
pub async fn remove_person(
    store: &dyn Store,
    project: &Project,
    email: &str,
) -> Result<(), ApiError> {
    let email = normal_email(email)?;
    if store.cancel_invitation(project.id, &email).await? {
        return Ok(());
    }
    let user = store
        .user(&email)
        .await?
        .ok_or_else(|| no_account(&email))?;
    keep_an_owner(store, project, user.id).await?;
    if store.remove_member(project.id, user.id).await? {
        Ok(())
    } else {
        Err(ApiError::not_found(
            "not_a_member",
            format!("`{email}` has no role in `{}`", project.slug),
        ))
    }
}

/// Refuses to take the owner role from `user_id` when they are the project's only owner.
async fn keep_an_owner(store: &dyn Store, project: &Project, user_id: i64) -> Result<(), ApiError> {
    let owners: Vec<i64> = store
        .members(project.id)
        .await?
        .into_iter()
        .filter(|m| m.role == Role::Owner.as_str())
        .map(|m| m.user_id)
        .collect();
    if owners == [user_id] {
        return Err(ApiError::unprocessable(
            "last_owner",
            format!(
                "this is the only owner of `{}`: make someone else an owner first",
                project.slug
            ),
        ));
    }
    Ok(())
}

/// A project's members and the invitations waiting for an account.
pub async fn people(
    store: &dyn Store,
    project: &Project,
) -> Result<(Vec<MemberRow>, Vec<InvitationRow>), ApiError> {
    Ok((
        store.members(project.id).await?,
        store.invitations(project.id).await?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_stored_trimmed_and_lower_case() {
        assert_eq!(
            normal_email(" Ada@Example.COM ").unwrap(),
            "ada@example.com"
        );
        for bad in [
            "",
            "ada",
            "@x",
            "ada@",
            "a b@x",
            "a\n@x",
            &format!("{}@x", "a".repeat(260)),
        ] {
            assert!(normal_email(bad).is_err(), "{bad:?}");
        }
    }
}
