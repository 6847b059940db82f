-- Issue 16: the PR comment's repository becomes a project setting, the spend rollup is held to
-- integers, and retention keeps the ids of the runs it pruned. Same text on both backends.

-- `owner/name` of the repository that gets the project's sticky PR comment; NULL: none, so no
-- comment. Nothing is carried over from past uploads: the repository an upload names is not
-- trusted, only checked against this.
ALTER TABLE projects ADD COLUMN github_repo TEXT;

-- The spend rollup, rebuilt with CHECKs (SQLite cannot add one to a table): whole numbers from
-- 0 to 10^18, the bound ingest's sums stop at. An overflowing sum used to turn a day into a REAL
-- on SQLite (and the spend page into a 500); `x = CAST(x AS BIGINT)` refuses any fraction there
-- and is always true on PostgreSQL. Refilled from the ledger, leaving out the records today's
-- ingest refuses (a cost over 10^12 micro-dollars, token counts over 10^10, negative values).
CREATE TABLE spend_days_checked (
    project_id BIGINT NOT NULL REFERENCES projects(id),
    day TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    calls BIGINT NOT NULL,
    input_tokens BIGINT NOT NULL,
    output_tokens BIGINT NOT NULL,
    cost_micro_usd BIGINT NOT NULL,
    PRIMARY KEY (project_id, day, provider, model),
    CONSTRAINT spend_days_whole_numbers CHECK (
        calls = CAST(calls AS BIGINT) AND calls BETWEEN 0 AND 1000000000000000000
        AND input_tokens = CAST(input_tokens AS BIGINT)
        AND input_tokens BETWEEN 0 AND 1000000000000000000
        AND output_tokens = CAST(output_tokens AS BIGINT)
        AND output_tokens BETWEEN 0 AND 1000000000000000000
        AND cost_micro_usd = CAST(cost_micro_usd AS BIGINT)
        AND cost_micro_usd BETWEEN 0 AND 1000000000000000000
    )
);
INSERT INTO spend_days_checked (project_id, day, provider, model, calls, input_tokens,
                                output_tokens, cost_micro_usd)
SELECT project_id, day, COALESCE(provider, ''), COALESCE(model, ''), SUM(calls),
       SUM(input_tokens), SUM(output_tokens), SUM(cost_micro_usd)
FROM ledger
WHERE cost_micro_usd BETWEEN 0 AND 1000000000000
  AND calls BETWEEN 0 AND 4000000
  AND input_tokens BETWEEN 0 AND 10000000000
  AND output_tokens BETWEEN 0 AND 10000000000
  AND cached_tokens BETWEEN 0 AND 10000000000
GROUP BY project_id, day, COALESCE(provider, ''), COALESCE(model, '');
DROP TABLE spend_days;
ALTER TABLE spend_days_checked RENAME TO spend_days;

-- Run ids that retention pruned: a late retry of one is the same run, counted already, so
-- ingest treats it as present. Only ids; they are few bytes a run.
CREATE TABLE pruned_runs (
    project_id BIGINT NOT NULL REFERENCES projects(id),
    run_id TEXT NOT NULL,
    pruned_ms BIGINT NOT NULL,
    PRIMARY KEY (project_id, run_id)
);

-- Retention's daily pass looks for old runs and old screenshots across projects. Without its
-- own index, finding an artifact's `created_ms` would read past its image on SQLite.
CREATE INDEX runs_started ON runs(started_ms);
CREATE INDEX artifacts_created ON artifacts(created_ms);
