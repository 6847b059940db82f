-- Windup dashboard schema (SQLite). Kept column-for-column equal to ../postgres/0001_init.sql:
-- the store runs the same SQL text on both. Times are UTC epoch milliseconds (BIGINT), money is
-- integer micro-dollars, flags are 0/1 integers: no floats, no backend-specific types in queries.

CREATE TABLE projects (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    slug TEXT NOT NULL UNIQUE,
    default_branch TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);

CREATE TABLE tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id BIGINT NOT NULL REFERENCES projects(id),
    lookup TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    scopes TEXT NOT NULL,
    branch_glob TEXT,
    created_ms BIGINT NOT NULL
);
CREATE INDEX tokens_lookup ON tokens(lookup);

CREATE TABLE users (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    email TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);

CREATE TABLE sessions (
    sha256 TEXT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id),
    csrf TEXT NOT NULL,
    expires_ms BIGINT NOT NULL
);

CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id BIGINT NOT NULL REFERENCES projects(id),
    run_id TEXT NOT NULL,
    started_ms BIGINT NOT NULL,
    finished_ms BIGINT NOT NULL,
    branch TEXT,
    commit_sha TEXT,
    workflow_run TEXT,
    shard TEXT,
    scenarios BIGINT NOT NULL,
    passed BIGINT NOT NULL,
    failed BIGINT NOT NULL,
    skipped BIGINT NOT NULL,
    flaky BIGINT NOT NULL,
    llm_calls BIGINT NOT NULL,
    cost_micro_usd BIGINT NOT NULL,
    cache_hits BIGINT NOT NULL,
    duration_ms BIGINT NOT NULL,
    report_json TEXT NOT NULL,
    pr_repo TEXT,
    pr_number BIGINT,
    pr_head_sha TEXT,
    comment_status TEXT,
    ingested_ms BIGINT NOT NULL,
    UNIQUE (project_id, run_id)
);
CREATE INDEX runs_project_started ON runs(project_id, started_ms);

CREATE TABLE scenario_results (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id BIGINT NOT NULL REFERENCES projects(id),
    run_pk BIGINT NOT NULL REFERENCES runs(id),
    scenario_id TEXT NOT NULL,
    status TEXT NOT NULL,
    passed BIGINT NOT NULL,
    failed BIGINT NOT NULL,
    flaky BIGINT NOT NULL,
    cache TEXT NOT NULL,
    failure_class TEXT,
    message TEXT,
    branch TEXT,
    commit_sha TEXT,
    day TEXT NOT NULL,
    started_ms BIGINT NOT NULL
);
CREATE INDEX scenario_results_project_day ON scenario_results(project_id, day);

CREATE TABLE ledger (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id BIGINT NOT NULL REFERENCES projects(id),
    run_id TEXT NOT NULL,
    scenario_id TEXT NOT NULL,
    day TEXT NOT NULL,
    started_ms BIGINT NOT NULL,
    provider TEXT,
    model TEXT,
    calls BIGINT NOT NULL,
    input_tokens BIGINT NOT NULL,
    output_tokens BIGINT NOT NULL,
    cached_tokens BIGINT NOT NULL,
    cost_micro_usd BIGINT NOT NULL,
    record_json TEXT NOT NULL,
    UNIQUE (project_id, run_id, scenario_id)
);
CREATE INDEX ledger_project_day ON ledger(project_id, day);

CREATE TABLE artifacts (
    project_id BIGINT NOT NULL REFERENCES projects(id),
    run_id TEXT NOT NULL,
    name TEXT NOT NULL,
    bytes BLOB NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (project_id, run_id, name)
);

CREATE TABLE cache_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id BIGINT NOT NULL REFERENCES projects(id),
    scenario_id TEXT NOT NULL,
    start_url TEXT NOT NULL,
    scenario_sha TEXT NOT NULL,
    branch TEXT NOT NULL,
    active BIGINT NOT NULL,
    entry_json TEXT NOT NULL,
    updated_ms BIGINT NOT NULL,
    stale_ms BIGINT,
    stale_reason TEXT,
    replaced_by BIGINT
);
CREATE UNIQUE INDEX cache_entries_one_active
    ON cache_entries(project_id, scenario_id, start_url, branch) WHERE active = 1;
CREATE INDEX cache_entries_stale ON cache_entries(project_id, stale_ms);
