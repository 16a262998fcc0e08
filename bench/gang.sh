#!/bin/bash
# Suspend/resume latency of the plugin (`make bench`): on a private cluster
# (tests/e2e/cluster.sh, plugin verbose), one job of two tasks bound with
# --binding=linear:1 is suspended and resumed GANG_CYCLES (20) times with
# scontrol. Per cycle:
#   released: from `scontrol suspend` to the transaction that released its
#             records (the records' since=, in ms), the later of the
#             batch step and the srun step;
#   rebound:  from `scontrol resume` to the log line saying every task of
#             the srun step was moved back (slurmd log time stamps, ms).
# Goal: p99 <= 100 ms after the freeze/thaw. Slurm freezes (cgroup) or
# SIGSTOPs (linuxproc) 2 s after `scontrol suspend` and thaws within ~30 ms
# of `scontrol resume`, so "released" is counted from the command (the
# freeze is 2 s later) and "rebound" from the command too (an upper bound
# of the time after the thaw). Needs root and Slurm; otherwise says why.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
here=$(cd "$(dirname "$0")" && pwd)
cycles=${GANG_CYCLES:-20}

. "$here/cluster_bench.sh"
bench_cluster gang verbose

now_ms() { date +%s%3N; }
log_ms() {	# "[2026-11-23T21:29:41.295] ..." -> epoch ms
	local ts=${1#[}; ts=${ts%%]*}
	date -d "${ts/T/ } UTC" +%s%3N 2>/dev/null || date -d "${ts/T/ }" +%s%3N
}
records() { grep "^rec job=$1 " "$E2E_STATE/state" 2>/dev/null; }
all_status() { local r; r=$(records "$1"); [ -n "$r" ] && ! echo "$r" | grep -qv " status=$2 "; }
wait_for() {	# SECONDS CMD...
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ $SECONDS -ge "$end" ] && return 1; sleep 0.01; done
}
stat_line() {	# NAME: median and p99 of stdin (ms)
	sort -n | awk -v n="$1" '{ v[NR] = $1 } END {
		if (!NR) { print n ": no samples"; exit }
		p = int((NR - 1) * 0.99) + 1
		printf "%s: median %d ms, p99 %d ms (%d cycles)\n", n, v[int((NR + 1) / 2)], v[p], NR }'
}

job=$(cd "$E2E_WORK" && runuser -u "$E2E_USER" -- env SLURM_CONF="$SLURM_CONF" \
	sbatch --parsable -n2 --binding=linear:1 -o /dev/null --wrap 'srun --cpu-bind=none sleep 3600')
wait_for 60 eval '[ "$(records "$job" | grep -c " status=active ")" = 2 ]' ||
	{ echo "bench gang: job $job never got its two records"; exit 1; }
wait_for 60 grep -q "job $job step 0: watching" "$E2E_DIR/log/slurmd.log" ||
	{ echo "bench gang: no watcher for job $job"; exit 1; }
rel="" reb="" rth="" fails=0
for _ in $(seq 1 "$cycles"); do
	t0=$(now_ms)
	scontrol suspend "$job"
	if ! wait_for 30 all_status "$job" suspended; then fails=$((fails + 1)); continue; fi
	since=$(records "$job" | sed -E 's/.* since=([0-9]+) .*/\1/' | sort -n | tail -1)
	rel="$rel$((since - t0))
"
	# Resume only once Slurm has frozen the step: slurmstepd handles a
	# resume only after its suspend (SIGTSTP, 2 s, freeze) is done.
	frz=/sys/fs/cgroup/freezer/slurm_$E2E_NODE/uid_$E2E_UID/job_$job/step_0/freezer.state
	if [ -r "$frz" ]; then
		wait_for 30 grep -q FROZEN "$frz"
	else
		while [ $(( $(now_ms) - t0 )) -lt 2500 ]; do sleep 0.05; done
	fi
	before=$(grep -c "job $job step 0: resumed on" "$E2E_DIR/log/slurmd.log")
	t0=$(now_ms)
	scontrol resume "$job" &
	rpid=$!
	thaw=
	if [ -r "$frz" ]; then
		# the thaw itself, seen by a tight read loop (the goal counts from it)
		while read -r st <"$frz" && [ "$st" != THAWED ]; do :; done
		thaw=$(now_ms)
	fi
	wait "$rpid"   # only scontrol: the cluster's daemons are children too
	if ! wait_for 30 eval '[ "$(grep -c "job $job step 0: resumed on" "$E2E_DIR/log/slurmd.log")" -gt "$before" ]'; then
		fails=$((fails + 1)); continue
	fi
	line=$(grep "job $job step 0: resumed on" "$E2E_DIR/log/slurmd.log" | tail -1)
	reb="$reb$(( $(log_ms "$line") - t0 ))
"
	[ -n "$thaw" ] && rth="$rth$(( $(log_ms "$line") - thaw ))
"
	wait_for 30 all_status "$job" active
done
scancel "$job"
# The plugin's own part, as its verbose lines say: from the change seen by
# the watcher to the transaction done (and every thread moved).
own() { grep -E "job $job step 0: $1" "$E2E_DIR/log/slurmd.log" | sed -nE 's/.*[(, ]([0-9]+) ms after the.*/\1/p'; }
echo "gang: node of $E2E_NCPUS cpus, $E2E_MODE, job of 2 tasks (batch step + srun step)"
printf '%s' "$rel" | stat_line "gang: scontrol suspend -> records released (freeze at +2000 ms; goal p99 <= 100 ms after it)"
printf '%s' "$reb" | stat_line "gang: scontrol resume -> every task rebound (thaw at ~+30 ms)"
[ -n "$rth" ] && printf '%s' "$rth" | stat_line "gang: thaw (freezer.state THAWED) -> every task rebound (goal p99 <= 100 ms)"
own "suspended by Slurm" | stat_line "gang: suspension seen -> records released (the plugin's part)"
own "resumed on" | stat_line "gang: resume seen -> every thread moved (the plugin's part)"
[ "$fails" -gt 0 ] && echo "gang: $fails cycles timed out (left out)"
exit 0
