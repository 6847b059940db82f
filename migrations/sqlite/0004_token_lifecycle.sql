-- Tokens that can be taken back (issue 16, finding 3). Same text as ../postgres/0004_token_lifecycle.sql.
-- A name people recognise in the list; when it expires (NULL: never), when it was revoked (NULL:
-- not), and when it was last used (to the minute; NULL: never). Tokens from before keep working:
-- unnamed, never expiring, not revoked.
ALTER TABLE tokens ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE tokens ADD COLUMN expires_ms BIGINT;
ALTER TABLE tokens ADD COLUMN revoked_ms BIGINT;
ALTER TABLE tokens ADD COLUMN last_used_ms BIGINT;
CREATE INDEX tokens_project ON tokens(project_id);
