#!/bin/bash
# The optional standby of compose.yaml (profile "standby"): on first start, a base backup of the
# primary with -R (standby.signal and primary_conninfo, application_name=standby so that the
# primary's synchronous_standby_names can name it), then PostgreSQL as a hot standby.
# Promote it with: docker compose exec -u postgres postgres-standby pg_ctl promote
set -euo pipefail
mkdir -p "$PGDATA"
chown postgres "$PGDATA"
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    until gosu postgres pg_basebackup -d "host=postgres port=5432 user=$POSTGRES_USER application_name=standby" \
        -D "$PGDATA" -R -X stream; do
        echo "standby: waiting for the primary" >&2
        rm -rf "${PGDATA:?}"/*  # a backup cut off halfway
        sleep 2
    done
fi
exec gosu postgres postgres
