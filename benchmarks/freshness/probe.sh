#!/usr/bin/env bash
# Freshness as a user sees it: runs `mongo-cdc dev --rate RATE` and, from outside the process,
# polls the destination every POLL_SECONDS (default 0.2) for how far its newest visible row's source commit time
# (_commit_time) is behind the clock, over MEASURE seconds of steady state. Prints one JSON line:
# the outside p50/p99 next to the dev report's freshness quantiles and the metric's: what
# Prometheus' histogram_quantile answers over the same window (the histogram scraped at its start
# and end), and the client-side quantiles of the last two minutes, scraped at its end.
#
# usage: probe.sh JAR RATE [MEASURE_SECONDS] [WARMUP_SECONDS]
# Run it under the machine's build lock (flock), one at a time. Needs psql, curl and python3.
set -euo pipefail
. "$(dirname "$0")/dev-port.sh"

JAR=$1
RATE=$2
MEASURE=${3:-60}
WARMUP=${4:-15}
TEMPORAL_PORT=${TEMPORAL_PORT:-17233}
METRICS_PORT=${METRICS_PORT:-19464}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

java -jar "$JAR" dev --rate "$RATE" --headless --temporal-port "$TEMPORAL_PORT" --metrics-port "$METRICS_PORT" \
  --report "$WORK/report.json" > "$WORK/dev.log" 2>&1 &
DEV=$!

port=$(dev_port "$WORK/dev.log" "$DEV") || { kill -TERM "$DEV" 2>/dev/null; exit 1; }
PSQL=(psql -h localhost -p "$port" -U postgres -d postgres -AtX)

# Change data capture has started once a row carries a commit time from after the snapshot.
started=$(date +%s)
until [ "$("${PSQL[@]}" -c "select count(*) from mongo_cdc.batches where records > 0" 2>/dev/null || echo 0)" -gt 0 ]; do
  sleep 0.5
  if [ $(( $(date +%s) - started )) -gt 300 ]; then echo "no batch delivered" >&2; kill -TERM "$DEV"; exit 1; fi
done
# The window starts WARMUP seconds after the first delivering batch started, as the dev report's
# steady part does (DevRun.STEADY_AFTER, 15 s).
phase_start=$("${PSQL[@]}" -c "select extract(epoch from min(started_at)) from mongo_cdc.batches where records > 0")
sleep "$(python3 -c "import time; print(max(0.0, $phase_start + $WARMUP - time.time()))")"

# One session, one query every POLL_SECONDS: the lag of the newest visible row at that instant. A
# p99 of 300 polls (a minute at 0.2 s) rests on its 3 largest; polling at 0.05 s gives 1 200.
curl -s "http://127.0.0.1:$METRICS_PORT/metrics" > "$WORK/metrics-start.txt" || true
printf '%s\n' 'select extract(epoch from clock_timestamp() - max(_commit_time)) from public."demo.orders"' \
  "\\watch ${POLL_SECONDS:-0.2}" | "${PSQL[@]}" > "$WORK/lags.txt" 2>/dev/null &
WATCH=$!
sleep "$MEASURE"
kill "$WATCH" 2>/dev/null || true
wait "$WATCH" 2>/dev/null || true
curl -s "http://127.0.0.1:$METRICS_PORT/metrics" > "$WORK/metrics.txt" || true

kill -TERM "$DEV"
wait "$DEV" || true

python3 - "$RATE" "$WORK/lags.txt" "$WORK/report.json" "$WORK/metrics.txt" "$WORK/metrics-start.txt" <<'PY'
import json, math, re, sys
rate, lags_file, report_file, metrics_file, start_file = sys.argv[1:6]
lags = sorted(float(l) for l in open(lags_file) if re.match(r'^-?[0-9.]+$', l.strip()))
def rank(values, q):
    return values[max(0, min(len(values) - 1, math.ceil(q * len(values)) - 1))] if values else None
out = {"rate": int(rate), "polls": len(lags),
       "outsideP50Ms": round(rank(lags, 0.5) * 1000) if lags else None,
       "outsideP99Ms": round(rank(lags, 0.99) * 1000) if lags else None}
try:
    report = json.load(open(report_file))
    for key in ("freshnessP50Ms", "freshnessP99Ms", "freshnessMaxMs", "eventsPerSecond"):
        out["report_" + key] = report.get(key)
except (OSError, ValueError):
    pass
def buckets_of(path):
    counts = {}
    for line in open(path):
        m = re.match(r'mongo_cdc_freshness_seconds_bucket\{.*le="([0-9.eE+-]+|\+Inf)".*\} ([0-9.eE+-]+)', line)
        if m:
            counts[float(m.group(1))] = float(m.group(2))
    return counts
for line in open(metrics_file):
    m = re.match(r'mongo_cdc_freshness_quantiles_seconds\{.*quantile="([0-9.]+)".*\} ([0-9.eE+-]+)', line)
    if m:
        out["metricRecentP%gMs" % (float(m.group(1)) * 100)] = round(float(m.group(2)) * 1000)
# histogram_quantile(q, increase(mongo_cdc_freshness_seconds_bucket[window])): the window's
# increase per bucket, then linear interpolation inside the bucket the quantile falls in.
end, start = buckets_of(metrics_file), buckets_of(start_file)
window = sorted((le, count - start.get(le, 0)) for le, count in end.items())
if window and window[-1][1] > 0:
    total = window[-1][1]
    for q in (0.5, 0.99):
        rank, lower, below = q * total, 0.0, 0.0
        for le, cumulative in window:
            if cumulative >= rank:
                upper = lower if le == float("inf") else le
                share = (rank - below) / (cumulative - below) if cumulative > below else 1.0
                out["metricWindowP%gMs" % (q * 100)] = round((lower + (upper - lower) * share) * 1000)
                break
            lower, below = le, cumulative
print(json.dumps(out))
PY
