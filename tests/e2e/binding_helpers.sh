#!/bin/bash
# Helpers shared by the plugin's end-to-end files (t10-t16), sourced after
# lib.sh. They start user jobs in the background and read what the running
# tasks really got from /proc.

# bg_srun NAME SRUN-ARGS...: srun as the job user in the background, named
# NAME (so it can be found), output in $E2E_WORK/NAME.out.
# Its pid is added to BG_PIDS for wait_bg (a bare `wait` would also wait
# for the cluster's daemons when the file started its own cluster).
BG_PIDS=
bg_srun() {
	local name=$1; shift
	run_as_user srun -J "$name" "$@" >"$E2E_WORK/$name.out" 2>&1 &
	BG_PIDS="$BG_PIDS $!"
}

# wait_bg: waits for every bg_srun; prints nothing, returns 0.
wait_bg() {
	local p
	for p in $BG_PIDS; do wait "$p" 2>/dev/null; done
	BG_PIDS=
	return 0
}

# job_named NAME [SECONDS=20]: the id of the running job called NAME.
_job_running_named() { id=$(squeue -h -n "$1" -t R -o %i 2>/dev/null | head -1); [ -n "$id" ]; }	# NAME: sets id
job_named() {
	local id=
	wait_until "${2:-20}" _job_running_named "$1" && echo "$id"
}

# jobs_known: every job id the controller knows, finished ones too (MinJobAge
# keeps them listed), to prove that a refused submission queued nothing.
jobs_known() { squeue -h -t all -o %i 2>/dev/null | sort -n | tr '\n' ' '; }

# task_env PID NAME: NAME from the environment the task was started with.
task_env() {
	tr '\0' '\n' 2>/dev/null <"/proc/$1/environ" | sed -n "s/^$2=//p" | head -1
}

# task_has_env PID NAME: true when NAME is in the task's environment at all.
task_has_env() {
	tr '\0' '\n' 2>/dev/null <"/proc/$1/environ" | grep -q "^$2="
}

# pid_from_file PATH [SECONDS=20]: a pid a job script wrote, once it is there.
pid_from_file() {
	wait_for_file "$1" "${2:-20}" '^[0-9]+$' || return 1
	head -1 "$1"
}

# A state file's records (one line each), "" when none.
state_records() { grep '^rec ' "$E2E_STATE/state" 2>/dev/null; }

# sbind_status [ARGS]: `sbind status` on the cluster's state dir.
# shellcheck disable=SC2120 # arguments are optional
sbind_status() { "$E2E_BUILD/sbind" status --state "$E2E_STATE" "$@"; }

# pass_if MSG CMD...: one verdict from a command's exit status.
pass_if() {
	local msg=$1; shift
	if "$@"; then e2e_pass "$msg"; else e2e_fail "$msg"; fi
}

# One cpu as a plain number when LIST names exactly one.
single_cpu() {
	[ "$(cpulist_count "$1")" -eq 1 ] && cpulist_expand "$1"
}

# The m* files: the two-node cluster with 2 cpus per node, else the file is
# skipped; sets n1 and n2 (the node names) and node_records NODE (that
# node's records, from its private state dir).
need_two_nodes() {
	[ "${E2E_NODES:-1}" = 2 ] || { e2e_skip "$E2E_TEST needs the two-node cluster (E2E_NODES=2)"; e2e_done; }
	[ "$E2E_NCPUS" -ge 2 ] || { e2e_skip "$E2E_TEST needs 2 cpus per node, this host has $E2E_NCPUS"; e2e_done; }
	n1=${E2E_NODE_LIST%% *} n2=${E2E_NODE_LIST##* }
}
node_records() { node_exec "$1" cat "$E2E_STATE/state" 2>/dev/null | grep '^rec '; }
