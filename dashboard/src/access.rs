//! Who may do what. People hold a role per project: an `owner` manages the project (its
//! settings, tokens and people), a `viewer` reads its pages. Instance administrators create
//! projects and are owners of every project. Tokens are machines': they belong to one project,
//! and their scopes (`secret::Scope`) reach no further than it; no token creates projects.

/// A person's role in one project. `Owner` may do all a `Viewer` may.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Viewer,
    Owner,
}

impl Role {
    pub const ALL: [Role; 2] = [Role::Owner, Role::Viewer];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Owner => "owner",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// The role a person has in a project: an instance administrator owns every project;
    /// anyone else has the role stored for them, if any.
    pub fn effective(instance_admin: bool, stored: Option<&str>) -> Option<Role> {
        if instance_admin {
            Some(Role::Owner)
        } else {
            stored.and_then(Role::parse)
        }
    }

    /// Settings, tokens and people.
    pub fn manages(self) -> bool {
        self == Role::Owner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_round_trip_and_admins_own_everything() {
        for role in Role::ALL {
            assert_eq!(Role::parse(role.as_str()), Some(role));
        }
        assert_eq!(Role::parse("admin"), None);
        assert!(Role::Owner > Role::Viewer);
        assert_eq!(Role::effective(true, None), Some(Role::Owner));
        assert_eq!(Role::effective(true, Some("viewer")), Some(Role::Owner));
        assert_eq!(Role::effective(false, Some("viewer")), Some(Role::Viewer));
        assert_eq!(Role::effective(false, Some("bogus")), None);
        assert_eq!(Role::effective(false, None), None);
        assert!(Role::Owner.manages() && !Role::Viewer.manages());
    }
}
