#!/usr/bin/env bash
# Many mirrors on one worker (issue 34): a cluster host (`mongo-cdc dev --workers 0`) with the
# given options, served by one `mongo-cdc worker` started as the host prints it (plus
# WORKER_ARGS), until the host has checked every mirror. Prints the host's `streaming:` and
# `summary:` lines, then from the worker's log: "Connection is not available" errors, failed
# attempts, batches and snapshot partitions that waited for destination connections, batches that gave way
# (TURN_OVER), and the waits' median, p99 and maximum in ms.
#
# usage: run.sh JAR TEMPORAL_PORT HOST_OPTIONS...
#   run.sh mongo-cdc.jar 7801 --mirrors 20 --events 3000 --rate 0 --initial-documents 200 \
#     --history orders --history-retention-days 1
# Run one at a time, nothing else on the machine. Needs python3.
set -euo pipefail

JAR=$1
PORT=$2
shift 2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

java -jar "$JAR" dev --workers 0 --headless --temporal-port "$PORT" --peers-file "$WORK/peers.properties" \
  --report "$WORK/report.json" "$@" > "$WORK/host.log" 2>&1 &
HOST=$!
line=""
for _ in $(seq 1 1200); do
  line=$(grep -m1 " worker --temporal-address " "$WORK/host.log" || true)
  [ -n "$line" ] && break
  kill -0 "$HOST" 2>/dev/null || { cat "$WORK/host.log" >&2; exit 1; }
  sleep 0.5
done
read -r -a WORKER <<< "$(echo "$line" | sed 's/.* worker --temporal-address /worker --temporal-address /' | tr -d "'")"
# shellcheck disable=SC2086
java -jar "$JAR" "${WORKER[@]}" ${WORKER_ARGS:-} > "$WORK/worker.log" 2>&1 &
WORKER_PID=$!
status=0
wait "$HOST" || status=$?
kill "$WORKER_PID" 2>/dev/null || true
wait "$WORKER_PID" 2>/dev/null || true
grep -E "streaming:|summary:" "$WORK/host.log" || true
grep -m1 "^destination:" "$WORK/worker.log" || true
echo "Connection is not available: $(grep -c 'Connection is not available' "$WORK/worker.log" || true)"
echo "failed attempts: $(grep -c 'failed: \[' "$WORK/worker.log" || true)"
echo "batches and snapshot partitions that waited: $(grep -c 'got its [0-9]* destination connections' "$WORK/worker.log" || true)"
echo "batches that gave way (TURN_OVER): $(grep -c 'batch ended (TURN_OVER)' "$WORK/worker.log" || true)"
{ grep -o 'got its [0-9]* destination connections after [0-9]* ms' "$WORK/worker.log" || true; } | awk '{print $7}' | python3 -c '
import sys
w = sorted(int(x) for x in sys.stdin)
if w:
    print("waits ms: median %d, p99 %d, max %d" % (w[len(w) // 2], w[int(len(w) * 0.99)], w[-1]))'
exit "$status"
