#!/bin/sh
# init.sh UID SEEDS: the postgres service's init and seed step (a snapshot
# build step, as root, after install.sh and after the core wrote the
# host's seed files into SEEDS, in order). Makes the service's cluster and
# the template every validation's database is copied from, so the seeded
# data is part of the snapshot, built once.
#
# The seeds run as dval_seed_owner (no superuser): the objects they make
# belong to that role, and the broker hands them to each validation's own
# role in its copy (REASSIGN OWNED), so a validation owns its database
# and everything in it and nothing else.
set -eu
uid=$1 seeds=$2
svc=/opt/dval-svc/postgres
home=/var/lib/dval-postgres data=/var/lib/dval-postgres/data
run=/run/dval-postgres
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
as() { setpriv --reuid="$uid" --regid="$uid" --clear-groups "$@"; }
rm -rf "$home" "$run"
mkdir -p "$home" "$run/pg"
chown -R "$uid:$uid" "$home" "$run"
chmod 0700 "$home" "$run/pg"
chmod 0755 "$run"
# C collation: byte order, the same order SQLite sorts text in. 1 MB WAL
# segments: a sandbox copies a segment up from the snapshot on its first
# write.
as "$bin/initdb" -D "$data" -U dval_postgres -A reject -E UTF8 --locale=C \
    --wal-segsize=1 >/dev/null
cp "$svc/pg_hba.conf" "$data/pg_hba.conf"
cat "$svc/postgresql.conf" >> "$data/postgresql.conf"
chown "$uid:$uid" "$data/pg_hba.conf"
as "$bin/pg_ctl" -D "$data" -w -s -l /tmp/dval-postgres-init.log start ||
    { cat /tmp/dval-postgres-init.log >&2; exit 1; }
sql() { as "$bin/psql" -h "$run/pg" -U dval_postgres -X -q -v ON_ERROR_STOP=1 "$@"; }
sql -d postgres -c 'CREATE ROLE dval_seed_owner NOLOGIN' \
    -c 'CREATE DATABASE dval_seed' \
    -c 'GRANT CREATE ON DATABASE dval_seed TO dval_seed_owner'
sql -d dval_seed -c 'GRANT CREATE ON SCHEMA public TO dval_seed_owner'
if [ -d "$seeds" ]; then
    for f in "$seeds"/*; do
        [ -f "$f" ] || continue
        echo "postgres service: seed ${f##*/}"
        chmod 0644 "$f"
        sql -d dval_seed -c 'SET ROLE dval_seed_owner' -f "$f" ||
            { echo "postgres service: seed ${f##*/} failed" >&2; exit 1; }
    done
fi
# The template: frozen, no connections, and no role but the superuser may
# connect to it or to the maintenance databases.
sql -d dval_seed -c 'VACUUM (FREEZE, ANALYZE)'
sql -d postgres -c 'ALTER DATABASE dval_seed WITH ALLOW_CONNECTIONS false IS_TEMPLATE true' \
    -c 'REVOKE ALL ON DATABASE dval_seed, postgres, template1 FROM PUBLIC' \
    -c 'CHECKPOINT'
as "$bin/pg_ctl" -D "$data" -w -s -m fast stop
rm -f /tmp/dval-postgres-init.log "$data/postmaster.opts"
