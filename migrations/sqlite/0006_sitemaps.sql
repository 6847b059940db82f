-- The shared site map (issue 20): one merged map per project and branch, as the runner's
-- `e2e/.windup/sitemap.json` holds it. Same text as ../postgres/0006_sitemaps.sql.
-- `version` makes a merge optimistic: a write applies only over the version it read.
CREATE TABLE sitemaps (
    project_id BIGINT NOT NULL REFERENCES projects(id),
    branch TEXT NOT NULL,
    map_json TEXT NOT NULL,
    version BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL,
    PRIMARY KEY (project_id, branch)
);
