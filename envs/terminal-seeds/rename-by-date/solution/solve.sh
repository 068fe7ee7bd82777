#!/bin/bash
set -e
cd /app/photos
mkdir -p 2023
tail -n +2 index.csv | while IFS=, read -r name date; do
  [ -n "$name" ] || continue
  IFS=/ read -r day month year <<< "$date"
  new="${year}-${month}-${day}_${name}"
  if [ "$year" = "2023" ]; then mv -- "$name" "2023/$new"; else mv -- "$name" "$new"; fi
done
