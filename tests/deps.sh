#!/usr/bin/env bash
# Installs the Debian 12 packages the build, the tests and the demo need,
# only when they are missing (run as root; otherwise prints what to install).
set -eu
pkgs=(build-essential pkg-config libcurl4-openssl-dev libjansson-dev uuid-dev libssl-dev
      python3-aiohttp python3-websockets python3-cffi python3-jsonschema golang-go abigail-tools
      mandoc valgrind strace clang libclang-rt-14-dev nodejs npm iproute2 util-linux mount e2fsprogs
      default-jdk-headless ca-certificates procps curl mmdebstrap
      python3-venv python3-setuptools python3-wheel
      docker-registry skopeo umoci)   # the registry tests (local_test_pull*) and bench
pkgs+=(python3-uvloop)   # optional: the emulator's cheaper event loop (tests/emulator)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
        || missing+=("$p")
done
# Node/npm may come from elsewhere (e.g. nodesource): accept working binaries.
if command -v node >/dev/null && command -v npm >/dev/null; then
    missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
if command -v javac >/dev/null; then missing=("${missing[@]/default-jdk-headless}"); fi
read -r -a missing <<<"${missing[*]:-}"
[ ${#missing[@]} -eq 0 ] && { echo "deps: all present"; exit 0; }
if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing packages (run as root): ${missing[*]}" >&2
    exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"
