#!/bin/bash
# Helpers for the end-to-end test files tests/e2e/tNN_*.sh (bash).
#
# HOW A TEST FILE RUNS
#   run.sh starts ONE cluster (cluster.sh), then runs each tests/e2e/t[0-9][0-9]_*.sh
#   in order as its own process: `timeout 900 bash tNN_name.sh` (a hang guard), with the cluster's
#   variables exported (SLURM_CONF, E2E_DIR, E2E_NODE, E2E_PARTITION, E2E_USER, E2E_UID,
#   E2E_WORK, E2E_STATE, E2E_PLUGIN, E2E_SBIND, E2E_MODE, E2E_CPUS, E2E_NCPUS, E2E_ROOT, E2E_BUILD;
#   see cluster.sh) and E2E_RESULTS (the file the verdicts go to). The file's commands
#   run as root; jobs are submitted as the unprivileged $E2E_USER with run_as_user.
#   Between files run.sh cancels every job, waits for an empty queue, restores the
#   default plugstack.conf and counts a failure when the node was left drained or the
#   file exited non-zero (or timed out) without recording a failure itself.
#   A file started directly (`bash tests/e2e/t00_cluster.sh`) starts its own cluster
#   and prints its own summary; run.sh accepts name filters: `sh tests/e2e/run.sh t00`
#   or paths. E2E_PLUGSTACK_ARGS gives both the default plugin arguments (state_dir=
#   $E2E_STATE is always added). More in docs/testing.md.
#
# A TEST FILE
#   #!/bin/bash
#   # t20_example.sh: what it proves
#   . "$(dirname "$0")/lib.sh"
#   need_plugin                       # skips the whole file when the .so is not built
#   out=$(run_as_user srun -n2 --binding=linear:1 grep Cpus_allowed_list /proc/self/status)
#   assert_eq 2 "$(echo "$out" | sort -u | wc -l)" "two tasks on different cpus"
#   job=$(sbatch_as_user -n2 --wrap 'sleep 30') || e2e_fail "sbatch refused"
#   assert_eq RUNNING "$(wait_job_state "$job" RUNNING)" "job $job runs"
#   scancel "$job"
#   e2e_done
#
# VERDICTS (each is one counted result: "pass|fail|skip <file> <message>")
#   e2e_pass MSG / e2e_fail MSG / e2e_skip MSG
#   e2e_note MSG                      prints an indented note, counts nothing
#   e2e_done                          ends the file: exit 1 if it recorded a failure
#   need_plugin                       e2e_skip + exit 0 when $E2E_PLUGIN is empty
#   need_cgroup                       e2e_skip + exit 0 unless E2E_MODE=cgroup-v1
# ASSERTIONS (each records pass or fail; returns 0/1 so `|| ...` works)
#   assert_eq EXPECTED ACTUAL MSG     assert_ne UNEXPECTED ACTUAL MSG
#   assert_contains TEXT NEEDLE MSG   assert_not_contains TEXT NEEDLE MSG
#   assert_match TEXT ERE MSG         (grep -E on any line)
#   assert_cpus_within LIST DOMAIN MSG LIST (e.g. "1" or "0-1") is non-empty and inside DOMAIN
#   assert_ok MSG CMD...              CMD exits 0;   output (stdout+stderr) in $E2E_OUT
#   assert_fails MSG CMD...           CMD exits != 0; output in $E2E_OUT, rc in $E2E_RC
# RUNNING THINGS AS THE JOB USER
#   run_as_user CMD...                as $E2E_USER, cwd $E2E_WORK, clean env + SLURM_CONF
#                                     (extra variables: run_as_user env FOO=1 srun ...)
#   user_file NAME < CONTENT          writes $E2E_WORK/NAME (user-owned, 0755), prints path
#   sbatch_as_user ARGS...            sbatch --parsable as the user; prints the job id
# JOBS AND QUEUE
#   job_field JOBID FIELD             a field of `scontrol show job` (JobState, ExitCode, ...)
#   job_state JOBID                   JobState (empty when the job is unknown)
#   wait_job_state JOBID STATE [S=30] waits for STATE (or an end state); prints the state
#   wait_job_done JOBID [S=60]        waits for an end state; prints it (COMPLETED, FAILED, ...)
#   job_pids JOBID[.STEP]             pids of the job's (step's) processes on the node,
#                                     via scontrol listpids; tasks only: job_task_pids
#   job_task_pids JOBID.STEP          pids of the step's tasks, in task (local id) order
#   step_pids JOBID.STEP N [S=20]     waits for N task pids past exec, prints them
#   squeue_empty                      true when squeue lists no job
#   wait_squeue_empty [S=30]          waits for that
#   cancel_all_jobs                   scancel everything, wait for an empty queue
# FILES, CPUS, /proc
#   wait_for_file PATH [S=20] [ERE]   waits until PATH exists (and has a line matching ERE)
#   wait_until S CMD...               polls CMD every 0.1 s until it succeeds
#   (every S here is a hang guard: at least E2E_WAIT_MIN=120 s, see cluster.sh)
#   cpus_allowed_of PID               Cpus_allowed_list of /proc/PID/status ("0-1")
#   mems_allowed_of PID               Mems_allowed_list
#   cpulist_expand LIST               "0-2,5" -> "0 1 2 5"
#   cpulist_count LIST                number of cpus in LIST
#   cpulist_within LIST DOMAIN        true when every cpu of LIST is in DOMAIN
# CLUSTER (from cluster.sh)
#   cluster_plugstack ARGS...         rewrite plugstack.conf (state_dir=$E2E_STATE added
#                                     unless given); next srun/sbatch/slurmstepd read it
#   cluster_restart_slurmd            slurmd re-reads plugstack (prolog/epilog callbacks)
#   cluster_logs [LINES]              print the daemons' log tails to stderr
# EXAMPLES IN THE DOCS (docs/testing.md, "Examples in the docs")
#   doc_block NAME < TEXT             TEXT ("$ command" lines and what they printed) is
#                                     the block a doc marks <!-- example: e2e NAME NODE -->:
#                                     written to $E2E_BUILD/doc-examples/NAME.txt with this
#                                     node's topology string (the cluster's dir and node
#                                     name made generic), then compared with the doc's
#                                     block by scripts/doc-examples: pass, fail (the diff),
#                                     or skip when the doc's block was made on another node
# Nothing here uses `set -e`: a failed assertion records a failure and the file goes on.

# shellcheck source=tests/e2e/cluster.sh
. "$(dirname "${BASH_SOURCE[0]}")/cluster.sh"

E2E_TEST=$(basename "$0" .sh)
_e2e_file_failed=0

e2e_note() { echo "       $*"; }

_e2e_record() {	# VERDICT MSG
	local v=$1; shift
	case "$v" in
	pass) echo "  ok   $*" ;;
	fail) echo "  FAIL $*"; _e2e_file_failed=1 ;;
	skip) echo "  skip $*" ;;
	esac
	echo "$v $E2E_TEST $*" >>"$E2E_RESULTS"
}
e2e_pass() { _e2e_record pass "$*"; }
e2e_fail() { _e2e_record fail "$*"; return 1; }
e2e_skip() { _e2e_record skip "$*"; }
e2e_done() { exit "$_e2e_file_failed"; }

doc_block() {
	local name=$1 dir=$E2E_BUILD/doc-examples node out rc
	node=$("$E2E_BUILD/sbind" topology --state "$E2E_STATE" --format sge 2>/dev/null | tr '[:lower:]' '[:upper:]')
	mkdir -p "$dir" || { e2e_fail "doc example $name: cannot make $dir"; return 1; }
	{
		echo "# node: $node"
		sed -e "s|$E2E_DIR|/tmp/binding-e2e.XXXXXX|g" -e "s|$E2E_NODE|e2e-node|g"
	} >"$dir/$name.txt"
	out=$(sh "$(dirname "${BASH_SOURCE[0]}")/../../scripts/doc-examples" e2e "$name" "$dir/$name.txt" 2>&1)
	rc=$?
	case $rc in
	0) e2e_pass "doc example $name: the doc shows what this run printed" ;;
	3) e2e_skip "doc example $name: $out" ;;
	*) printf '%s\n' "$out" | sed 's/^/       /'
	   e2e_fail "doc example $name: the doc's block differs from this run's $dir/$name.txt (make doc-examples writes it)" ;;
	esac
}

need_plugin() {
	[ -n "${E2E_PLUGIN:-}" ] && return 0
	e2e_skip "$E2E_TEST: build/spank_binding.so not built"
	exit 0
}

need_cgroup() {
	[ "${E2E_MODE:-}" = cgroup-v1 ] && return 0
	e2e_skip "$E2E_TEST: needs cgroup v1 (mode here: ${E2E_MODE:-unknown})"
	exit 0
}

assert_eq() {
	if [ "$1" = "$2" ]; then e2e_pass "$3"; else e2e_fail "$3: expected '$1', got '$2'"; fi
}
assert_ne() {
	if [ "$1" != "$2" ]; then e2e_pass "$3"; else e2e_fail "$3: got '$2', which it must not be"; fi
}
assert_contains() {
	case "$1" in
	*"$2"*) e2e_pass "$3" ;;
	*) e2e_fail "$3: '$2' not in: $(printf '%s' "$1" | head -c 600)" ;;
	esac
}
assert_not_contains() {
	case "$1" in
	*"$2"*) e2e_fail "$3: '$2' found in: $(printf '%s' "$1" | head -c 600)" ;;
	*) e2e_pass "$3" ;;
	esac
}
assert_match() {
	if printf '%s\n' "$1" | grep -qE -- "$2"; then e2e_pass "$3"
	else e2e_fail "$3: no line matches /$2/ in: $(printf '%s' "$1" | head -c 600)"; fi
}
assert_cpus_within() {
	if cpulist_within "$1" "$2"; then e2e_pass "$3 ('$1' within $2)"
	else e2e_fail "$3: cpus '$1' not within $2"; fi
}
assert_ok() {
	local msg=$1; shift
	E2E_OUT=$("$@" 2>&1); E2E_RC=$?
	if [ "$E2E_RC" -eq 0 ]; then e2e_pass "$msg"
	else e2e_fail "$msg: '$*' exited $E2E_RC: $(printf '%s' "$E2E_OUT" | head -c 600)"; fi
}
assert_fails() {
	local msg=$1; shift
	E2E_OUT=$("$@" 2>&1); E2E_RC=$?
	if [ "$E2E_RC" -ne 0 ]; then e2e_pass "$msg"
	else e2e_fail "$msg: '$*' succeeded: $(printf '%s' "$E2E_OUT" | head -c 600)"; fi
}

user_file() {
	local f=$E2E_WORK/$1
	cat >"$f" && chown "$E2E_USER:" "$f" && chmod 755 "$f" && echo "$f"
}

sbatch_as_user() {
	local out rc
	out=$(run_as_user sbatch --parsable "$@" 2>&1); rc=$?
	if [ $rc -ne 0 ]; then echo "$out" >&2; return $rc; fi
	echo "${out%%;*}"
}

job_field() {
	scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}
job_state() { job_field "$1" JobState; }

_e2e_end_state() {
	case "$1" in
	COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|PREEMPTED|BOOT_FAIL|DEADLINE) return 0 ;;
	esac
	return 1
}

# The waits below are predicates on wait_until (cluster.sh): one deadline
# and one nap for every poll. A predicate runs in the caller's shell, so it
# leaves what it read in the caller's local variable.
_job_state_is() {	# JOBID STATE: sets s; 2 (give up) once the job has ended otherwise
	s=$(job_state "$1")
	[ "$s" = "$2" ] && return 0
	_e2e_end_state "$s" && return 2
	return 1
}
wait_job_state() {	# JOBID STATE [SECONDS]
	local s=
	wait_until "${3:-30}" _job_state_is "$1" "$2"
	echo "$s"
	[ "$s" = "$2" ]
}

_job_ended() { s=$(job_state "$1"); _e2e_end_state "$s"; }	# JOBID: sets s
wait_job_done() {	# JOBID [SECONDS]
	local s=
	wait_until "${2:-60}" _job_ended "$1" && { echo "$s"; return 0; }
	echo "${s:-UNKNOWN}"
	return 1
}

job_pids() {
	scontrol listpids "$1" "$E2E_NODE" 2>/dev/null | awk 'NR > 1 { print $1 }'
}

# scontrol lists a task it has not forked yet with pid -1: only real pids.
job_task_pids() {
	scontrol listpids "$1" "$E2E_NODE" 2>/dev/null |
		awk 'NR > 1 && $4 ~ /^[0-9]+$/ && $1 > 0 { print $4, $1 }' | sort -n | awk '{ print $2 }'
}

# step_pids JOB.STEP N [SECONDS=20]: waits until the step has N task pids
# whose program is no longer the shell slurmstepd forked (exec done), then
# prints them in local task order.
_step_started() {	# JOB.STEP N: sets pids
	local p
	pids=$(job_task_pids "$1" | tr '\n' ' ')
	pids=${pids% }
	[ "$(printf '%s\n' "$pids" | wc -w)" -eq "$2" ] || return 1
	for p in $pids; do
		[ "$(cat /proc/"$p"/comm 2>/dev/null)" = slurmstepd ] && return 1
	done
	return 0
}
step_pids() {
	local pids=
	wait_until "${3:-20}" _step_started "$1" "$2" && { echo "$pids"; return 0; }
	echo "$pids"
	return 1
}

_file_has() {	# PATH [ERE]
	[ -e "$1" ] || return 1
	[ -z "${2:-}" ] && return 0
	grep -qE -- "$2" "$1" 2>/dev/null
}
wait_for_file() { wait_until "${2:-20}" _file_has "$1" "${3:-}"; }	# PATH [SECONDS] [ERE]

# Shell builtins only, here and in the cpu list helpers below: each program
# started costs about 80 ms in the guest node (TCG), and the guest's checks
# call these for every task.
_status_field() {	# PID FIELD
	local k v
	{ while read -r k v; do
		[ "$k" = "$2:" ] && { echo "$v"; return 0; }
	done <"/proc/$1/status"; } 2>/dev/null
	return 1
}
cpus_allowed_of() { _status_field "$1" Cpus_allowed_list; }
mems_allowed_of() { _status_field "$1" Mems_allowed_list; }

# A cpu list ("0-3,8,10-11") as its numbers, ascending, one space apart. A
# token that is not a number or a range is kept as "?TOKEN", so that a list
# holding one never equals, nor lies within, a list of cpus.
cpulist_expand() {
	local -a set=() odd=()
	local part a b i IFS=,
	for part in $1; do
		if [[ $part =~ ^[0-9]+$ ]]; then
			set[10#$part]=1
		elif [[ $part =~ ^([0-9]+)-([0-9]+)$ ]]; then
			a=$((10#${BASH_REMATCH[1]})) b=$((10#${BASH_REMATCH[2]}))
			for ((i = a; i <= b; i++)); do set[i]=1; done
		elif [ -n "$part" ]; then
			odd+=("?$part")
		fi
	done
	IFS=' '
	# an indexed array's keys come out in ascending order
	set -- "${!set[@]}" "${odd[@]}"
	echo "$*"
}

cpulist_count() { local -a c; read -r -a c <<<"$(cpulist_expand "$1")"; echo "${#c[@]}"; }

# The same CPUs, whatever the order or ranges each list is written in
# ("8-11,0-1" and "0-1,8-11" are one set).
cpulist_same() { [ "$(cpulist_expand "$1")" = "$(cpulist_expand "$2")" ]; }

cpulist_within() {
	local c dom mine
	dom=" $(cpulist_expand "$2") " mine=$(cpulist_expand "$1")
	for c in $mine; do
		case "$c" in "?"*) return 1 ;; esac
		case "$dom" in *" $c "*) ;; *) return 1 ;; esac
	done
	[ -n "$mine" ]
}

# Started directly, not by run.sh: own cluster, own summary.
if [ -z "${E2E_DIR:-}" ]; then
	E2E_RESULTS=$(mktemp /tmp/binding-e2e-results.XXXXXX)
	export E2E_RESULTS
	# shellcheck disable=SC2086 # words on purpose: several plugin arguments
	cluster_start ${E2E_PLUGSTACK_ARGS:-} || { rm -f "$E2E_RESULTS"; exit 1; }
	_e2e_standalone_end() {
		local rc=$?
		cluster_stop
		awk '{ n[$1]++ } END { printf "%s: %d passed, %d failed, %d skipped\n", t, n["pass"], n["fail"], n["skip"] }' \
			t="$E2E_TEST" "$E2E_RESULTS"
		grep -q '^fail ' "$E2E_RESULTS" && rc=1
		rm -f "$E2E_RESULTS"
		exit $rc
	}
	trap _e2e_standalone_end EXIT
	trap 'exit 130' INT TERM
fi
: "${E2E_RESULTS:=/dev/null}"
