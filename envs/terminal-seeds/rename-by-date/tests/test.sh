#!/bin/bash
# Checks the renamed photos under /app/photos; writes 1 or 0 to /logs/verifier/reward.txt.
fail() { echo "FAIL: $1"; echo 0 > /logs/verifier/reward.txt; exit 0; }
[ -d /app/photos ] || fail "no /app/photos"
# new path|original name
expected_moves='
/app/photos/2021-09-09_old house.jpg|old house.jpg
/app/photos/2022-11-03_birthday party.jpg|birthday party.jpg
/app/photos/2022-12-28_trip-2023.jpg|trip-2023.jpg
/app/photos/2023/2023-01-01_fireworks.jpg|fireworks.jpg
/app/photos/2023/2023-02-01_cat.png|cat.png
/app/photos/2023/2023-06-05_garden.jpg|garden.jpg
/app/photos/2023/2023-07-14_beach.jpg|beach.jpg
/app/photos/2023/2023-12-31_sunset.jpg|sunset.jpg
/app/photos/2024-01-01_snow.jpg|snow.jpg
/app/photos/2024-01-12_dog.png|dog.png
'
while IFS='|' read -r path name; do
  [ -n "$path" ] || continue
  [ -f "$path" ] || fail "missing $path"
  [ "$(cat "$path")" = "photo:$name" ] || fail "contents of $path are not those of $name"
done <<< "$expected_moves"
expected_listing="$( { echo /app/photos/2023; echo /app/photos/README.txt; echo /app/photos/index.csv;
  printf '%s\n' "$expected_moves" | cut -d'|' -f1 | grep -v '^$'; } | LC_ALL=C sort)"
actual_listing="$(find /app/photos -mindepth 1 | LC_ALL=C sort)"
if [ "$actual_listing" != "$expected_listing" ]; then
  echo "expected:"; echo "$expected_listing"; echo "got:"; echo "$actual_listing"
  fail "the files under /app/photos differ"
fi
[ "$(cat /app/photos/README.txt)" = "Holiday photos. index.csv lists when each one was taken." ] || fail "README.txt changed"
[ "$(sha256sum /app/photos/index.csv | cut -d' ' -f1)" = "3b3f9949f09e27f0eba806a96ca9e6cc2502e88cf06de17b14b72dea2e804397" ] || fail "index.csv changed"
echo PASS; echo 1 > /logs/verifier/reward.txt
