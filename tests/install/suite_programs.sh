#!/usr/bin/env bash
# Every host program the tests call is installed by tests/deps.sh or part of
# a minimal Debian 12 (see programs.py).
cd "$(dirname "$0")"
if /usr/bin/python3 ./programs.py; then
    echo "1 passed, 0 failed"
else
    echo "0 passed, 1 failed"; exit 1
fi
