#!/bin/bash
# Checks /app/totals.csv; writes 1 or 0 to /logs/verifier/reward.txt.
fail() { echo "FAIL: $1"; echo 0 > /logs/verifier/reward.txt; exit 0; }
f=/app/totals.csv
[ -f "$f" ] || fail "no $f"
[ "$(sha256sum /app/data/sales.csv | cut -d' ' -f1)" = "2ff47f888dde09f2e1d5445f0046aab2009ef983072174c5aeb1cff1bfbad4e5" ] || fail "sales.csv was modified"
expected='category,total
Books,2404.45
Electronics,2682.21
Garden Tools,3829.49
Home & Kitchen,3760.01
Toys,2534.76'
actual="$(cat "$f")"
if [ "$actual" != "$expected" ]; then
  echo "expected:"; echo "$expected"; echo "got:"; echo "$actual"
  fail "totals differ"
fi
echo PASS; echo 1 > /logs/verifier/reward.txt
