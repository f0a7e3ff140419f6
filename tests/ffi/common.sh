# Sourced by the suite_* scripts: build dir, temp dir, and the Daytona
# emulator when it can be started (DVAL_EMU_PORT set, else unset).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${B:-build}
case "$B" in /*) BABS=$B ;; *) BABS=$ROOT/$B ;; esac
export B
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dval-ffi.XXXXXX")
EMU_PID=
cleanup() {
    if [ -n "$EMU_PID" ]; then kill "$EMU_PID" 2>/dev/null; wait "$EMU_PID" 2>/dev/null; fi
    # the tmpfs of a snapshot's shared services (the java and dotnet
    # compile services; a snapshot delete would unmount it)
    awk -v t="$TMP/" 'index($2, t) == 1 { print $2 }' /proc/mounts |
        while read -r m; do umount -l "$m" 2>/dev/null || true; done
    rm -rf "$TMP"
}
trap cleanup EXIT

# the local executor's helper, from the same build
[ -x "$BABS/libexec/dval-local-helper" ] && export DVAL_LOCAL_HELPER=$BABS/libexec/dval-local-helper

have_lib() { [ -e "$BABS/lib/libdaytona-validate.so.1" ]; }

# Starts tests/emulator/emulator.py on 127.0.0.1; exports DVAL_EMU_PORT on
# success, prints why not otherwise.
start_emulator() {
    unset DVAL_EMU_PORT
    local emu=$ROOT/tests/emulator/emulator.py
    if [ ! -f "$emu" ]; then echo "note: no $emu yet: daytona tests will be skipped"; return 1; fi
    /usr/bin/python3 "$emu" --port-file "$TMP/emu.port" --lifetime 300 >"$TMP/emu.log" 2>&1 &
    EMU_PID=$!
    for _ in $(seq 100); do
        [ -s "$TMP/emu.port" ] && break
        kill -0 "$EMU_PID" 2>/dev/null || break
        sleep 0.1
    done
    if [ ! -s "$TMP/emu.port" ]; then
        echo "note: emulator did not start: daytona tests will be skipped"; sed 's/^/    emu| /' "$TMP/emu.log" | tail -5
        kill "$EMU_PID" 2>/dev/null; EMU_PID=
        return 1
    fi
    DVAL_EMU_PORT=$(tr -dc 0-9 <"$TMP/emu.port")
    export DVAL_EMU_PORT
    echo "emulator on 127.0.0.1:$DVAL_EMU_PORT (pid $EMU_PID)"
}

# Sums "N passed, N failed[, N skipped]" lines of the given log files.
sum_results() {
    local p=0 f=0 s=0 line
    for log in "$@"; do
        line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
        if [ -z "$line" ]; then f=$((f + 1)); echo "FAIL: $log has no result line"; continue; fi
        p=$((p + $(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+')))
        f=$((f + $(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+')))
        s=$((s + $(grep -oE '[0-9]+ skipped' <<<"$line" | grep -oE '[0-9]+' || echo 0)))
    done
    echo "$p passed, $f failed, $s skipped"
    [ $f -eq 0 ]
}

# Installs the build into a DESTDIR under $TMP (as a user would with
# `make install`) and exports what finds it there: PKG_CONFIG_PATH,
# PKG_CONFIG_SYSROOT_DIR and, for running, LD_LIBRARY_PATH. Sets INST
# (the DESTDIR) and INST_PREFIX.
install_tree() {
    INST=$TMP/root INST_PREFIX=/usr/local
    make -C "$ROOT" --no-print-directory install DESTDIR="$INST" PREFIX=$INST_PREFIX B="$B" \
        PYTHONDIR=$INST_PREFIX/lib/python3/dist-packages >"$TMP/install.log" 2>&1 || {
        echo "make install DESTDIR failed:"; tail -20 "$TMP/install.log" | sed 's/^/    /'; return 1; }
    export PKG_CONFIG_PATH=$INST$INST_PREFIX/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$INST
    export LD_LIBRARY_PATH=$INST$INST_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
}
