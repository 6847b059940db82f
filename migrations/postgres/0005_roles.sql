-- Who may do what (issue 16, finding 6). Same text as ../sqlite/0005_roles.sql.
-- Instance administrators create projects and manage every one; otherwise a person sees only the
-- projects they have a role in: 'owner' (settings, tokens, people) or 'viewer' (pages only).
-- An owner may invite an email that has no account yet: the account made for it later (by
-- `user create` or a sign-in with GitHub) takes the role.
ALTER TABLE users ADD COLUMN instance_admin BIGINT NOT NULL DEFAULT 0;
-- The GitHub account a person signs in with (linked by a verified email or an invitation); an
-- account made by a GitHub sign-in has no local password ('').
ALTER TABLE users ADD COLUMN github_id BIGINT;
ALTER TABLE users ADD COLUMN github_login TEXT;
CREATE UNIQUE INDEX users_github_id ON users(github_id);

CREATE TABLE memberships (
    project_id BIGINT NOT NULL REFERENCES projects(id),
    user_id BIGINT NOT NULL REFERENCES users(id),
    role TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    -- 'org/team' when a GitHub team mapping granted the role (taken back when the person is no
    -- longer in the team at a GitHub sign-in); NULL when a person granted it.
    team TEXT,
    PRIMARY KEY (project_id, user_id)
);
CREATE INDEX memberships_user ON memberships(user_id);

CREATE TABLE invitations (
    project_id BIGINT NOT NULL REFERENCES projects(id),
    email TEXT NOT NULL,
    role TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (project_id, email)
);
CREATE INDEX invitations_email ON invitations(email);

-- Members of a GitHub organisation's team get a role in a project when they sign in with
-- GitHub (org and team slug in lower case).
CREATE TABLE team_roles (
    project_id BIGINT NOT NULL REFERENCES projects(id),
    org TEXT NOT NULL,
    team TEXT NOT NULL,
    role TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (project_id, org, team)
);

-- Before roles, everyone who could sign in could manage every project: on upgrade they become
-- owners of every existing project. Tokens belong to one project already and keep their scopes;
-- only what the `admin` scope reaches narrows (its own project, no new projects).
INSERT INTO memberships (project_id, user_id, role, created_ms)
SELECT p.id, u.id, 'owner', u.created_ms FROM projects p CROSS JOIN users u;
