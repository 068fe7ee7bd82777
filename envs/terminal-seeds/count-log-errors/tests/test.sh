#!/bin/bash
# Checks /app/report.txt; writes 1 or 0 to /logs/verifier/reward.txt.
fail() { echo "FAIL: $1"; echo 0 > /logs/verifier/reward.txt; exit 0; }
f=/app/report.txt
[ -f "$f" ] || fail "no $f"
[ "$(sha256sum /app/logs/app.log | cut -d' ' -f1)" = "55a79c2340cfebfcfb21cd26879212a6d99ee1ca244eef9e2eef6377f06edb97" ] || fail "the log was modified"
expected='billing 23
db 23
auth 17
api 9
search 9
worker 4
mailer 1'
actual="$(cat "$f")"
if [ "$actual" != "$expected" ]; then
  echo "expected:"; echo "$expected"; echo "got:"; echo "$actual"
  fail "report differs"
fi
echo PASS; echo 1 > /logs/verifier/reward.txt
