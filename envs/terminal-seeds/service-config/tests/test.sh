#!/bin/bash
# Starts the service with its configuration and checks that it runs as asked; writes 1 or 0 to /logs/verifier/reward.txt.
fail() { echo "FAIL: $1"; echo 0 > /logs/verifier/reward.txt; exit 0; }
svc=/app/service/svc.sh
[ -f "$svc" ] || fail "no $svc"
[ "$(sha256sum "$svc" | cut -d' ' -f1)" = "5fffa3ed670ee439def22e25d072251520949621487f894c4ef299c4ccce8496" ] || fail "svc.sh was modified"
rm -rf /run/svc
# the log the configuration names, and its length before the start
log_file=$(sed -n 's/#.*//; s/^[[:space:]]*log_file[[:space:]]*=[[:space:]]*//p' /app/service/svc.conf | sed 's/[[:space:]]*$//' | tail -n 1)
before=0
[ -n "$log_file" ] && [ -f "$log_file" ] && before=$(wc -l < "$log_file")
out=$(cd / && timeout 20 bash "$svc" start 2>&1) || fail "svc.sh start failed: $out"
status=/run/svc/status
[ -f "$status" ] || fail "no $status after start"
get() { sed -n "s/^$1=//p" "$status"; }
[ "$(get state)" = running ] || fail "state is not running"
pid=$(cat /run/svc/svc.pid 2>/dev/null)
[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || fail "the service process is not running"
[ "$(get port)" = 8081 ] || fail "port is $(get port), not 8081"
workers=$(get workers)
[[ "$workers" =~ ^[0-9]+$ ]] && [ "$workers" -ge 1 ] && [ "$workers" -le 8 ] || fail "workers is $workers"
[ "$(get mode)" = production ] || fail "mode is $(get mode), not production"
log=$(get log_file)
case "$log" in /var/log/svc/*.log) ;; *) fail "log_file is $log" ;; esac
[ "$log" = "$log_file" ] || fail "the service logs to $log, not to the configured $log_file"
[ -f "$log" ] || fail "no log file $log"
after=$(wc -l < "$log")
[ "$after" -eq $((before + 1)) ] || fail "the start did not append one line to $log"
tail -n 1 "$log" | grep -q "svc started mode=production port=8081 workers=$workers$" || fail "unexpected log line: $(tail -n 1 "$log")"
[ "$(cd / && bash "$svc" status 2>&1)" = "svc: running" ] || fail "svc.sh status does not say running"
bash "$svc" stop > /dev/null 2>&1
echo PASS; echo 1 > /logs/verifier/reward.txt
