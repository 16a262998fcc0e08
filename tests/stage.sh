#!/bin/sh
# One stage of make check's lanes (Makefile, check-guests and check-rest):
#   sh tests/stage.sh RESULTS NAME CMD...
# runs CMD and always exits 0, so that the lane's next stages run too. A
# stage that exits non-zero appends "stage:NAME 0 1 0" to RESULTS: one that
# failed without counting (a compiler error, a crash) still fails the
# summary, and one that counted its failures says which stage they came from.
[ $# -ge 3 ] || { echo "usage: $0 RESULTS NAME CMD..." >&2; exit 2; }
results=$1 name=$2
shift 2
"$@"
rc=$?
if [ $rc -ne 0 ]; then
	echo "stage $name: exited $rc"
	echo "stage:$name 0 1 0" >>"$results"
fi
exit 0
