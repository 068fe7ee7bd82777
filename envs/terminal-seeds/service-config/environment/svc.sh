#!/bin/bash
# svc: a tiny stand-in for a network service.
# usage: svc.sh start|stop|status|check
# Reads /app/service/svc.conf (key=value lines; # starts a comment) and refuses to start on a bad one.
CONF=/app/service/svc.conf
RUN_DIR=/run/svc
STATUS=$RUN_DIR/status
PID_FILE=$RUN_DIR/svc.pid

die() { echo "svc: $*" >&2; exit 1; }

load_config() {
  [ -r "$CONF" ] || die "cannot read $CONF"
  port="" workers="" log_file="" mode=""
  local line key value n=0
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line="${line%%#*}"
    line="$(printf '%s' "$line" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')"
    [ -z "$line" ] && continue
    [[ "$line" == *=* ]] || die "config line $n: not key=value"
    key="$(printf '%s' "${line%%=*}" | sed 's/[[:space:]]*$//')"
    value="$(printf '%s' "${line#*=}" | sed 's/^[[:space:]]*//')"
    case "$key" in
      port) port="$value" ;;
      workers) workers="$value" ;;
      log_file) log_file="$value" ;;
      mode) mode="$value" ;;
      *) die "config line $n: unknown key" ;;
    esac
  done < "$CONF"
}

check_config() {
  [[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -ge 1024 ] && [ "$port" -le 65535 ] || die "E101 bad config"
  [[ "$workers" =~ ^[0-9]+$ ]] && [ "$workers" -ge 1 ] && [ "$workers" -le 8 ] || die "E102 bad config"
  case "$log_file" in
    /var/log/svc/*.log) ;;
    *) die "E103 bad config" ;;
  esac
  [ -d "$(dirname "$log_file")" ] || die "E104 bad config"
  [ "$mode" = production ] || [ "$mode" = staging ] || die "E105 bad config"
}

case "$1" in
  check)
    load_config; check_config; echo "svc: config ok" ;;
  start)
    load_config; check_config
    mkdir -p "$RUN_DIR"
    if [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null; then die "already running"; fi
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) svc started mode=$mode port=$port workers=$workers" >> "$log_file" || die "cannot write $log_file"
    # the "service": a process that stays up until stopped
    setsid bash -c 'while :; do sleep 60; done' < /dev/null > /dev/null 2>&1 &
    echo $! > "$PID_FILE"
    printf 'state=running\nport=%s\nworkers=%s\nmode=%s\nlog_file=%s\n' "$port" "$workers" "$mode" "$log_file" > "$STATUS"
    echo "svc: started" ;;
  stop)
    [ -f "$PID_FILE" ] && kill "$(cat "$PID_FILE")" 2>/dev/null
    rm -f "$PID_FILE"
    [ -f "$STATUS" ] && sed -i 's/^state=.*/state=stopped/' "$STATUS"
    echo "svc: stopped" ;;
  status)
    if [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null; then echo "svc: running"; else echo "svc: stopped"; exit 3; fi ;;
  *)
    die "usage: svc.sh start|stop|status|check" ;;
esac
