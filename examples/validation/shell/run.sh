# Validation sample for the shell profile (run as `sh run.sh` in
# $DVAL_WORKDIR). POSIX sh only: the image is debian:12-slim.
set -eu
n=0 sum=0
while [ "$n" -lt 100 ]; do
    n=$((n + 1))
    sum=$((sum + n))
done
echo "sum 1..100 = $sum"
echo "diagnostic: thread $DVAL_THREAD_ID" >&2
mkdir -p "$DVAL_RESULTS_DIR"
printf '{"sum_1_to_100":%d,"thread_id":"%s","passed":true}\n' \
    "$sum" "$DVAL_THREAD_ID" > "$DVAL_RESULTS_DIR/results.json"
