-- Rollups kept as runs are ingested, so the pages read a few thousand rows instead of every
-- scenario result or ledger record (100,000 runs of 20 scenarios are 2,000,000 of each).
-- Key columns cannot be NULL: a missing branch, commit, provider or model is ''. Same text on
-- both backends; each table is filled from the rows already stored.

-- Pass counts per day, branch and scenario: the pass-rate charts.
CREATE TABLE scenario_days (
    project_id BIGINT NOT NULL REFERENCES projects(id),
    day TEXT NOT NULL,
    branch TEXT NOT NULL,
    scenario_id TEXT NOT NULL,
    passed BIGINT NOT NULL,
    failed BIGINT NOT NULL,
    PRIMARY KEY (project_id, day, branch, scenario_id)
);
INSERT INTO scenario_days (project_id, day, branch, scenario_id, passed, failed)
SELECT project_id, day, COALESCE(branch, ''), scenario_id, SUM(passed), SUM(failed)
FROM scenario_results
GROUP BY project_id, day, COALESCE(branch, ''), scenario_id;

-- Outcomes per scenario and commit: flaky scenarios.
CREATE TABLE scenario_commits (
    project_id BIGINT NOT NULL REFERENCES projects(id),
    scenario_id TEXT NOT NULL,
    commit_sha TEXT NOT NULL,
    passed BIGINT NOT NULL,
    failed BIGINT NOT NULL,
    retried BIGINT NOT NULL,
    last_ms BIGINT NOT NULL,
    PRIMARY KEY (project_id, scenario_id, commit_sha)
);
INSERT INTO scenario_commits (project_id, scenario_id, commit_sha, passed, failed, retried, last_ms)
SELECT project_id, scenario_id, COALESCE(commit_sha, ''), SUM(passed), SUM(failed), SUM(flaky),
       MAX(started_ms)
FROM scenario_results
GROUP BY project_id, scenario_id, COALESCE(commit_sha, '');
CREATE INDEX scenario_commits_last ON scenario_commits(project_id, last_ms);

-- LLM use per day, provider and model: the spend page.
CREATE TABLE spend_days (
    project_id BIGINT NOT NULL REFERENCES projects(id),
    day TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    calls BIGINT NOT NULL,
    input_tokens BIGINT NOT NULL,
    output_tokens BIGINT NOT NULL,
    cost_micro_usd BIGINT NOT NULL,
    PRIMARY KEY (project_id, day, provider, model)
);
INSERT INTO spend_days (project_id, day, provider, model, calls, input_tokens, output_tokens,
                        cost_micro_usd)
SELECT project_id, day, COALESCE(provider, ''), COALESCE(model, ''), SUM(calls),
       SUM(input_tokens), SUM(output_tokens), SUM(cost_micro_usd)
FROM ledger
GROUP BY project_id, day, COALESCE(provider, ''), COALESCE(model, '');

-- The branch filter's list, and a stale plan's last failing run.
CREATE INDEX runs_project_branch ON runs(project_id, branch);
CREATE INDEX scenario_results_scenario ON scenario_results(project_id, scenario_id, started_ms);
