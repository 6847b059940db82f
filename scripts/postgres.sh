#!/usr/bin/env bash
# Starts the machine's PostgreSQL 15 (installed on the CI image, not running) and creates the
# role the dashboard's tests use; each test then creates its own fresh database. Run as root.
# Prints the URL to export as WINDUP_TEST_DATABASE_URL.
set -euo pipefail
if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2 ||
    { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2; }
fi
if ! pg_ctlcluster 15 main status >/dev/null 2>&1; then
  # pg_ctl gives up waiting after 60 s, which a loaded machine (a build beside it) or crash
  # recovery can take; the server goes on starting, so the wait below decides.
  pg_ctlcluster 15 main start || echo "pg_ctlcluster did not see the server start yet; waiting" >&2
fi
for _ in $(seq 1 180); do
  pg_isready -q -h 127.0.0.1 -p 5432 && break
  sleep 1
done
pg_isready -h 127.0.0.1 -p 5432
su postgres -c "psql -v ON_ERROR_STOP=1 -q" <<'SQL'
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'windup_test') THEN
    CREATE ROLE windup_test LOGIN PASSWORD 'windup_test' CREATEDB;
  END IF;
END
$$;
SQL
if ! su postgres -c "psql -tAc \"SELECT 1 FROM pg_database WHERE datname = 'windup_test'\"" | grep -q 1; then
  su postgres -c "createdb -O windup_test windup_test"
fi
# Each test run leaves its per-test databases behind; drop those of earlier runs.
su postgres -c "psql -tAc \"SELECT datname FROM pg_database WHERE datname LIKE 'windup\\_test\\_%'\"" |
  while read -r db; do su postgres -c "dropdb --if-exists '$db'"; done
echo "postgres://windup_test:windup_test@127.0.0.1:5432/windup_test"
