#!/bin/bash
# t40_soak.sh: the state file under abuse on the real cluster. About 200
# steps (srun jobs, and sbatch jobs whose script runs three times two srun steps
# at once) in waves of 10-20 concurrent submissions with random --binding
# requests, while a killer sends SIGKILL to the slurmstepd, the srun or a
# task of random running steps, and a sampler (state_sampler.c) reads the
# state every 10 ms without the lock. Asserted:
#   - every sample parses clean and no cpu is ever in two active records
#     that may not share it (different jobs, or two steps of one job);
#   - no state.corrupt.* file appears, the node never drains;
#   - no record outlives its step: when a wave is over only records of
#     killed slurmstepds are left, `sbind gc` (even waves) or the next
#     wave's transactions (odd waves) remove them, none is left at the end;
#   - every step that was not killed ran, and each of its tasks got what the
#     plugin says it got: bound => /proc's Cpus_allowed_list is
#     SLURM_BINDING (instance set), inside the step's cgroup cpuset, with as
#     many cpus as the request gives on an idle node (exactly those for
#     explicit:/cpus:); two bound tasks that ran at the same time (their
#     own clock readings overlap) never share a cpu unless one is its job's
#     batch script. On 2 cpus many steps are legitimately unbound (cores
#     held): that is allowed, not counted.
# Random choices come from a seeded RNG (SOAK_SEED, printed). How many kills
# land in which phase depends on the machine's speed: reported, never
# asserted. SOAK_STEPS (default 200) sets the size.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
sampler=$E2E_BUILD/e2e/state_sampler
[ -x "$sampler" ] || { e2e_skip "t40 needs $sampler (make build/e2e/state_sampler)"; e2e_done; }
[ -x "$E2E_BUILD/sbind" ] || { e2e_skip "t40 needs $E2E_BUILD/sbind"; e2e_done; }

seed=${SOAK_SEED:-$(( $(date +%s) % 100000 ))}
RANDOM=$seed
steps_wanted=${SOAK_STEPS:-200}
e2e_note "seed $seed (SOAK_SEED=$seed reproduces the choices), $steps_wanted steps"
sd=$E2E_WORK/soak
mkdir -p "$sd" && chown "$E2E_USER:" "$sd"
log=$E2E_DIR/log/slurmd.log
log_lines0=$(wc -l <"$log")

# What each request gets on an idle node, by the same library (dry run).
reqs_any="linear:1 linear:2 striding:1:2 packed:1 pack:1 balance:1 any:1 env:linear:1 pe:linear:1 none"
reqs_exact="explicit:0,0 explicit:0,1 cpus:0 cpus:1"
idle=$(mktemp -d)
declare -A want_n want_set
for r in $reqs_any $reqs_exact; do
	c=$("$E2E_BUILD/sbind" place --state "$idle" --binding "$r" --tasks 1 2>/dev/null |
		sed -n 's/^task 0: .*(cpus \(.*\))$/\1/p')
	want_n[$r]=$( [ -n "$c" ] && cpulist_count "$c" || echo 0)
	want_set[$r]=$c
done
rm -rf "$idle"
read -ra RA <<<"$reqs_any"
read -ra RE <<<"$reqs_exact"

task=$(user_file soak_task.sh <<EOF2
#!/bin/sh
# A task: what it runs with, from /proc, then a short life. Times are its
# own clock readings, taken inside its life, so overlap means "ran at once".
t0=\$(date +%s%N)
cs=\$(cat /proc/self/cpuset 2>/dev/null)
alloc=\$(cat "/sys/fs/cgroup/cpuset\$cs/cpuset.effective_cpus" 2>/dev/null)
aff=\$(awk '/^Cpus_allowed_list/ { print \$2 }' /proc/self/status)
sleep "\$1"
t1=\$(date +%s%N)
# The batch script: no SLURM_STEP_ID before Slurm 26.05, -5 (the batch
# step's id, SLURM_BATCH_SCRIPT, as a signed number) since.
step=\${SLURM_STEP_ID:-batch}
[ "\$step" = -5 ] && step=batch
echo "task name=\$SLURM_JOB_NAME job=\$SLURM_JOB_ID step=\$step task=\${SLURM_PROCID:-0} t0=\$t0 t1=\$t1 aff=\$aff alloc=\$alloc inst=\$SLURM_BINDING_INSTANCE binding=\$(echo \$SLURM_BINDING | tr ' ' ,) req=\$SLURM_BINDING_REQUEST status=\$SLURM_BINDING_STATUS" >>$sd/tasks
EOF2
)
batch=$(user_file soak_batch.sh <<EOF2
#!/bin/sh
# The batch step, then three times two steps at once inside it (they inherit
# --binding): steps are cheaper than jobs, so most of the soak's steps are these.
$task 0.1
for round in 1 2 3; do
	srun -n1 $task 0.2 &
	srun -n1 $task 0.2 &
	wait
done
EOF2
)

# The killer: SIGKILL to one process of a random running job every
# 0-2 s; slurmstepd and srun kills are followed by scancel (nothing
# would end that job otherwise). One line per kill in $sd/kills:
# KIND JOB STEP PID PHASE (phase: the step had a record at that moment or not).
ours() { tr '\0' '\n' 2>/dev/null <"/proc/$1/environ" | grep -qx "SLURM_CONF=$SLURM_CONF"; }
killer() {
	RANDOM=$((seed + 1))
	while [ ! -e "$sd/stop.killer" ] && [ -e "/proc/$$" ]; do
		sleep "$((RANDOM % 2)).$((RANDOM % 10))"
		local jobs job kind row pid step phase
		jobs=$(squeue -h -t R -o %i 2>/dev/null)
		[ -n "$jobs" ] || continue
		read -ra J <<<"$(echo $jobs)"
		job=${J[RANDOM % ${#J[@]}]}
		kind=$(echo task slurmstepd srun | cut -d' ' -f$((1 + RANDOM % 3)))
		# rows: PID STEP of the job's tasks (scontrol lists -1 before fork)
		mapfile -t rows < <(scontrol listpids "$job" "$E2E_NODE" 2>/dev/null |
			awk 'NR > 1 && $4 ~ /^[0-9]+$/ && $1 > 0 { print $1, $3 }')
		pid= step=
		case $kind in
		task|slurmstepd)
			[ ${#rows[@]} -gt 0 ] || continue
			row=${rows[RANDOM % ${#rows[@]}]}
			pid=${row% *} step=${row#* }
			if [ $kind = slurmstepd ]; then
				pid=$(awk '{ print $4 }' "/proc/$pid/stat" 2>/dev/null)
				[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = slurmstepd ] || continue
			fi ;;
		srun)
			local name p
			name=$(squeue -h -j "$job" -o %j 2>/dev/null)
			for p in $(pgrep -x srun); do
				ours "$p" || continue
				if tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -q -- "-J $name " ||
					tr '\0' '\n' 2>/dev/null <"/proc/$p/environ" | grep -qx "SLURM_JOB_ID=$job"; then
					pid=$p; break
				fi
			done
			[ -n "$pid" ] || continue
			step=? ;;
		esac
		ours "$pid" || [ $kind = task ] || continue
		phase=no-record
		grep -q "^rec job=$job step=" "$E2E_STATE/state" 2>/dev/null && phase=records-held
		# logged first: whoever sees the process gone finds its line
		echo "$kind $job $step $pid $phase" >>"$sd/kills"
		kill -KILL "$pid" 2>/dev/null
		[ $kind = task ] || scancel "$job" 2>/dev/null
	done
}

: >"$sd/tasks"; : >"$sd/kills"; : >"$sd/plan"; chown "$E2E_USER:" "$sd/tasks"
"$sampler" "$E2E_STATE" 10 "$sd/stop" "$sd/sampler.report" 2>"$sd/sampler.err" &
sampler_pid=$!
killer &
killer_pid=$!

# No slurmstepd of this cluster is alive (they release their records last).
no_stepd() {
	local p
	for p in $(pgrep -x slurmstepd); do ours "$p" && return 1; done
	return 0
}

# A batch job is over (an end state), or was hit by the killer (Slurm
# takes its time to give up on a killed slurmstepd).
batch_over() {
	_e2e_end_state "$(job_state "$1")" && return 0
	awk -v j="$1" '$2 == j { f = 1 } END { exit !f }' "$sd/kills"
}

# The state's records as "JOB STEP PID ALIVE" (ALIVE 1 when the owner is
# still the process that made the record).
record_owners() {
	awk '/^rec / { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		print f["job"], f["step"], f["pid"], f["start"] }' "$E2E_STATE/state" 2>/dev/null |
	while read -r j s p st; do
		now=$(awk '{ print $22 }' "/proc/$p/stat" 2>/dev/null)
		echo "$j $s $p $([ "$now" = "$st" ] && echo 1 || echo 0)"
	done
}

t_start=$(date +%s)
planned=0 wave=0 prev_dead=
while [ $planned -lt "$steps_wanted" ]; do
	wave=$((wave + 1))
	n=$((10 + RANDOM % 11))
	pids= batch_jobs=
	for i in $(seq 1 "$n"); do
		name=soak_${wave}_$i
		if [ $((RANDOM % 2)) = 0 ]; then
			r=${RA[RANDOM % ${#RA[@]}]}
			[ "$i" = 1 ] && r=linear:1	# every wave makes transactions
			echo "$name batch 2 $r" >>"$sd/plan"
			bj=$(sbatch_as_user -J "$name" -n2 -o /dev/null --binding="$r" "$batch") &&
				batch_jobs="$batch_jobs $bj"
			planned=$((planned + 7))
			continue
		else
			if [ $((RANDOM % 3)) = 0 ]; then r=${RE[RANDOM % ${#RE[@]}]}; nt=1
			else r=${RA[RANDOM % ${#RA[@]}]}; nt=$((1 + RANDOM % 2)); fi
			[ "$i" = 1 ] && r=linear:1
			echo "$name srun $nt $r" >>"$sd/plan"
			run_as_user srun -J "$name" -n"$nt" --binding="$r" "$task" "0.$((1 + RANDOM % 4))" \
				>/dev/null 2>&1 &
			planned=$((planned + 1))
		fi
		pids="$pids $!"
	done
	# Every client ends by itself or through the killer's scancel (run.sh's
	# timeout is the hang guard). The next wave does not wait for jobs whose
	# slurmstepd was killed: Slurm takes a while to give up on those.
	for p in $pids; do wait "$p" 2>/dev/null; done
	for j in $batch_jobs; do wait_until 600 batch_over "$j"; done
	# A record's owner is alive (a slurmstepd of ours, still winding down) or
	# it is a slurmstepd the killer killed; records of dead owners seen at
	# the last wave's end are gone: this wave's transactions reclaimed them.
	left=$(record_owners)
	dead=
	while read -r j s p alive; do
		[ -n "$j" ] || continue
		if [ "$alive" = 1 ]; then
			# A slurmstepd winding down may be gone by now: no comm.
			comm=$(cat "/proc/$p/comm" 2>/dev/null)
			[ -z "$comm" ] || [ "$comm" = slurmstepd ] ||
				e2e_fail "wave $wave: job $j step $s's record is owned by pid $p ($comm), not a slurmstepd"
			continue
		fi
		dead="$dead $j.$s.$p"
		awk -v p="$p" '$1 == "slurmstepd" && $4 == p { f = 1 } END { exit !f }' "$sd/kills" ||
			e2e_fail "wave $wave: job $j step $s's record outlived its owner $p, which was not killed: $(grep "job=$j step=$s " "$E2E_STATE/state")"
		case " $prev_dead " in *" $j.$s.$p "*)
			e2e_fail "wave $wave: job $j step $s's record (owner $p gone since the last wave) survived this wave's transactions" ;;
		esac
	done <<<"$left"
	prev_dead=$dead
	if [ $((wave % 2)) = 0 ]; then
		"$E2E_BUILD/sbind" gc --state "$E2E_STATE" >/dev/null 2>&1 || e2e_fail "wave $wave: sbind gc failed"
		gone=$(record_owners | awk '$4 == 0')
		[ -z "$gone" ] || e2e_fail "wave $wave: records of dead owners left after sbind gc: $gone"
		prev_dead=
	fi
	st=$(sinfo -h -N -n "$E2E_NODE" -o %T)
	case "$st" in drain*|down*|fail*) e2e_fail "wave $wave: node $st: $(sinfo -h -N -n "$E2E_NODE" -o %E)" ;; esac
	e2e_note "wave $wave: $n submissions, $planned steps so far; records of dead owners at its end:${dead:- none}"
done
touch "$sd/stop.killer"
wait "$killer_pid" 2>/dev/null
# Hang guards only: Slurm gives up on a killed slurmstepd's job in its own time.
wait_squeue_empty 120 || e2e_fail "jobs left 120 s after the last wave: $(squeue -h -o '%i %T')"
wait_until 60 no_stepd || e2e_fail "slurmstepds left 60 s after the queue emptied"
touch "$sd/stop"
wait "$sampler_pid"; src=$?
"$E2E_BUILD/sbind" gc --state "$E2E_STATE" >/dev/null 2>&1
e2e_note "$wave waves, $planned steps planned, $(( $(date +%s) - t_start )) s"

# --- the state as the sampler saw it
summary=$(tail -1 "$sd/sampler.report" 2>/dev/null)
e2e_note "sampler: $summary"
[ -s "$sd/sampler.err" ] && e2e_note "$(head -5 "$sd/sampler.err")"
assert_eq 0 "$src" "every sample parsed clean, no cpu in two active records, the library's reader never failed"
assert_match "$summary" '^samples [0-9]+ .* unclean 0 overlaps 0 list_errors 0 ' "sampler summary"
assert_eq "" "$(ls "$E2E_STATE" | grep '^state\.corrupt\.')" "no state.corrupt.* file"
assert_eq "" "$(state_records)" "no record left at the end"
st=$(sinfo -h -N -n "$E2E_NODE" -o %T)
assert_eq 0 "$(case "$st" in drain*|down*|fail*) echo 1 ;; *) echo 0 ;; esac)" "the node never drained ($st)"

# --- kills, by kind and phase (reported only)
e2e_note "kills: $(awk '{ n[$1 " " $5]++ } END { for (k in n) printf "%s=%d; ", k, n[k] }' "$sd/kills")"
e2e_note "repairs logged by the plugin: $(tail -n +"$log_lines0" "$log" | grep -c 'reclaimed') reclaimed, $(tail -n +"$log_lines0" "$log" | grep -c 'died inside a transaction') lock handovers"

# --- what each step that was not killed ran with
killed=" $(awk '{ print $2 }' "$sd/kills" | sort -u | tr '\n' ' ') "
bad=0 checked=0 bound=0 missing=0
while read -r name kind nt r; do
	job=$(awk -v n="$name" '$2 == "name=" n { sub("job=", "", $3); print $3; exit }' "$sd/tasks")
	[ -n "$job" ] || job=$(squeue -h -t all -n "$name" -o %i | head -1)
	case "$killed" in *" $job "*) continue ;; esac
	lines=$(grep -c " name=$name " "$sd/tasks")
	want=$nt; [ "$kind" = batch ] && want=7
	if [ "$lines" != "$want" ]; then
		missing=$((missing + 1))
		e2e_fail "job $job ($name, $kind -n$nt --binding=$r), not killed: $lines task lines, expected $want (state $(job_state "$job"))"
	fi
done <"$sd/plan"

# One line per task of a step that was not killed: checks need the request's
# idle-node answer, passed in as "req count set" lines.
expect=$(for r in $reqs_any $reqs_exact; do echo "$r ${want_n[$r]} ${want_set[$r]:--}"; done)
report=$(awk -v killed="$killed" -v expect="$expect" '
function expand(l, out,    n, a, i, b, k, c) {	# "0-2,5" -> out[cpu]=1, returns count
	delete out; c = 0
	n = split(l, a, ",")
	for (i = 1; i <= n; i++) {
		if (a[i] == "") continue
		if (split(a[i], b, "-") == 2) { for (k = b[1]; k <= b[2]; k++) { out[k] = 1; c++ } }
		else { out[a[i]] = 1; c++ }
	}
	return c
}
function within(x, y,    A, B, k) { expand(x, A); expand(y, B); for (k in A) if (!(k in B)) return 0; return 1 }
function same(x, y) { return within(x, y) && within(y, x) }
function meet(x, y,    A, B, k) { expand(x, A); expand(y, B); for (k in A) if (k in B) return 1; return 0 }
BEGIN {
	n = split(expect, E, "\n")
	for (i = 1; i <= n; i++) { split(E[i], f, " "); cnt[f[1]] = f[2]; set[f[1]] = f[3] }
}
/^task / {
	delete v
	for (i = 2; i <= NF; i++) { p = index($i, "="); if (p) v[substr($i, 1, p - 1)] = substr($i, p + 1) }
	st = $0; sub(/.* status=/, "", st)
	if (index(killed, " " v["job"] " ")) next
	id = v["job"] "." v["step"] "." v["task"]
	checked++
	r = v["req"]; sub(/^set:/, "", r)
	if (st == "bound") {
		bound++
		if (v["binding"] == "") { print "FAIL " id " bound but SLURM_BINDING empty"; next }
		if (v["inst"] == "set" && !same(v["aff"], v["binding"]))
			print "FAIL " id " --binding=" v["req"] ": SLURM_BINDING " v["binding"] " but /proc Cpus_allowed_list " v["aff"]
		if (v["alloc"] != "" && !within(v["binding"], v["alloc"]))
			print "FAIL " id " bound to " v["binding"] " outside its cpuset " v["alloc"]
		k = expand(v["binding"], X)
		w = cnt[r] * (v["step"] == "batch" ? 2 : 1)
		if (r in cnt && k != w)
			print "FAIL " id " --binding=" v["req"] ": " k " cpus (" v["binding"] "), an idle node gives " w
		if (r in set && r ~ /^(explicit|cpus):/ && !same(v["binding"], set[r]))
			print "FAIL " id " --binding=" v["req"] ": cpus " v["binding"] ", it names " set[r]
		B[++nb] = v["job"] " " v["step"] " " v["t0"] " " v["t1"] " " v["binding"] " " id
	} else if (st !~ /^unbound: / || v["binding"] != "") {
		print "FAIL " id " status \"" st "\" with SLURM_BINDING \"" v["binding"] "\""
	}
}
END {
	for (i = 1; i <= nb; i++) for (j = 1; j < i; j++) {
		split(B[i], a, " "); split(B[j], b, " ")
		if (a[1] == b[1] && (a[2] == b[2] || a[2] == "batch" || b[2] == "batch")) continue
		if (a[3] > b[4] || b[3] > a[4]) continue	# not at the same time
		if (meet(a[5], b[5])) print "FAIL " a[6] " and " b[6] " ran at once on shared cpus " a[5] " / " b[5]
	}
	printf "checked %d tasks, %d bound\n", checked, bound
}' "$sd/tasks")
fails=$(echo "$report" | grep '^FAIL' | head -20)
e2e_note "$(echo "$report" | tail -1); jobs killed: $(echo $killed | wc -w)"
assert_eq "" "$fails" "every task of a step that was not killed ran with the binding the plugin reported, bound tasks never shared a cpu"
assert_match "$(echo "$report" | tail -1)" '^checked [1-9][0-9]* tasks, [1-9][0-9]* bound' "some tasks were checked and some were bound"
e2e_done
