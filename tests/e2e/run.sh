#!/bin/bash
# `make e2e`: starts one private Slurm cluster, runs tests/e2e/t[0-9][0-9]_*.sh in
# order, then a two-node cluster (E2E_NODES=2, cluster.sh) for m[0-9][0-9]_*.sh,
# each as its own bash process bounded by `timeout` (lib.sh explains how
# a test file is written), prints "e2e: N passed, M failed, K skipped", appends
# "e2e N M K" to $BINDING_BUILD/results and stops the cluster.
#   sh tests/e2e/run.sh [NAME...]   only the files whose name starts with a NAME
#   sh tests/e2e/run.sh DIR/tNN_x.sh  that file (any path with a slash), e.g. a draft
# Environment: E2E_TIMEOUT (seconds per file, default 900), E2E_PLUGSTACK_ARGS
# (plugin arguments besides state_dir=), E2E_SKIP (name prefixes of files
# left out, e.g. "t30 t31": make check runs those in a lane of their own),
# E2E_STAGE (the name its results line gets, default e2e), E2E_CR_OF (a
# file name's start and the SelectTypeParameters it runs with, e.g.
# "g:CR_Core c:CR_CPU": the guest node), KEEP_E2E=1, and cluster.sh's knobs.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
here=$(cd "$(dirname "$0")" && pwd)
results_file=${BINDING_BUILD:+$BINDING_BUILD/results}

record() {	# passed failed skipped
	echo "e2e: $1 passed, $2 failed, $3 skipped"
	if [ -n "$results_file" ]; then
		mkdir -p "$(dirname "$results_file")" && echo "${E2E_STAGE:-e2e} $1 $2 $3" >>"$results_file"
	fi
}

skip_all() {
	echo "e2e: skipped ($1)"
	record 0 0 1
	exit 0
}

[ "$(id -u)" = 0 ] || skip_all "needs root to run a private Slurm cluster"
missing=
for b in munged slurmctld slurmd srun sbatch sinfo scontrol squeue scancel; do
	command -v "$b" >/dev/null 2>&1 || missing="$missing $b"
done
[ -z "$missing" ] || skip_all "missing programs:$missing; install munge slurmctld slurmd slurm-client"

skipped_name() {	# FILE: its name starts with one of E2E_SKIP's prefixes
	local p
	for p in ${E2E_SKIP:-}; do
		case "$(basename "$1")" in "$p"*) return 0 ;; esac
	done
	return 1
}
tests=()
[ $# -gt 0 ] || set -- t m
for a in "$@"; do
	case "$a" in
	*/*) [ -f "$a" ] && tests+=("$(cd "$(dirname "$a")" && pwd)/$(basename "$a")") ;;
	*) for t in "$here"/t[0-9][0-9]_*.sh "$here"/m[0-9][0-9]_*.sh; do
		skipped_name "$t" && continue
		case "$(basename "$t")" in "$a"*) [ -f "$t" ] && tests+=("$t") ;; esac
	done ;;
	esac
done

E2E_RESULTS=$(mktemp /tmp/binding-e2e-results.XXXXXX)
export E2E_RESULTS
# shellcheck source=tests/e2e/cluster.sh
. "$here/cluster.sh"
trap 'rm -f "$E2E_RESULTS"' EXIT
# The test runs in the background so that a signal interrupts `wait` at once
# (bash runs traps only between commands); the trap ends that test first.
tpid=
trap 'echo "e2e: interrupted"; [ -n "$tpid" ] && kill -TERM "$tpid" 2>/dev/null && wait "$tpid"; exit 130' INT TERM

# How many failures FILE-NAME has recorded (read in the shell: in the guest
# node each program costs about 80 ms, and this runs twice per file).
fails_of() {	# NAME
	local l n=0
	while IFS= read -r l; do [[ $l == "fail $1 "* ]] && n=$((n + 1)); done <"$E2E_RESULTS"
	echo "$n"
}

run_file() {	# one test file on the running cluster, with the checks after it
	local t=$1 name before after t0 rc state n
	name=${t##*/} name=${name%.sh}
	echo "== $name"
	before=$(fails_of "$name")
	t0=$SECONDS
	timeout -k 5 "${E2E_TIMEOUT:-900}" bash "$t" </dev/null &
	tpid=$!
	wait "$tpid"
	rc=$?
	tpid=
	after=$(fails_of "$name")
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo "fail $name timed out after ${E2E_TIMEOUT:-900} s" >>"$E2E_RESULTS"
		echo "  FAIL $name timed out after ${E2E_TIMEOUT:-900} s"
	elif [ $rc -ne 0 ] && [ "$after" -eq "$before" ]; then
		echo "fail $name exited $rc without recording a failure" >>"$E2E_RESULTS"
		echo "  FAIL $name exited $rc without recording a failure"
	fi
	# The next file starts from an idle node, no jobs, the default plugstack
	# and cli_filter.
	cancel_all_jobs || { echo "fail $name left jobs that scancel did not end" >>"$E2E_RESULTS"
		echo "  FAIL $name left jobs that scancel did not end"; }
	# shellcheck disable=SC2086 # several arguments
	cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-}
	if [ "${E2E_CLI_FILTER:-0}" = 1 ]; then cluster_cli_filter on; else cluster_cli_filter off; fi
	for n in $E2E_NODE_LIST; do
		state=$(sinfo -h -N -n "$n" -o '%T|%E')
		case "$state" in
		drain*|down*|fail*)
			echo "fail $name left the node $n ${state%%|*}: ${state#*|}" >>"$E2E_RESULTS"
			echo "  FAIL $name left the node $n ${state%%|*}: ${state#*|}"
			scontrol update nodename="$n" state=resume >/dev/null 2>&1
			;;
		esac
	done
	echo "   ($name: $((SECONDS - t0)) s)"
}

# The SelectTypeParameters a file needs: E2E_CR_OF maps the start of a
# file's name to one (the guest node: "g:CR_Core c:CR_CPU n:CR_Core_Memory");
# a file it does not name, and every file without it, runs with E2E_CR.
file_cr() {	# FILE
	local f=${1##*/} m
	for m in ${E2E_CR_OF:-}; do
		case "$f" in "${m%%:*}"*) echo "${m#*:}"; return ;; esac
	done
	echo "${E2E_CR:-}"
}

# One cluster per node count: the t files on one node, the m files on two.
# A file that needs other SelectTypeParameters than the file before it
# restarts the cluster's daemons (cluster_select_cr), files in the order given.
for nodes in 1 2; do
	files=()
	for t in "${tests[@]}"; do
		case "${t##*/}" in m[0-9][0-9]_*) [ "$nodes" = 2 ] && files+=("$t") ;;
		*) [ "$nodes" = 1 ] && files+=("$t") ;; esac
	done
	[ ${#files[@]} -gt 0 ] || continue
	[ "$nodes" = 2 ] && echo "== two-node cluster (E2E_NODES=2)"
	# Exported, not a prefix: since bash 5.3 a variable assigned before a
	# function call is gone when it returns, even if the function exports it.
	export E2E_NODES=$nodes
	[ -n "${E2E_CR_OF:-}" ] && export E2E_CR="$(file_cr "${files[0]}")"
	# shellcheck disable=SC2086
	if ! cluster_start ${E2E_PLUGSTACK_ARGS:-}; then
		echo "fail cluster ($nodes node) could not start" >>"$E2E_RESULTS"
		echo "e2e: the private $nodes-node cluster did not start"
		trap 'rm -f "$E2E_RESULTS"' EXIT
		continue
	fi
	trap 'cluster_stop; rm -f "$E2E_RESULTS"' EXIT
	broken=
	for t in "${files[@]}"; do
		cr=$(file_cr "$t")
		if [ -z "$broken" ] && [ "$cr" != "${E2E_CR:-}" ]; then
			echo "== SelectTypeParameters=$cr (slurmctld and slurmd restart)"
			t0=$SECONDS
			if cluster_select_cr "$cr"; then
				echo "   (SelectTypeParameters=$cr: $((SECONDS - t0)) s)"
			else
				broken="the daemons did not restart with SelectTypeParameters=$cr"
				echo "  FAIL $broken"
			fi
		fi
		if [ -n "$broken" ]; then	# each file left counts, and says why
			name=${t##*/} name=${name%.sh}
			echo "fail $name not run: $broken" >>"$E2E_RESULTS"
			echo "  FAIL $name not run: $broken"
			continue
		fi
		run_file "$t"
	done
	grep -q '^fail ' "$E2E_RESULTS" && cluster_logs 40
	cluster_stop
	trap 'rm -f "$E2E_RESULTS"' EXIT
done

read -r p f s < <(awk '{ n[$1]++ } END { print n["pass"] + 0, n["fail"] + 0, n["skip"] + 0 }' "$E2E_RESULTS")
if [ "$f" -gt 0 ]; then
	echo "e2e failures:"
	grep '^fail ' "$E2E_RESULTS" | sed 's/^fail /  /'
fi
record "$p" "$f" "$s"
[ "$f" -eq 0 ]
