#!/bin/bash
# The gang and suspend tests (t30: proctrack/cgroup, t31: proctrack/linuxproc),
# sourced by those files instead of lib.sh. Each runs on its OWN private
# cluster with PreemptMode=GANG (cluster.sh's E2E_GANG=1: OverSubscribe=
# FORCE:2, SchedulerTimeSlice=5, PreemptType=preempt/none) and the chosen
# proctrack; run.sh's cluster stays up, untouched.
#
# Evidence is what the tasks see: each task of a sampler job appends
# "<unix time> <pid> <Cpus_allowed_list>" of its own /proc/PID/status every
# 0.2 s to $E2E_WORK/s.<job>.<task>. Every wait is for a state, bounded by a
# hang guard (tens of seconds); no verdict depends on the machine's speed.

# $1: v1 | none (cluster.sh's E2E_CGROUP)
gang_file_start() {
	local mode=$1 outer=${E2E_DIR:-}
	export E2E_GANG=1 E2E_CGROUP=$mode
	# shellcheck source=tests/e2e/lib.sh
	. "$(dirname "$0")/lib.sh"
	# shellcheck source=tests/e2e/binding_helpers.sh
	. "$(dirname "$0")/binding_helpers.sh"
	need_plugin
	if [ "$mode" = v1 ] && ! _e2e_cgroup_v1_usable; then
		e2e_skip "$E2E_TEST: cgroup v1 (cpuset, freezer) is not writable here"
		exit 0
	fi
	if [ -n "$outer" ]; then
		# under run.sh: a cluster of our own (this process only)
		cluster_start verbose || { e2e_fail "the gang cluster ($mode) did not start"; exit 1; }
	fi
	cluster_plugstack verbose
	[ "$E2E_NCPUS" -eq 2 ] || { e2e_skip "$E2E_TEST is written for a 2-cpu node, this one has $E2E_NCPUS"; e2e_done; }
	e2e_note "gang cluster: mode $E2E_MODE, dir $E2E_DIR"
	gang_make_sampler
}

# The sampler script (SAMPLER), written into the job user's dir.
gang_make_sampler() {
	SAMPLER=$(user_file sampler.sh <<-'EOS'
		#!/bin/bash
		out=$SLURM_SUBMIT_DIR/s.$SLURM_JOB_ID.$SLURM_PROCID
		exec {nap}<> <(:)
		while :; do
			while read -r k v; do [ "$k" = Cpus_allowed_list: ] && c=$v; done </proc/$$/status
			echo "$EPOCHREALTIME $$ $c" >>"$out"
			read -r -t 0.2 -u "$nap"
		done
	EOS
	)
	export SAMPLER
}

HANG=60   # hang guard, seconds
# Each task's cpus once bound (one core): 1 here, 2 on an SMT node with -c2.
GANG_TASK_CPUS=${GANG_TASK_CPUS:-1}
# The sampler job's shape (-n2, or -n2 -c2 on an SMT node).
GANG_JOB_ARGS=${GANG_JOB_ARGS:--n2}

# sampler_job NAME: sbatch $GANG_JOB_ARGS --binding=linear:1 whose srun
# step samples.
sampler_job() {
	# shellcheck disable=SC2086 # word list
	sbatch_as_user -J "$1" $GANG_JOB_ARGS --binding=linear:1 -o "$E2E_WORK/$1.out" \
		--wrap "srun --cpu-bind=none $SAMPLER"
}

samples() { cat "$E2E_WORK/s.$1.$2" 2>/dev/null; }
last_cpus() { tail -n 1 "$E2E_WORK/s.$1.$2" 2>/dev/null | awk '{ print $3 }'; }
nsamples() { samples "$1" "$2" | wc -l; }
task_pid() { tail -n 1 "$E2E_WORK/s.$1.$2" 2>/dev/null | awk '{ print $2 }'; }

# Both tasks' newest samples (taken after sample number $2 and $3) show
# GANG_TASK_CPUS cpus each (one core), no cpu in both.
_bound_apart() {	# JOB [AFTER0 AFTER1]
	local c0 c1
	[ "$(nsamples "$1" 0)" -gt "${2:-0}" ] && [ "$(nsamples "$1" 1)" -gt "${3:-0}" ] || return 1
	c0=$(last_cpus "$1" 0) c1=$(last_cpus "$1" 1)
	[ "$(cpulist_count "$c0")" = "$GANG_TASK_CPUS" ] && [ "$(cpulist_count "$c1")" = "$GANG_TASK_CPUS" ] &&
		[ -z "$(comm -12 <(cpulist_expand "$c0" | tr ' ' '\n' | sort) <(cpulist_expand "$c1" | tr ' ' '\n' | sort))" ]
}
wait_bound_apart() { _e2e_wait_until "$HANG" _bound_apart "$@"; }

# The step's records (batch and srun step) of JOB all have STATUS.
_records_all() {	# JOB STATUS
	local recs
	recs=$(state_records | grep " job=$1 ")
	[ -n "$recs" ] && ! echo "$recs" | grep -qv " status=$2 "
}
wait_records() { _e2e_wait_until "$HANG" _records_all "$@"; }

_log_has() { grep -qE -- "$1" "$E2E_DIR/log/slurmd.log" 2>/dev/null; }
wait_log() { _e2e_wait_until "$HANG" _log_has "$1"; }

_proc_state_is() {	# PID STATE-LETTER
	[ "$(sed -E 's/^[0-9]+ \(.*\) (.).*/\1/' "/proc/$1/stat" 2>/dev/null)" = "$2" ]
}
_procs_state() {	# LETTER PID...
	local st=$1 p; shift
	for p in "$@"; do _proc_state_is "$p" "$st" || return 1; done
}
# Stopped: state T (a signal), D (a cgroup v1 freeze), or a frozen cgroup
# v2 level above it (proctrack/cgroup freezes through cgroup.freeze there,
# and a task frozen so shows state S).
_procs_stopped() {
	local p cg
	for p in "$@"; do
		_proc_state_is "$p" T || _proc_state_is "$p" D && continue
		cg=$(sed -n 's/^0:://p' "/proc/$p/cgroup" 2>/dev/null)
		while [ -n "$cg" ] && [ "$cg" != / ]; do
			grep -qx 'frozen 1' "/sys/fs/cgroup$cg/cgroup.events" 2>/dev/null && break
			cg=${cg%/*}
		done
		[ -n "$cg" ] && [ "$cg" != / ] || return 1
	done
}
_procs_not_state() {
	local st=$1 p; shift
	for p in "$@"; do _proc_state_is "$p" "$st" && return 1; done
	return 0
}

# --- scenarios -----------------------------------------------------------

# scancel -s STOP keeps the cores; -s CONT changes nothing.
gang_user_stop() {
	local a p0 p1 before
	a=$(sampler_job g_stop) || { e2e_fail "sbatch refused"; return; }
	wait_bound_apart "$a" || { e2e_fail "job $a: tasks never bound one cpu each"; return; }
	wait_records "$a" active || e2e_fail "job $a: records not active"
	before=$(state_records | grep " job=$a " | sed -E 's/.* (cpus=[^ ]* tasks=[^ ]*).*/\1/' | sort)
	p0=$(task_pid "$a" 0) p1=$(task_pid "$a" 1)
	local seen
	seen=$(grep -c "job $a step 0: tasks stopped, not by a Slurm suspension" "$E2E_DIR/log/slurmd.log")
	scancel -s STOP "$a"
	# T (SIGSTOP), or D: proctrack/cgroup turns SIGSTOP into a freeze
	_e2e_wait_until "$HANG" _procs_stopped "$p0" "$p1" || e2e_fail "job $a: tasks never stopped"
	# The watcher judged it (it logs each user stop once) ...
	_stop_logged() {
		[ "$(grep -c "job $a step 0: tasks stopped, not by a Slurm suspension" "$E2E_DIR/log/slurmd.log")" -gt "$seen" ]
	}
	if _e2e_wait_until "$HANG" _stop_logged; then
		e2e_pass "job $a: scancel -s STOP seen as the user's stop"
	else
		e2e_fail "job $a: no verdict on the stop within $HANG s"
	fi
	# ... and kept the cores.
	assert_eq "$before" "$(state_records | grep " job=$a " | grep ' status=active ' |
		sed -E 's/.* (cpus=[^ ]* tasks=[^ ]*).*/\1/' | sort)" \
		"job $a: stopped by its user, its records stay active on the same cpus"
	local n0 n1
	n0=$(nsamples "$a" 0) n1=$(nsamples "$a" 1)
	scancel -s CONT "$a"
	# continuing shows in new samples
	wait_bound_apart "$a" "$n0" "$n1" || e2e_fail "job $a: no bound samples after CONT"
	assert_eq "$before" "$(state_records | grep " job=$a " | grep ' status=active ' |
		sed -E 's/.* (cpus=[^ ]* tasks=[^ ]*).*/\1/' | sort)" \
		"job $a: after -s CONT, unchanged"
	GANG_A=$a
}

# scontrol suspend A: released; C bound meanwhile; resume A: deferred, on
# Slurm's cpus; C ends: A bound again.
gang_suspend() {
	local a=$GANG_A c n0 n1
	scontrol suspend "$a"
	if wait_records "$a" suspended; then
		e2e_pass "job $a: suspended records after scontrol suspend"
	else
		e2e_fail "job $a: records not suspended: $(state_records | grep " job=$a " | tr '\n' '|')"
	fi
	assert_eq "" "$(state_records | grep " job=$a " | grep -vE ' cpus= (since=[0-9]+ why=[^ ]* )?tasks= ')" \
		"job $a: suspended records hold no cpus"
	assert_match "$(state_records | grep " job=$a ")" " since=[0-9]+ why=slurm-suspend " \
		"job $a: since= and why= recorded"
	assert_match "$(sbind_status --job "$a")" "suspended .*slurm-suspend" \
		"sbind status --job $a shows it suspended, since when and why"
	c=$(sampler_job g_c) || { e2e_fail "sbatch C refused"; return; }
	wait_bound_apart "$c" || e2e_fail "job $c: not bound to the released cpus"
	wait_records "$c" active || e2e_fail "job $c: records not active"
	# README's example: sbind status while C runs on A's cores
	{
		echo "\$ sbind status --state \$STATE"
		sbind_status 2>&1
		# --node: the receipt's node name, the same wherever the test runs
		echo "\$ sbind status --state \$STATE --job $a --node node1"
		sbind_status --job "$a" --node node1 2>&1
	} | doc_block gang-status
	local stops
	stops=$(grep -c "job $a step [a-z0-9]*: tasks stopped, not by a Slurm suspension" "$E2E_DIR/log/slurmd.log")
	scontrol resume "$a"
	if wait_log "job $a step 0: deferred: held-by-job:$c"; then
		e2e_pass "job $a: resumed while $c holds the cpus: deferred, the reason names $c"
	else
		e2e_fail "job $a: not deferred after resume: $(state_records | tr '\n' '|')"
	fi
	assert_eq 1 "$(cpulist_count "$(last_cpus "$c" 0)")" "job $c keeps its binding"
	n0=$(nsamples "$a" 0) n1=$(nsamples "$a" 1)
	scancel "$c"
	wait_job_done "$c" "$HANG" >/dev/null
	if wait_bound_apart "$a" "$n0" "$n1"; then
		e2e_pass "job $a: bound again, one cpu per task, after $c ended"
	else
		e2e_fail "job $a: tasks not bound again: $(last_cpus "$a" 0) / $(last_cpus "$a" 1)"
	fi
	wait_records "$a" active || e2e_fail "job $a: records not active again"
	# Slurm's SIGTSTP still on the tasks at the thaw is no user's stop
	assert_eq "$stops" "$(grep -c "job $a step [a-z0-9]*: tasks stopped, not by a Slurm suspension" "$E2E_DIR/log/slurmd.log")" \
		"job $a: its resume was not taken for a user's stop"
	scancel "$a"
	wait_job_done "$a" "$HANG" >/dev/null
}

# Two jobs sharing the node over >= 4 time slices.
gang_slices() {
	local a b snap=$E2E_DIR/state-snapshots
	: >"$snap"
	a=$(sampler_job g_a) || { e2e_fail "sbatch A refused"; return; }
	wait_bound_apart "$a" || e2e_fail "job $a never bound"
	b=$(sampler_job g_b) || { e2e_fail "sbatch B refused"; return; }
	# root samples the state file every 0.25 s meanwhile
	( while :; do echo "--- $EPOCHREALTIME"; grep ' status=active ' "$E2E_STATE/state" 2>/dev/null; sleep 0.25; done ) >>"$snap" &
	local sampler=$!
	# B's srun step must exist first. A suspended job refuses a step, and
	# srun then waits for slurmctld's word or for max(60, SlurmctldTimeout)
	# plus pid % 10 seconds before it asks again (Slurm 22.05 srun,
	# launch.c); no word comes at a resume, so one refusal costs 60-69 s
	# here (cluster.sh sets SlurmctldTimeout=60). The guard allows several.
	_b_sampling() { [ -s "$E2E_WORK/s.$b.0" ] && [ -s "$E2E_WORK/s.$b.1" ]; }
	_e2e_wait_until "$(e2e_wait_secs 400)" _b_sampling || e2e_fail "job $b: its srun step never started"
	# Then wait for 4 switches of A between R and S.
	local last="" switches=0 st end=$((SECONDS + 120))
	while [ $switches -lt 4 ] && [ $SECONDS -lt $end ]; do
		st=$(squeue -h -j "$a" -o %t 2>/dev/null)
		[ -n "$last" ] && [ -n "$st" ] && [ "$st" != "$last" ] && switches=$((switches + 1))
		[ -n "$st" ] && last=$st
		sleep 0.2
	done
	# and for both jobs to have run bound after that
	wait_bound_apart "$a" || true
	wait_bound_apart "$b" || true
	# and for the snapshots to show each job running bound while its record
	# was active (what gang_overlaps counts): on a loaded machine a job's
	# binding after a switch can come late in its slice, and its first
	# bound samples just before the sampler stopped (24.11, three lanes of
	# make check beside each other: job B had none counted).
	_both_counted() {
		local ov
		ov=$(gang_overlaps "$snap" "$a" "$b")
		[[ $ov == *"counted $a "[1-9]* ]] && [[ $ov == *"counted $b "[1-9]* ]]
	}
	_e2e_wait_until "$(e2e_wait_secs 400)" _both_counted || true
	kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
	assert_eq 1 "$([ $switches -ge 4 ] && echo 1)" "job $a switched between running and suspended $switches times (>= 4)"
	scancel "$a" "$b"
	wait_job_done "$a" "$HANG" >/dev/null
	wait_job_done "$b" "$HANG" >/dev/null
	local j t bad
	for j in "$a" "$b"; do
		for t in 0 1; do
			# after its first bound sample, every sample shows one cpu
			bad=$(samples "$j" "$t" | awk '{ n = split($3, r, /[,-]/); one = (n == 1) }
				one { seen = 1 } seen && !one { print; exit }')
			assert_eq "" "$bad" "job $j task $t: one cpu in every sample after its first bound one"
		done
		# the two tasks of a job on different cpus (each stays on one)
		local c0 c1
		c0=$(samples "$j" 0 | awk '$3 !~ /[,-]/ { print $3 }' | sort -u | tr '\n' ' ')
		c1=$(samples "$j" 1 | awk '$3 !~ /[,-]/ { print $3 }' | sort -u | tr '\n' ' ')
		assert_eq 1 "$(echo "$c0" | wc -w)" "job $j task 0 always on the same cpu ($c0)"
		assert_ne "$c0" "$c1" "job $j: its two tasks on different cpus"
		assert_ne 0 "$(samples "$j" 0 | awk '$3 !~ /[,-]/' | wc -l)" "job $j ran bound" ||
			grep -E "spank-binding: job $j " "$E2E_DIR/log/slurmd.log" | tail -n 20 | sed 's/^/         /'
	done
	# No two jobs' tasks ran bound to one cpu while both their records were
	# active (see gang_overlaps for why samples at a switch do not count).
	local ov
	ov=$(gang_overlaps "$snap" "$a" "$b")
	for j in "$a" "$b"; do
		assert_match "$ov" "^counted $j [1-9]" "job $j: samples taken while its record was active (the check below has some)"
	done
	assert_eq "" "$(printf '%s\n' "$ov" | grep -v '^counted ')" \
		"no two jobs with active records ran on one cpu at the same time"
	# The state file never had a cpu in two jobs' active records.
	bad=$(awk '/^---/ { delete owner; next }
		{ job = ""; cpus = ""
		  for (i = 1; i <= NF; i++) { if ($i ~ /^job=/) job = substr($i, 5); if ($i ~ /^cpus=/) cpus = substr($i, 6) }
		  n = split(cpus, parts, ",")
		  for (p = 1; p <= n; p++) { m = split(parts[p], r, "-"); lo = r[1]; hi = (m > 1) ? r[2] : r[1]
			for (x = lo; x <= hi; x++) { if ((x in owner) && owner[x] != job) { print "cpu " x ": jobs " owner[x] " and " job; exit } owner[x] = job } } }' "$snap")
	assert_eq "" "$bad" "state file (sampled every 0.25 s, $(grep -c '^---' "$snap") snapshots): no cpu in two jobs' active records"
	gang_watchers_quiet "$a" "$b"
}

# Each watcher of JOB... woke at most 30 times a second of its life, plus
# 100: its fastest sampling is 20 a second and every other wakeup is an
# event. A slower machine only wakes less, so the bound holds anywhere; a
# watcher that wakes itself (its own inotify watch's removal once did)
# spins thousands of times a second.
gang_watchers_quiet() {
	local j line step t0 t1 n secs
	for j in "$@"; do
		while read -r line; do
			step=$(echo "$line" | sed -nE 's/.* job [0-9]+ step ([a-z0-9]+): watcher ended: .*/\1/p')
			n=$(echo "$line" | sed -nE 's/.*watcher ended: ([0-9]+) wakeups.*/\1/p')
			t1=$(echo "$line" | sed -nE 's/^\[([0-9T:.-]+)\].*/\1/p')
			t0=$(grep -E "job $j step $step: watching " "$E2E_DIR/log/slurmd.log" | head -n 1 |
				sed -nE 's/^\[([0-9T:.-]+)\].*/\1/p')
			[ -n "$step" ] && [ -n "$n" ] && [ -n "$t0" ] && [ -n "$t1" ] ||
				{ e2e_fail "job $j: cannot read a watcher's life from: $line"; continue; }
			secs=$(( $(date -d "${t1/T/ }" +%s) - $(date -d "${t0/T/ }" +%s) + 1 ))
			if [ "$n" -le $((30 * secs + 100)) ]; then
				e2e_pass "job $j step $step: its watcher woke $n times in ${secs} s (<= 30/s + 100)"
			else
				e2e_fail "job $j step $step: its watcher woke $n times in ${secs} s: it spins"
			fi
		done < <(grep -E "job $j step [a-z0-9]+: watcher ended: " "$E2E_DIR/log/slurmd.log")
		grep -qE "job $j step [a-z0-9]+: watcher ended: " "$E2E_DIR/log/slurmd.log" ||
			e2e_fail "job $j: no watcher logged its end"
	done
}

# Two jobs' tasks bound to one cpu, both running while both jobs' records
# were active: the plugin's promise is that an active record's cpus are
# its job's alone, and that its tasks run on them. A sample (a task's
# Cpus_allowed_list, written only while the task runs) counts for its job
# when the state snapshots just before and just after it (SNAP, every
# 0.25 s) both show the job's record active. Samples taken around a
# switch do not count: at a gang switch Slurm stops one job and continues
# the other, and on a loaded machine either signal, and the watcher that
# sees it, can land seconds late (4.6 s seen beside two CPU hogs), which
# no binding can prevent; the state file check above covers the records
# themselves. Prints "counted JOB N" for each job with counted samples,
# then the first such pair.
gang_overlaps() {	# SNAP JOB...
	local snap=$1 j t; shift
	for j in "$@"; do for t in 0 1; do samples "$j" "$t" | awk -v j="$j" '$3 !~ /[,-]/ { print $1, j, $3 }'; done; done |
		sort -k1,1n | awk -v snapfile="$snap" '
		BEGIN {
			while ((getline line < snapfile) > 0) {
				n = split(line, f, " ")
				if (f[1] == "---") { T[++k] = f[2] + 0; continue }
				for (i = 1; i <= n; i++) if (f[i] ~ /^job=/) A[k, substr(f[i], 5)] = 1
			}
			K = k; k = 1
		}
		{
			while (k < K && T[k + 1] <= $1) k++
			if (k >= K || T[k] > $1) next   # outside the snapshots
			if (!((k, $2) in A) || !((k + 1, $2) in A)) next
			counted[$2]++
			if (((k, $3) in owner) && owner[k, $3] != $2 && !bad) {
				bad = sprintf("jobs %s and %s both ran on cpu %s between the snapshots at %.2f and %.2f, both records active", owner[k, $3], $2, $3, T[k], T[k + 1])
			}
			owner[k, $3] = $2
		}
		END { for (j in counted) print "counted", j, counted[j]; if (bad) print bad }'
}

# N steps (50 with proctrack/cgroup, fewer with linuxproc to keep the
# stage short): every watcher ends with its step; nothing is left.
gang_many_steps() {
	local j n steps=${1:-50}
	j=$(sbatch_as_user -J g_many -n2 --binding=linear:1 -o "$E2E_WORK/g_many.out" \
		--wrap "for i in \$(seq $steps); do srun -n2 --binding=linear:1 true || exit 1; done") ||
		{ e2e_fail "sbatch refused"; return; }
	assert_eq COMPLETED "$(wait_job_done "$j" 300)" "job $j: $steps steps ran"
	n=$(grep -c "job $j step [0-9]*: watching 2 tasks" "$E2E_DIR/log/slurmd.log")
	assert_eq "$steps" "$n" "each of the $steps steps had its watcher"
	_no_stepd() { [ -z "$(_e2e_leftovers)" ]; }
	if _e2e_wait_until "$HANG" _no_stepd; then
		e2e_pass "no slurmstepd (nor job process) left: every watcher thread was joined"
	else
		e2e_fail "left: $(_e2e_leftovers | tr '\n' ' ')"
	fi
	_no_records() { [ -z "$(state_records)" ]; }
	_e2e_wait_until "$HANG" _no_records
	assert_eq "" "$(state_records)" "no state record left"
	assert_eq "" "$(grep -E 'no suspend/resume watcher|cannot take cpus back' "$E2E_DIR/log/slurmd.log")" \
		"no watcher errors in the log"
}

# What the user sees: with `srun -v --slurmd-debug=info`, slurmstepd's log
# lines reach srun's stderr, and the plugin logs each transition there with
# its latency. Since Slurm 24.11 only root and SlurmUser may give
# --slurmd-debug (docs/slurm-releases.md): there a user's srun is refused
# with Slurm's reason, and root's srun shows the lines.
gang_visible() {
	local j out
	if slurm_at_least 24.11; then
		assert_fails "Slurm $E2E_SLURM: a user's srun --slurmd-debug is refused" \
			run_as_user srun --slurmd-debug=info -n1 true
		assert_contains "$E2E_OUT" "only for root and SlurmUser" "... with Slurm's reason"
		out=$(run_as_user srun -v -n1 --binding=linear:1 true 2>&1)
		assert_match "$out" "spank-binding: job [0-9]+ step 0: suspend and resume moves go to slurmd's log and \`sbind status --job [0-9]+\`; Slurm $E2E_SLURM keeps --slurmd-debug for root" \
			"Slurm $E2E_SLURM: a user's srun -v says where the moves can be read instead"
		(cd "$E2E_WORK" && srun -J g_vis -v --slurmd-debug=info -n1 --binding=linear:1 sleep 600 \
			>"$E2E_WORK/g_vis.out" 2>&1) &
		BG_PIDS="$BG_PIDS $!"
	else
		bg_srun g_vis -v --slurmd-debug=info -n1 --binding=linear:1 sleep 600
	fi
	j=$(job_named g_vis 60) || { e2e_fail "srun -v --slurmd-debug=info did not start: $(head -c 400 "$E2E_WORK/g_vis.out")"; return; }
	wait_records "$j" active || e2e_fail "job $j: record not active"
	scontrol suspend "$j"
	wait_records "$j" suspended || e2e_fail "job $j: record not suspended"
	scontrol resume "$j"
	wait_records "$j" active || e2e_fail "job $j: record not active after resume"
	_vis_lines() { [ "$(grep -ac 'spank-binding: job [0-9]* step 0: \(suspended by Slurm\|resumed on\)' "$E2E_WORK/g_vis.out")" -ge 2 ]; }
	_e2e_wait_until "$HANG" _vis_lines
	scancel "$j"
	wait_job_done "$j" "$HANG" >/dev/null
	wait_bg
	out=$(grep -a 'spank-binding: job' "$E2E_WORK/g_vis.out")
	e2e_note "srun's stderr: $(echo "$out" | tr '\n' '|')"
	assert_match "$out" "job $j step 0: suspended by Slurm: cpus [0-9,-]+ released \\([0-9]+ ms after the suspension was seen\\)" \
		"srun -v --slurmd-debug=info: the suspension and its latency on srun's stderr"
	assert_match "$out" "job $j step 0: resumed on cpus [0-9,-]+ .*, [0-9]+ ms after the resume was seen" \
		"srun -v --slurmd-debug=info: the resume and its latency on srun's stderr"
}

gang_suite() {
	local t0=$SECONDS
	gang_visible
	e2e_note "(visible transitions: $((SECONDS - t0)) s)"
	gang_user_stop
	e2e_note "(user stop: $((SECONDS - t0)) s)"
	[ -n "${GANG_A:-}" ] && gang_suspend
	e2e_note "(suspend: $((SECONDS - t0)) s)"
	gang_slices
	e2e_note "(gang slices: $((SECONDS - t0)) s)"
	gang_many_steps "${GANG_STEPS:-50}"
	e2e_note "(${GANG_STEPS:-50} steps: $((SECONDS - t0)) s)"
	e2e_note "gang log excerpt:"
	grep -E 'spank-binding: job [0-9]+ step' "$E2E_DIR/log/slurmd.log" | tail -n 8 | sed 's/^/         /'
}
