#!/bin/sh
# install.sh: the sqlite service's install step (a snapshot build step, as
# root, with the build's network): the sqlite3 shell (it seeds the
# database) and, where the image has a JVM, Debian's SQLite JDBC driver.
set -eu
command -v apt-get >/dev/null 2>&1 || {
    echo "sqlite service: this image has no apt-get (it needs a Debian or Ubuntu image)" >&2
    exit 1
}
pkgs=sqlite3
if command -v java >/dev/null 2>&1; then pkgs="$pkgs libxerial-sqlite-jdbc-java"; fi
# the lists once per build (another service's step may have read them)
ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1 || apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -q -y --no-install-recommends $pkgs
apt-get clean
# The driver's native part is where Debian's JDK looks (jni/); a JDK
# from elsewhere looks in /usr/lib, so it is there too.
for so in /usr/lib/*/jni/libsqlitejdbc.so; do
    [ -f "$so" ] && [ ! -e /usr/lib/libsqlitejdbc.so ] && ln -s "$so" /usr/lib/libsqlitejdbc.so
done
true
