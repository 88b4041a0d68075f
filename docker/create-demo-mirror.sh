#!/bin/sh
# One-shot of the docker-compose stack (development only): creates the demo mirror, retrying
# while Temporal is still starting. Succeeds without doing anything if the mirror already
# exists (a second `docker compose up`).
set -u

attempt=1
while [ "$attempt" -le 60 ]; do
  output=$(java -jar /app/mongo-cdc.jar mirror create demo \
      --source-peer demo-mongo --destination-peer demo-pg \
      --database demo --collection orders --schema public 2>&1)
  status=$?
  echo "$output"
  if [ "$status" -eq 0 ]; then
    exit 0
  fi
  case "$output" in
    *"already exists"*) exit 0 ;;
  esac
  if [ "$status" -eq 2 ]; then
    exit 2 # invalid configuration: retrying cannot help
  fi
  echo "mirror demo not created yet (attempt $attempt of 60); retrying in 5 s"
  attempt=$((attempt + 1))
  sleep 5
done
echo "gave up creating mirror demo" >&2
exit 1
