#!/bin/bash
set -e
log=/app/logs/auth.log
# failed password attempts per IP (a "message repeated N times" entry counts N)
read -r failures ip < <(awk '/Failed password/ {
    n = 1
    if (match($0, /message repeated [0-9]+ times/)) { split(substr($0, RSTART, RLENGTH), w, " "); n = w[3] }
    for (i = 1; i <= NF; i++) if ($i == "from") addr = $(i + 1)
    count[addr] += n
  }
  END { for (a in count) print count[a], a }' "$log" | sort -k1,1nr | head -n 1)
first=$(awk -v ip="$ip" '/ Accepted / { for (i = 1; i <= NF; i++) if ($i == "from" && $(i + 1) == ip) { print $1; exit } }' "$log")
printf 'ip=%s\nfailures=%s\nfirst_success=%s\n' "$ip" "$failures" "$first" > /app/answer.txt
