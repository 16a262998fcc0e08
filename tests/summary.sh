#!/bin/sh
# Adds up the stages' results: the last line is the project's verdict.
set -u
f=$1
[ -f "$f" ] || { echo "summary: no results"; exit 1; }
# Each stage's length, lane by lane (tests/stage.sh), before the verdict.
[ -f "$f.times" ] && sed 's/^/  /' "$f.times"
awk '{ printf "  %-16s %4d passed, %d failed, %d skipped\n", $1, $2, $3, $4;
       p += $2; x += $3; s += $4 }
     END { printf "%d passed, %d failed, %d skipped\n", p, x, s; exit (x > 0) }' "$f"
