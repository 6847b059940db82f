-- Issue 38: every page reads a bounded slice of an index in the order it shows, at 100,000
-- runs as at ten, with or without the planner's statistics (SQLite has none unless someone
-- runs ANALYZE). Same text on both backends: ../sqlite/0010_page_indexes.sql.

-- The runs list, newest first with the run id breaking ties, per filter: all runs, one branch,
-- one result (partial indexes on `failed = 0` and `failed > 0`, as the queries write them),
-- both. With `run_id` in the key no query sorts: at 100,000 runs SQLite 3.51 sorted every run
-- (300 ms) rather than read (project_id, started_ms) and sort each millisecond's ties. With
-- `id` last, a page far down the list skips its predecessors in the index alone.
DROP INDEX runs_project_started;
CREATE INDEX runs_project_started ON runs(project_id, started_ms, run_id, id);
DROP INDEX runs_branch_started;
CREATE INDEX runs_branch_started ON runs(project_id, branch, started_ms, run_id, id);
CREATE INDEX runs_passed_started ON runs(project_id, started_ms, run_id, id) WHERE failed = 0;
CREATE INDEX runs_failed_started ON runs(project_id, started_ms, run_id, id) WHERE failed > 0;
CREATE INDEX runs_branch_passed_started ON runs(project_id, branch, started_ms, run_id, id)
    WHERE failed = 0;
CREATE INDEX runs_branch_failed_started ON runs(project_id, branch, started_ms, run_id, id)
    WHERE failed > 0;
-- Superseded: the branch list and a branch's streak read the indexes above.
DROP INDEX runs_project_branch;
DROP INDEX runs_branch_failed;

-- Flaky scenarios, newest first: only the rows that are flaky, so a project whose every
-- commit passed or failed cleanly does not read all of its (scenario, commit) rows.
CREATE INDEX scenario_commits_flaky ON scenario_commits(project_id, last_ms)
    WHERE (passed > 0 AND failed > 0) OR retried > 0;
