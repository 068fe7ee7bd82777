#!/bin/bash
# Finds the category and amount columns by name, strips the quotes, adds up per category.
awk -F, '
  { for (i = 1; i <= NF; i++) gsub(/"/, "", $i) }
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  { total[$(col["category"])] += $(col["amount"]) }
  END { for (c in total) printf "%s,%.2f\n", c, total[c] }
' /app/data/sales.csv | LC_ALL=C sort -t, -k1,1 > /tmp/totals.body
{ echo "category,total"; cat /tmp/totals.body; } > /app/totals.csv
