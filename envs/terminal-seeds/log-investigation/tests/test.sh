#!/bin/bash
# Checks /app/answer.txt; writes 1 or 0 to /logs/verifier/reward.txt.
fail() { echo "FAIL: $1"; echo 0 > /logs/verifier/reward.txt; exit 0; }
f=/app/answer.txt
[ -f "$f" ] || fail "no $f"
[ "$(sha256sum /app/logs/auth.log | cut -d' ' -f1)" = "8ccff8b0438357e0e0b620ecc326f3e6d8fbe1bb2a9a9c991e769d5c73d4cde7" ] || fail "the log was modified"
# trailing spaces and carriage returns are forgiven, nothing else
actual="$(sed 's/[[:space:]]*$//' "$f")"
[ "$(echo "$actual" | grep -c '^ip=')" = 1 ] || fail "expected one ip= line"
[ "$(echo "$actual" | sed -n 's/^ip=//p')" = "203.0.113.4" ] || fail "wrong ip"
[ "$(echo "$actual" | sed -n 's/^failures=//p')" = "41" ] || fail "wrong failures"
[ "$(echo "$actual" | sed -n 's/^first_success=//p')" = "2024-03-03T08:28:32+00:00" ] || fail "wrong first_success"
expected='ip=203.0.113.4
failures=41
first_success=2024-03-03T08:28:32+00:00'
[ "$actual" = "$expected" ] || fail "answer.txt must hold exactly the three lines ip=, failures=, first_success= in that order"
echo PASS; echo 1 > /logs/verifier/reward.txt
