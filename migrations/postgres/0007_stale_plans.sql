-- The plans a pushed run stopped trusting (issue 22): each stale entry as the runner moved it
-- to `stale/`, with the run that failed it and the plan that run verified in its place, when
-- one. Same text as ../sqlite/0007_stale_plans.sql. Deleted with their run by retention.
CREATE TABLE stale_plans (
    id BIGSERIAL PRIMARY KEY,
    project_id BIGINT NOT NULL REFERENCES projects(id),
    run_pk BIGINT NOT NULL REFERENCES runs(id),
    run_id TEXT NOT NULL,
    scenario_id TEXT NOT NULL,
    start_url TEXT NOT NULL,
    branch TEXT NOT NULL,
    stale_ms BIGINT NOT NULL,
    reason TEXT NOT NULL,
    failure_class TEXT,
    verdict TEXT,
    entry_json TEXT NOT NULL,
    replacement_json TEXT
);
CREATE INDEX stale_plans_project ON stale_plans(project_id, stale_ms);
CREATE INDEX stale_plans_run ON stale_plans(run_pk);
