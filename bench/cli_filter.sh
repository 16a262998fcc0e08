#!/bin/bash
# Cost of the cli_filter (`make bench`): on a private cluster
# (tests/e2e/cluster.sh), 20 rounds of `srun -n2 --binding=linear:1 true` as
# the job user, each round once without Slurm's cli_filter/lua, once with
# the project's cli_filter.lua calling the translation module
# (spank_binding_submit.so, in the process), and once with it running
# `sbind submit` instead (sh -c + sbind: what the script falls back to);
# and once with an empty cli_filter.lua (Slurm's own cost of cli_filter/lua,
# which no script avoids). Prints the medians of the wall time and of the
# cpu time (user + system of srun and every child it waited for, which a
# loaded machine inflates far less than the wall time), the ratios to the
# run without a filter and the differences (goal: the filter adds at most
# 5 ms); and `sh -c true`, the anchor of one fork and exec, in the same
# run. With the module, a numamem site too (issue 29, docs/memory.md): the
# node offers its numamem GRES (sbind gres-conf), and `srun -n2
# --binding=linear:1 --mbind=cores:strict --mem=100 true` runs through the
# module once with numamem=no and once with numamem=yes in plugstack.conf
# (the filter then reads slurm.conf's node lines and adds
# --gres=numamem:...): the difference is what a numamem site's srun pays.
# Rounds interleave the kinds, spreading machine noise over all; nothing
# here is asserted. Needs root and Slurm; otherwise says why and exits 0.
# Environment: FILTER_ROUNDS (default 20), cluster.sh's knobs.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
here=$(cd "$(dirname "$0")" && pwd)
rounds=${FILTER_ROUNDS:-20}

# shellcheck source=bench/cluster_bench.sh
. "$here/cluster_bench.sh"
# shellcheck source=bench/stats.sh
. "$here/stats.sh"
bench_cluster cli_filter
if [ ! -x "$E2E_BUILD/sbind" ] || [ ! -f "$E2E_BUILD/cli_filter.lua" ]; then
	echo "bench cli_filter: skipped (sbind or cli_filter.lua not built)"
	exit 0
fi
have_module=0
[ -f "$E2E_BUILD/spank_binding_submit.so" ] && have_module=1

# "wall cpu" of one srun of KIND in microseconds (bash's time), or "fail".
one() {
	local t args="-n2 --binding=linear:1"
	case $1 in mbind|numamem) args="$args --mbind=cores:strict --mem=100" ;; esac
	# shellcheck disable=SC2086 # srun's arguments
	t=$( { TIMEFORMAT='%3R %3U %3S'; time run_as_user srun $args true \
		>/dev/null 2>&1; } 2>&1) || { echo fail; return; }
	# shellcheck disable=SC2086 # three words
	set -- $t
	awk -v r="$1" -v u="$2" -v s="$3" 'BEGIN { printf "%d %d", r * 1e6, (u + s) * 1e6 }'
}
anchor() {	# microseconds of one sh -c true
	local t0 t1
	t0=${EPOCHREALTIME/[.,]/}
	sh -c true
	t1=${EPOCHREALTIME/[.,]/}
	echo $((t1 - t0))
}

setup() {	# none | module | sbind | empty | mbind | numamem
	# shellcheck disable=SC2086 # the default plugin arguments, several words
	case $1 in
	numamem) cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} numamem=yes ;;
	*) cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} ;;
	esac
	case $1 in
	none) cluster_cli_filter off ;;
	module|mbind|numamem) E2E_CLI_FILTER_MODULE="$E2E_DIR/lib/spank_binding_submit.so" cluster_cli_filter on ;;
	sbind) E2E_CLI_FILTER_MODULE="" cluster_cli_filter on ;;
	empty)
		cluster_cli_filter on
		printf '%s\n' 'function slurm_cli_setup_defaults(o, e) return slurm.SUCCESS end' \
			'function slurm_cli_pre_submit(o, off) return slurm.SUCCESS end' \
			'function slurm_cli_post_submit(off, j, s) return slurm.SUCCESS end' \
			>"$E2E_DIR/cli_filter.lua" ;;
	esac
}

kinds="none empty sbind"
if [ "$have_module" = 1 ]; then
	kinds="none empty module sbind"
	cluster_numamem on --state "$E2E_STATE" >/dev/null 2>&1 && kinds="$kinds mbind numamem" ||
		echo "cli_filter: the numamem site left out (the node would not offer numamem)"
fi
tmp=$(mktemp -d /tmp/bench-cli-filter.XXXXXX)
for k in $kinds; do setup "$k"; one "$k" >/dev/null; : >"$tmp/$k"; done
# What is measured must be what it says: the numamem site's srun asks Slurm
# for numamem (srun -v prints the filter's additions).
case " $kinds " in *" numamem "*)
	setup numamem
	if ! run_as_user srun -v -n2 --binding=linear:1 --mbind=cores:strict --mem=100 true 2>&1 | grep -q 'gres=numamem'; then
		echo "cli_filter: the numamem site left out (its srun asked for no numamem)"
		kinds=${kinds% mbind numamem}
	fi ;;
esac
: >"$tmp/anchor"
fails=0
for _ in $(seq 1 "$rounds"); do
	for k in $kinds; do
		setup "$k"
		r=$(one "$k")
		if [ "$r" = fail ]; then fails=$((fails + 1)); else echo "$r" >>"$tmp/$k"; fi
	done
	anchor >>"$tmp/anchor"
done
cluster_cli_filter off
cluster_numamem off >/dev/null 2>&1
wall() { awk '{ print $1 }' "$tmp/$1" | median; }
cpu() { awk '{ print $2 }' "$tmp/$1" | median; }
an=$(median <"$tmp/anchor")
echo "cli_filter: $rounds rounds of srun -n2 --binding=linear:1 true ($E2E_MODE); sh -c true (the anchor): median $(ms "$an") ms"
line() {	# KIND WHAT BASE: the medians of KIND and their ratio to BASE's
	local w c wb cb
	w=$(wall "$1") c=$(cpu "$1") wb=$(wall "$3") cb=$(cpu "$3")
	printf 'cli_filter: %-44s wall %7s ms (x%s, %+.1f ms)  cpu %6s ms (x%s, %+.1f ms)\n' "$2" \
		"$(ms "$w")" "$(awk -v a="$wb" -v b="$w" 'BEGIN { printf "%.3f", b / a }')" \
		"$(awk -v a="$wb" -v b="$w" 'BEGIN { print (b - a) / 1000 }')" "$(ms "$c")" \
		"$(awk -v a="$cb" -v b="$c" 'BEGIN { printf "%.3f", b / a }')" \
		"$(awk -v a="$cb" -v b="$c" 'BEGIN { print (b - a) / 1000 }')"
}
for k in $kinds; do
	case $k in
	none) line none "without a cli_filter" none ;;
	empty) line empty "an empty cli_filter.lua (Slurm's own cost)" none ;;
	module) line module "cli_filter.lua, the module in process" none ;;
	sbind) line sbind "cli_filter.lua running sbind submit" none ;;
	mbind) echo "cli_filter: --mbind=cores:strict --mem=100, the module in process:" ;;
	numamem) line mbind "numamem=no (the base of the next line)" mbind
		line numamem "numamem=yes: adds --gres=numamem" mbind ;;
	esac
done
[ "$fails" -gt 0 ] && echo "cli_filter: $fails failed runs left out"
echo "cli_filter: goal: the filter adds at most 5 ms to an srun"
rm -rf "$tmp"
