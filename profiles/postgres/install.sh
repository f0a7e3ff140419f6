#!/bin/sh
# install.sh UID: the postgres service's install step (a snapshot build
# step, as root, with the build's network): the distribution's PostgreSQL
# server (15 on Debian 12, 17 on Debian 13), its JDBC driver where the
# image has a JVM, and the service's account. No cluster of the package's
# own and no daemon started by the package: init.sh makes the one cluster
# the service runs, and the sandbox's init (or the core, on Daytona)
# starts it.
set -eu
uid=$1
command -v apt-get >/dev/null 2>&1 || {
    echo "postgres service: this image has no apt-get (it needs a Debian or Ubuntu image)" >&2
    exit 1
}
mkdir -p /etc/postgresql-common
echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.conf
rc=/usr/sbin/policy-rc.d
own_rc=
if [ ! -e $rc ]; then
    printf '#!/bin/sh\nexit 101\n' > $rc && chmod 0755 $rc && own_rc=1
fi
pkgs=postgresql
if command -v java >/dev/null 2>&1; then pkgs="$pkgs libpostgresql-jdbc-java"; fi
# the lists once per build (another service's step may have read them)
ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1 || apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -q -y --no-install-recommends $pkgs
apt-get clean
[ -z "$own_rc" ] || rm -f $rc
# initdb and the server need a name for their uid
grep -q '^dval_postgres:' /etc/group || echo "dval_postgres:x:$uid:" >> /etc/group
grep -q '^dval_postgres:' /etc/passwd ||
    echo "dval_postgres:x:$uid:$uid:dval postgres service:/var/lib/dval-postgres:/usr/sbin/nologin" >> /etc/passwd
ls -d /usr/lib/postgresql/*/bin/postgres >/dev/null
