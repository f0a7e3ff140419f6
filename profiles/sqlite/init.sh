#!/bin/sh
# init.sh SEEDS: the sqlite service's seed step (a snapshot build step, as
# root, after the core wrote the host's seed files into SEEDS, in order):
# the seeded database every validation gets a copy of. Read-only to
# validations (root's, in the snapshot).
set -eu
seeds=$1
db=/var/lib/dval-sqlite/seed.db
rm -rf /var/lib/dval-sqlite
mkdir -p /var/lib/dval-sqlite
sqlite3 -bail "$db" 'PRAGMA journal_mode=DELETE;' >/dev/null
if [ -d "$seeds" ]; then
    for f in "$seeds"/*; do
        [ -f "$f" ] || continue
        echo "sqlite service: seed ${f##*/}"
        sqlite3 -bail "$db" < "$f" ||
            { echo "sqlite service: seed ${f##*/} failed" >&2; exit 1; }
    done
fi
sqlite3 -bail "$db" 'VACUUM;'
chmod 0755 /var/lib/dval-sqlite
chmod 0644 "$db"
