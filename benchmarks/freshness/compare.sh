#!/usr/bin/env bash
# Alternating before/after runs on one machine: freshness at each rate (probe.sh), then
# full-speed throughput (dev --rate 0 --events 300000, the report's eventsPerSecond).
# usage: compare.sh BEFORE_JAR AFTER_JAR RUNS "RATES" THROUGHPUT_RUNS
# Prints one JSON line per run, each tagged with the jar it ran ("before" or "after").
set -euo pipefail
BEFORE=$1
AFTER=$2
RUNS=${3:-2}
RATES=${4:-"1000 5000 15000"}
THROUGHPUT_RUNS=${5:-2}
HERE=$(cd "$(dirname "$0")" && pwd)

for rate in $RATES; do
  for run in $(seq 1 "$RUNS"); do
    for side in before after; do
      jar=$BEFORE; [ "$side" = after ] && jar=$AFTER
      result=$("$HERE/probe.sh" "$jar" "$rate" || echo '{"error": "probe failed"}')
      echo "{\"side\": \"$side\", \"run\": $run, \"probe\": $result}"
    done
  done
done

for run in $(seq 1 "$THROUGHPUT_RUNS"); do
  for side in before after; do
    jar=$BEFORE; [ "$side" = after ] && jar=$AFTER
    report=$(mktemp)
    java -jar "$jar" dev --rate 0 --events 300000 --headless --temporal-port 17233 --metrics-port 19464 \
      --report "$report" > /dev/null 2>&1
    echo "{\"side\": \"$side\", \"run\": $run, \"throughput\": $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps({k: r.get(k) for k in ("eventsPerSecond", "batches", "destinationMatchesSource", "freshnessP50Ms", "freshnessP99Ms", "freshnessMaxMs")}))' "$report")}"
    rm -f "$report"
  done
done
