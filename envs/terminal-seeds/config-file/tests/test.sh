#!/bin/bash
# Checks /app/config/app.ini; writes 1 or 0 to /logs/verifier/reward.txt.
fail() { echo "FAIL: $1"; echo 0 > /logs/verifier/reward.txt; exit 0; }
f=/app/config/app.ini
[ -f "$f" ] || fail "no $f"
section=""
declare -A seen
while IFS= read -r line; do
  line="${line%%#*}"; line="$(echo "$line" | sed 's/^[[:space:]]*//;s/[[:space:]]*$//')"
  [ -z "$line" ] && continue
  if [[ "$line" =~ ^\[(.+)\]$ ]]; then section="${BASH_REMATCH[1]}"; continue; fi
  key="$(echo "${line%%=*}" | sed 's/[[:space:]]*$//')"; value="$(echo "${line#*=}" | sed 's/^[[:space:]]*//')"
  seen["$section.$key"]="$value"
done < "$f"
[ "${seen[server.host]}" = "127.0.0.1" ] || fail "server.host"
[ "${seen[server.port]}" = "8080" ] || fail "server.port"
[ "${seen[logging.level]}" = "info" ] || fail "logging.level"
[ "$(cat /app/README)" = "Settings live in config/app.ini." ] || fail "README changed"
echo PASS; echo 1 > /logs/verifier/reward.txt
