#!/usr/bin/env bash
# Conformance: the official @daytonaio/sdk (pinned in package-lock.json) runs a
# scenario against the emulator.  Last line: "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "SKIP: node/npm not installed"
    echo "0 passed, 0 failed, 1 skipped"; exit 0
fi
if [ ! -f node_modules/@daytonaio/sdk/package.json ]; then
    if ! timeout 300 npm ci --no-audit --no-fund >npm-ci.log 2>&1; then
        echo "SKIP: npm ci failed (registry unreachable?); see $here/npm-ci.log"
        tail -n 5 npm-ci.log
        echo "0 passed, 0 failed, 1 skipped"; exit 0
    fi
fi
tmp=$(mktemp -d)
trap 'kill "$emu_pid" 2>/dev/null; wait "$emu_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
/usr/bin/python3 ../emulator/emulator.py --port-file "$tmp/port" --lifetime 300 2>"$tmp/emu.log" &
emu_pid=$!
for _ in $(seq 1 150); do [ -s "$tmp/port" ] && break; sleep 0.1; done
if [ ! -s "$tmp/port" ]; then
    cat "$tmp/emu.log"; echo "FAIL emulator did not start"; echo "0 passed, 1 failed"; exit 1
fi
port=$(cat "$tmp/port")
# no DAYTONA_* from the caller's environment may leak into the SDK
env -u DAYTONA_API_KEY -u DAYTONA_API_URL -u DAYTONA_TARGET -u DAYTONA_JWT_TOKEN \
    -u DAYTONA_ORGANIZATION_ID -u DAYTONA_SERVER_URL \
    timeout 120 node scenario.js "http://127.0.0.1:$port" | tee "$tmp/out"
rc=${PIPESTATUS[0]}
if grep -q Traceback "$tmp/emu.log"; then
    echo "--- emulator stderr"; cat "$tmp/emu.log"
fi
if ! tail -n 1 "$tmp/out" | grep -qE '^[0-9]+ passed, [0-9]+ failed'; then
    echo "FAIL scenario ended without a summary (rc $rc)"; echo "0 passed, 1 failed"; exit 1
fi
exit $rc
