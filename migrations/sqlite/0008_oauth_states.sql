-- Sign-in with GitHub (issue 33): each OAuth `state` handed out, as its SHA-256, until its
-- callback takes it or it expires. A callback consumes its state by deleting the row, so a
-- state answers one callback only. Same text as ../postgres/0008_oauth_states.sql.
CREATE TABLE oauth_states (
    sha256 TEXT PRIMARY KEY,
    expires_ms BIGINT NOT NULL
);
