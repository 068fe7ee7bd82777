#!/usr/bin/env bash
# Admits the package folders under DIR with the mechanical gates (envforge admit --skip
# self-review,calibration,novelty,decontamination), JOBS at a time, and tallies the verdicts.
#   scripts/admit-folders.sh DIR VERDICTS [COUNT]
# COUNT (default: all) takes a fixed pseudo-random subset: the first COUNT folders in the order of
# the sha256 of their names, the same on every machine. One verdict per package lands in
# VERDICTS/<name>.json (envforge admit --json); the tally (admitted, and rejections per gate and
# reason) is printed at the end and written to VERDICTS/tally.json. A package whose verdict is
# already in VERDICTS is not admitted again (rerun, or raise COUNT, to resume). Environment: JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:?usage: scripts/admit-folders.sh DIR VERDICTS [COUNT]}"
verdicts="${2:?usage: scripts/admit-folders.sh DIR VERDICTS [COUNT]}"
count="${3:-0}"
mkdir -p "$verdicts"
folders=()
while IFS= read -r line; do folders+=("${line#* }"); done < <(
  for folder in "$dir"/*/; do
    [ -f "$folder/env.json" ] || continue
    name="$(basename "$folder")"
    printf '%s %s\n' "$(printf '%s' "$name" | sha256sum | cut -c1-16)" "${folder%/}"
  done | sort | { if [ "$count" -gt 0 ]; then head -n "$count"; else cat; fi }
)
printf '[admit-folders] admitting %d packages of %s, %s at a time\n' "${#folders[@]}" "$dir" "${JOBS:-2}" >&2
printf '%s\n' "${folders[@]}" | xargs -P "${JOBS:-2}" -I{} sh -c '
  name="$(basename "$1")"
  [ -s "$2/$name.json" ] && exit 0
  ./bin/envforge.js admit "$1" --skip self-review,calibration,novelty,decontamination --json > "$2/$name.json" 2> "$2/$name.stderr" || true
' sh {} "$verdicts"
for folder in "${folders[@]}"; do cat "$verdicts/$(basename "$folder").json"; done | jq -s '{
  packages: length,
  admitted: map(select(.admitted)) | length,
  rejected: map(select(.admitted | not) | "\(.gate) / \(.reason)") | group_by(.) | map({(.[0]): length}) | add
}' | tee "$verdicts/tally.json"
