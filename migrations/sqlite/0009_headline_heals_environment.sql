-- Issue 38: the dashboard's headline, heals and proposals as rows, a weekly budget, and the
-- environment a run tested as a dimension of flakiness and pass rates. Same text on both
-- backends: ../postgres/0009_headline_heals_environment.sql.

-- Scenarios healed in the run (`totals.healed`), for the runs list's Healed column; older runs
-- are counted from their stored results.
ALTER TABLE runs ADD COLUMN healed BIGINT NOT NULL DEFAULT 0;
UPDATE runs SET healed = (SELECT COUNT(*) FROM scenario_results s
                          WHERE s.run_pk = runs.id AND s.cache = 'healed');
-- The environment the run tested (`report.environment`, a name such as `staging`); NULL: none.
ALTER TABLE runs ADD COLUMN environment TEXT;

-- Of a result: the heal (`a4: FROM → TO (renamed)`) and the proposal's source (`planned`,
-- `healed`) with its file, for the reviewers' list; NULL for results before this migration.
ALTER TABLE scenario_results ADD COLUMN heal TEXT;
ALTER TABLE scenario_results ADD COLUMN proposal TEXT;

-- A weekly LLM budget set on the project page; NULL: none.
ALTER TABLE projects ADD COLUMN budget_micro_usd BIGINT;

-- The pass-rate and flakiness rollups, keyed by environment too ('' for none; every row before
-- this migration).
CREATE TABLE scenario_days_env (
    project_id BIGINT NOT NULL REFERENCES projects(id),
    day TEXT NOT NULL,
    branch TEXT NOT NULL,
    scenario_id TEXT NOT NULL,
    passed BIGINT NOT NULL,
    failed BIGINT NOT NULL,
    environment TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (project_id, day, branch, scenario_id, environment)
);
INSERT INTO scenario_days_env (project_id, day, branch, scenario_id, passed, failed, environment)
SELECT project_id, day, branch, scenario_id, passed, failed, '' FROM scenario_days;
DROP TABLE scenario_days;
ALTER TABLE scenario_days_env RENAME TO scenario_days;

CREATE TABLE scenario_commits_env (
    project_id BIGINT NOT NULL REFERENCES projects(id),
    scenario_id TEXT NOT NULL,
    commit_sha TEXT NOT NULL,
    passed BIGINT NOT NULL,
    failed BIGINT NOT NULL,
    retried BIGINT NOT NULL,
    last_ms BIGINT NOT NULL,
    environment TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (project_id, scenario_id, commit_sha, environment)
);
INSERT INTO scenario_commits_env (project_id, scenario_id, commit_sha, passed, failed, retried,
                                  last_ms, environment)
SELECT project_id, scenario_id, commit_sha, passed, failed, retried, last_ms, ''
FROM scenario_commits;
DROP TABLE scenario_commits;
ALTER TABLE scenario_commits_env RENAME TO scenario_commits;
CREATE INDEX scenario_commits_last ON scenario_commits(project_id, last_ms);

-- The headline: a branch's latest run and the start of its current state, read from the index
-- (at 100,000 runs a scan would cost more than the page's budget).
CREATE INDEX runs_branch_started ON runs(project_id, branch, started_ms);
CREATE INDEX runs_branch_failed ON runs(project_id, branch, failed, started_ms);
-- The shards of one CI workflow run.
CREATE INDEX runs_workflow ON runs(project_id, workflow_run, started_ms);
-- A run's results (the runs × scenarios grid), and a failing scenario's last pass on a branch.
CREATE INDEX scenario_results_run ON scenario_results(run_pk);
CREATE INDEX scenario_results_streak
    ON scenario_results(project_id, scenario_id, branch, passed, started_ms);
-- Heals and proposals, newest first, for the reviewers' list.
CREATE INDEX scenario_results_review ON scenario_results(project_id, started_ms)
    WHERE heal IS NOT NULL OR proposal IS NOT NULL;
