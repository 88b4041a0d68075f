#!/usr/bin/env bash
# Copies while streaming, as a user sees them (issue 48): runs `mongo-cdc dev --initial-documents
# DOCS --rate RATE`, times the first snapshot (set-up to the last partition, from the catalog), then
# polls every table's lag from outside (one psql session per table, one query every
# POLL_SECONDS, default 0.2) for BASELINE seconds with no copy, and again during `mongo-cdc mirror
# resync dev --collection orders` until that copy is done. Prints one JSON line.
#
# The lag of a table at an instant: the clock minus the newest visible row's source commit time
# (`_commit_time`), read through an index on it that this script builds first (`create index
# concurrently`: the mirror goes on writing). Each generated collection changes about RATE/3
# times a second, so the gaps between one table's changes add a few milliseconds at most.
#
# FIRST_SNAPSHOT_POLL=1 builds the indexes and starts polling as soon as the tables exist, and
# reports each table's lag from the end of its own copy to the end of the last one (a collection
# copied streams while the others copy). The index then slows the copy: take the first
# snapshot's duration from a run without it. FIRST_SNAPSHOT_ONLY=1 stops once the first snapshot
# is copied and prints its duration only (for alternating runs of two jars). DEV_ARGS adds options
# to dev's command line (e.g. DEV_ARGS="--destination-connections 9").
#
# usage: resync.sh JAR DOCS RATE [BASELINE_SECONDS]
# Run it under the machine's build lock (flock), one at a time. Needs psql and python3.
set -euo pipefail
. "$(dirname "$0")/dev-port.sh"

JAR=$1
DOCS=$2
RATE=$3
BASELINE=${4:-60}
TEMPORAL_PORT=${TEMPORAL_PORT:-17233}
METRICS_PORT=${METRICS_PORT:-19464}
POLL=${POLL_SECONDS:-0.2}
WORK=$(mktemp -d)
WATCHES=()
cleanup() {
  for w in "${WATCHES[@]}"; do kill "$w" 2>/dev/null || true; done
  [ -n "${DEV:-}" ] && kill -TERM "$DEV" 2>/dev/null && wait "$DEV" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
TABLES=(demo.orders demo.products demo.users)

java -jar "$JAR" dev --headless --initial-documents "$DOCS" --rate "$RATE" --temporal-port "$TEMPORAL_PORT" \
  --metrics-port "$METRICS_PORT" --report "$WORK/report.json" ${DEV_ARGS:-} > "$WORK/dev.log" 2>&1 &
DEV=$!

port=$(dev_port "$WORK/dev.log" "$DEV") || exit 1
PSQL=(psql -h localhost -p "$port" -U postgres -d postgres -AtX)

index_and_poll() {
  for t in "${TABLES[@]}"; do
    "${PSQL[@]}" -c "create index concurrently if not exists \"lag_probe_${t#demo.}\" on public.\"$t\" (_commit_time)" > /dev/null
  done
  # One session per table; each line: the poll's epoch, the lag in seconds.
  for t in "${TABLES[@]}"; do
    printf '%s\n' "select extract(epoch from clock_timestamp()) || ' ' || extract(epoch from clock_timestamp() - max(_commit_time)) from public.\"$t\"" \
      "\\watch $POLL" | "${PSQL[@]}" > "$WORK/lag-$t.txt" 2>/dev/null &
    WATCHES+=($!)
  done
}
if [ "${FIRST_SNAPSHOT_POLL:-0}" = 1 ]; then
  until [ "$("${PSQL[@]}" -c "select count(to_regclass('public.\"' || t || '\"')) from unnest(array['demo.orders','demo.products','demo.users']) t" 2>/dev/null || echo 0)" = 3 ]; do
    sleep 0.2
  done
  index_and_poll
fi

# Copying: a collection planned and not done, or none planned yet.
copying() {
  "${PSQL[@]}" -c "select count(*) filter (where state <> 'done') + (count(*) = 0)::int
    from mongo_cdc.snapshot_collections where mirror_name = 'dev'" 2>/dev/null || echo 1
}
until [ "$(copying)" = 0 ]; do
  sleep 1
  kill -0 "$DEV" 2>/dev/null || { tail -20 "$WORK/dev.log" >&2; exit 1; }
done
first_copy=$("${PSQL[@]}" -c "select round(extract(epoch from max(c.finished_at) - m.created_at)::numeric, 1)
  from mongo_cdc.snapshot_collections c join mongo_cdc.mirrors m on m.name = c.mirror_name
  where c.mirror_name = 'dev' group by m.created_at")

# Each collection's copy end, and the batches that delivered changes before the last one.
"${PSQL[@]}" -F ' ' -c "select 'demo.' || collection, extract(epoch from finished_at) from mongo_cdc.snapshot_collections
  where mirror_name = 'dev'" > "$WORK/copy-ends.txt"
batches_during_copy=$("${PSQL[@]}" -c "select count(*) from mongo_cdc.batches b where b.mirror_name = 'dev'
  and b.records > 0 and b.ended_at < (select max(finished_at) from mongo_cdc.snapshot_collections where mirror_name = 'dev')")
if [ "${FIRST_SNAPSHOT_ONLY:-0}" = 1 ]; then
  echo "{\"initialDocuments\": $DOCS, \"rate\": $RATE, \"firstSnapshotSeconds\": $first_copy, \"batchesDeliveringBeforeTheLastCopyEnded\": $batches_during_copy}"
  # No final comparison of 3 million rows: the next run would share the machine with it.
  kill -KILL "$DEV"
  wait "$DEV" 2>/dev/null || true
  DEV=""
  pkill -f "bin/postgres -D .* -p $port " || true
  exit 0
fi
[ "${FIRST_SNAPSHOT_POLL:-0}" = 1 ] || index_and_poll
baseline_start=$(date +%s.%N)
sleep "$BASELINE"
resync_start=$(date +%s.%N)
java -jar "$JAR" mirror resync dev --collection orders --temporal-address "localhost:$TEMPORAL_PORT" > "$WORK/resync.log" 2>&1
# The copy has begun once orders is planned again after the resync started.
until [ "$("${PSQL[@]}" -c "select count(*) from mongo_cdc.snapshot_collections where mirror_name = 'dev'
    and collection = 'orders' and planned_at > to_timestamp($resync_start)")" = 1 ]; do sleep 0.5; done
until [ "$(copying)" = 0 ]; do sleep 0.5; done
resync_end=$(date +%s.%N)
resync_partitions=$("${PSQL[@]}" -c "select partitions_total from mongo_cdc.snapshot_collections
  where mirror_name = 'dev' and collection = 'orders'")
for w in "${WATCHES[@]}"; do kill "$w" 2>/dev/null || true; done
WATCHES=()
kill -TERM "$DEV"
wait "$DEV" || true
DEV=""

python3 - "$WORK" "$baseline_start" "$resync_start" "$resync_end" "$first_copy" "$resync_partitions" "$DOCS" "$RATE" "$batches_during_copy" "${TABLES[@]}" <<'PY'
import json, math, sys
work, b0, r0, r1, first_copy, partitions, docs, rate, batches_during_copy = sys.argv[1:10]
tables = sys.argv[10:]
ends = {}
for line in open(f"{work}/copy-ends.txt"):
    parts = line.split()
    if len(parts) == 2:
        ends[parts[0]] = float(parts[1])
last_end = max(ends.values()) if ends else 0.0
b0, r0, r1 = float(b0), float(r0), float(r1)
def rank(values, q):
    return values[max(0, min(len(values) - 1, math.ceil(q * len(values)) - 1))] if values else None
def figures(values):
    values = sorted(values)
    return {"polls": len(values), "p50Ms": round(rank(values, 0.5) * 1000) if values else None,
            "p99Ms": round(rank(values, 0.99) * 1000) if values else None,
            "maxMs": round(values[-1] * 1000) if values else None}
out = {"initialDocuments": int(docs), "rate": int(rate), "firstSnapshotSeconds": float(first_copy),
       "batchesDeliveringBeforeTheLastCopyEnded": int(batches_during_copy),
       "resyncSeconds": round(r1 - r0, 1), "resyncPartitions": int(partitions), "tables": {}}
for t in tables:
    copied, base, during = [], [], []
    for line in open(f"{work}/lag-{t}.txt"):
        parts = line.split()
        if len(parts) != 2:
            continue
        at, lag = float(parts[0]), float(parts[1])
        if ends.get(t, last_end) <= at < last_end:
            copied.append(lag)
        (base if b0 <= at < r0 else during if r0 <= at <= r1 else []).append(lag)
    out["tables"][t] = {"baseline": figures(base), "duringResync": figures(during)}
    if copied:
        out["tables"][t]["copiedWhileOthersCopy"] = figures(copied)
try:
    report = json.load(open(f"{work}/report.json"))
    out["destinationMatchesSource"] = report.get("destinationMatchesSource")
except Exception:
    out["destinationMatchesSource"] = None
print(json.dumps(out))
PY
