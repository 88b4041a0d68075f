# Sourced by the scripts beside it. dev_port LOG PID: prints the port of the embedded PostgreSQL
# once the dev process PID has written its JDBC URL to LOG (at most 2 minutes); fails, with the
# log, if dev ended first.
dev_port() {
  local log=$1 pid=$2 port=""
  for _ in $(seq 1 600); do
    port=$(sed -n 's/.*jdbc:postgresql:\/\/localhost:\([0-9]*\)\/postgres.*/\1/p' "$log" | head -1)
    [ -n "$port" ] && { echo "$port"; return 0; }
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; return 1; }
    sleep 0.2
  done
  echo "dev did not start" >&2
  return 1
}
