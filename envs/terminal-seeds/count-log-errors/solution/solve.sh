#!/bin/bash
awk '$2 == "[ERROR]" { service = $3; sub(/:$/, "", service); count[service]++ }
     END { for (s in count) print s, count[s] }' /app/logs/app.log |
  LC_ALL=C sort -k2,2nr -k1,1 > /app/report.txt
