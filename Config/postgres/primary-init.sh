#!/bin/bash
# Runs once, when the primary's data directory is created (docker-entrypoint-initdb.d):
# lets the optional standby of compose.yaml (profile "standby") stream its WAL.
set -euo pipefail
echo "host replication ${POSTGRES_USER} all scram-sha-256" >>"$PGDATA/pg_hba.conf"
