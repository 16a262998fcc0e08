#!/bin/bash
# t42_hostile.sh: a hostile user on the cluster, and planted files.
#   1. The job user cannot create, write, lock, rename or remove the state,
#      its lock, the topology cache or a running step's rankfile, nor change
#      them through sbind (gc, release, place --commit); reading works.
#   2. Planted in the state dir (as root, as an attacker who got a file in
#      would): a symlink or a file with the wrong owner or mode as state or
#      lock is refused with a log line naming the rule and never followed;
#      a planted topology cache or state.new is replaced, never written
#      through; a planted rankfile (hard link to a root file) is removed
#      unopened; a state dir owned by the user or reached by a symlink is
#      refused and nothing is written into it.
#   3. SLURM_BINDING*, SGE_BINDING, OMP_* and SLURMD_NODENAME set before
#      srun, or a --binding exported as the option's own variable, change
#      nothing about what is bound, nor the rankfile.
#   4. explicit:/cpus: naming a cpu outside the step's allocation: unbound,
#      with the reason, never bound there.
#   5. A 1 MB request (#SBATCH) and requests of 100000 list items are
#      refused at once with the parser's message, not a hang. (execve takes
#      at most 128 KiB per argument or variable: a script's #SBATCH line is
#      how a request that long reaches the plugin.)
#   6. private_files=yes (issue 32 item 1): the job's user reads its own
#      rankfile but it stays root's, so they can neither append 1 MB to it
#      (filling root's /run, and with it every state transaction) nor set
#      its times back (what gc goes by); the state keeps working.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
[ -n "$E2E_SBIND" ] || { e2e_skip "t42 needs $E2E_BUILD/sbind"; e2e_done; }
log=$E2E_DIR/log/slurmd.log
S=$E2E_STATE
decoy=$E2E_DIR/decoy
echo precious >"$decoy"; chmod 644 "$decoy"

# srun as the user; prints "STATUS|SLURM_BINDING|Cpus_allowed_list" of task 0.
probe() {
	run_as_user timeout 300 srun "$@" sh -c \
		'echo "$SLURM_BINDING_STATUS|$SLURM_BINDING|$(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status)"' \
		2>&1 | tail -1
}
sums() { (cd "$S" && md5sum state lock topology.cache rankfile.* 2>/dev/null); }

# --- 1. the user against the state dir of a running pe step
bg_srun t42_a -n1 --binding=pe:linear:1 sleep 600
a=$(job_named t42_a) || { e2e_fail "pe job did not start"; e2e_done; }
step_pids "$a.0" 1 >/dev/null || e2e_fail "pe job's task not found"
rf=$S/rankfile.$a.0.0
pass_if "job $a's rankfile $rf exists" wait_for_file "$rf" 20
before=$(sums)
for what in "append to the state:echo x >>$S/state" "create state.new:echo x >$S/state.new" \
	"rename the state:mv $S/state $S/x" "replace the state:cp /etc/hostname $S/state" \
	"plant a symlink:ln -s /etc/hostname $S/state.evil" "open the lock:cat $S/lock" \
	"write the lock:echo x >>$S/lock" "remove the lock:rm -f $S/lock" \
	"write the topology cache:echo x >>$S/topology.cache" "remove the topology cache:rm -f $S/topology.cache" \
	"write the rankfile:echo rank 0=evil >>$rf" "remove the rankfile:rm -f $rf"; do
	assert_fails "the user cannot ${what%%:*}" run_as_user sh -c "${what#*:}"
done
assert_fails "the user's sbind gc fails" run_as_user "$E2E_SBIND" gc --state "$S"
assert_match "$E2E_OUT" "changing the state takes root" "and is told it takes root"
assert_fails "the user's sbind release fails" run_as_user "$E2E_SBIND" release --job "$a" --state "$S"
assert_match "$E2E_OUT" "changing the state takes root" "and is told it takes root"
assert_fails "the user's sbind place --commit fails" run_as_user "$E2E_SBIND" place --binding linear:1 \
	--commit --job 999999 --step 0 --state "$S"
assert_ok "the user can read the bindings (sbind status)" run_as_user "$E2E_SBIND" status --state "$S"
assert_match "$E2E_OUT" "^$a +0 " "and sees job $a"
assert_eq "$before" "$(sums)" "state, lock, topology cache and rankfile unchanged"
scancel "$a"; wait_job_done "$a" 30 >/dev/null; wait_bg
wait_until 20 eval "! state_records | grep -q 'job=$a '"

# --- 2. planted files
# plant NAME HOW: replaces $S/NAME (kept aside) by a planted one, runs a
# step, prints its probe line; the original is put back afterwards.
plant_step() {	# NAME SETUP-CMD [probe args...]
	local name=$1 setup=$2; shift 2
	[ -e "$S/$name" ] && mv "$S/$name" "$S/$name.t42saved"
	eval "$setup"
	n0=$(wc -l <"$log")
	out=$(probe "$@")
	logged=$(tail -n +"$n0" "$log")
}
restore() {	# NAME
	rm -f "$S/$1"
	[ -e "$S/$1.t42saved" ] && mv "$S/$1.t42saved" "$S/$1"
	return 0
}

for kind in symlink owner mode; do
	case $kind in
	symlink) setup="ln -s $decoy $S/state"; rule="is a symlink, refused" ;;
	owner) setup="cp $S/state.t42saved $S/state; chown $E2E_USER: $S/state"; rule="not owned by root" ;;
	mode) setup="cp $S/state.t42saved $S/state; chmod 666 $S/state"; rule="writable by group or others" ;;
	esac
	plant_step state "$setup" -n1 --binding=linear:1
	assert_match "$out" "^unbound: state \\(.*\\): state file.*$rule" "state planted ($kind): the step is not bound, says why"
	assert_match "$logged" "spank-binding: job [0-9]+: state .*$rule" "state planted ($kind): slurmd's log says why"
	assert_eq precious "$(cat "$decoy")" "state planted ($kind): nothing written through it"
	restore state
done
for kind in symlink owner; do
	case $kind in
	symlink) setup="ln -s $decoy $S/lock"; rule="lock file lock: is a symlink, refused" ;;
	owner) setup="cp $S/lock.t42saved $S/lock; chown $E2E_USER: $S/lock"; rule="lock file lock refused: not owned by root" ;;
	esac
	plant_step lock "$setup" -n1 --binding=linear:1
	assert_match "$out" "^unbound: state \\(.*\\): state $rule" "lock planted ($kind): the step is not bound, says why"
	assert_match "$logged" "spank-binding: job [0-9]+: state .*$rule" "lock planted ($kind): slurmd's log says why"
	assert_eq precious "$(cat "$decoy")" "lock planted ($kind): nothing written through it"
	restore lock
done
for kind in symlink owner; do
	case $kind in
	symlink) setup="ln -s $decoy $S/topology.cache"; rule="is a symlink, refused" ;;
	owner) setup="cp $S/topology.cache.t42saved $S/topology.cache; chown $E2E_USER: $S/topology.cache"; rule="refused: not owned by root" ;;
	esac
	plant_step topology.cache "$setup" -n1 --binding=linear:1
	assert_match "$out" "^bound\\|" "topology cache planted ($kind): the step is bound (hwloc, then a new cache)"
	assert_match "$logged" "spank-binding: topology cache not used \\(.*$rule\\); rewritten" "topology cache planted ($kind): slurmd's log says why"
	pass_if "topology cache planted ($kind): replaced by root's own file" \
		eval "[ ! -L $S/topology.cache ] && [ \"\$(stat -c %u:%a $S/topology.cache)\" = 0:644 ]"
	assert_eq precious "$(cat "$decoy")" "topology cache planted ($kind): nothing written through it"
	rm -f "$S/topology.cache.t42saved"
done
plant_step state.new "ln -s $decoy $S/state.new" -n1 --binding=linear:1
assert_match "$out" "^bound\\|" "state.new planted as a symlink: the step is bound"
assert_eq "precious|absent" "$(cat "$decoy")|$([ -e "$S/state.new" ] || [ -L "$S/state.new" ] && echo present || echo absent)" \
	"state.new planted: replaced, never written through"
# a rankfile planted for the next job: a hard link to a root file
script=$(user_file t42_pe.sh <<'EOF2'
#!/bin/sh
cat "$SLURM_BINDING_RANKFILE" > t42_pe.$SLURM_JOB_ID.out
EOF2
)
j=$(sbatch_as_user -H -n1 --binding=pe:linear:1 -o /dev/null "$script") || e2e_fail "sbatch -H refused"
ln "$decoy" "$S/rankfile.$j.batch.0"
n0=$(wc -l <"$log")
scontrol release "$j"
wait_job_done "$j" 60 >/dev/null
assert_match "$(cat "$E2E_WORK/t42_pe.$j.out" 2>/dev/null)" "^rank 0=" "planted rankfile: the job read its own rankfile"
assert_eq precious "$(cat "$decoy")" "planted rankfile: the hard-linked root file is untouched"
assert_match "$(tail -n +"$n0" "$log")" "rankfile.$j.batch.0 was already there \\(a file, owner 0, mode 0644, 2 links\\).*never opened" "planted rankfile: slurmd's log says so"
# the state dir itself: the user's, or a symlink
mkdir -p "$E2E_WORK/evilstate" && chown "$E2E_USER:" "$E2E_WORK/evilstate"
ln -sfn "$S" "$E2E_DIR/statelink"
for d in "$E2E_WORK/evilstate:not owned by root" "$E2E_DIR/statelink:is a symlink"; do
	# shellcheck disable=SC2086
	cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} state_dir="${d%%:*}"
	n0=$(wc -l <"$log")
	out=$(probe -n1 --binding=linear:1)
	assert_match "$out" "^unbound: state \\(${d%%:*}\\): state dir .*${d#*:}" "state dir ${d%%:*} (${d#*:}): the step is not bound, says why"
	assert_match "$(tail -n +"$n0" "$log")" "state dir.*${d#*:}" "state dir ${d%%:*}: slurmd's log says why"
done
assert_eq "" "$(ls -A "$E2E_WORK/evilstate")" "nothing was written into the user's dir"
# shellcheck disable=SC2086
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-}

# --- 3. the user's environment before srun
hostile=(env SLURM_BINDING="0 1" SLURM_BINDING_STATUS=bound SLURM_BINDING_REQUEST=explicit:0,1
	SLURM_BINDING_INSTANCE=env SLURM_BINDING_RANKFILE=/etc/passwd SLURM_BINDING_TOPOLOGY=SCC
	SGE_BINDING="0 1" OMP_PLACES="{1}" OMP_PROC_BIND=true OMP_NUM_THREADS=7
	SLURMD_NODENAME=$'evil\nrank 9=evil slot=0:0')
for r in linear:1 explicit:0,1 none; do
	clean=$(probe -c2 --binding=$r)
	dirty=$(run_as_user "${hostile[@]}" timeout 300 srun -c2 --binding=$r sh -c \
		'echo "$SLURM_BINDING_STATUS|$SLURM_BINDING|$(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status)"' 2>&1 | tail -1)
	e2e_note "--binding=$r: clean '$clean', hostile env '$dirty'"
	assert_eq "$clean" "$dirty" "--binding=$r: the user's SLURM_BINDING*/OMP_*/SLURMD_NODENAME change nothing"
done
assert_match "$(probe -c2 --binding=none)" "\\|\\|$E2E_CPUS$" "--binding=none: not bound, SLURM_BINDING empty"
# The option's own variable, which slurmstepd reads after the launch
# message's value: the value srun checked wins.
want=$(probe -c2 --binding=linear:1)
got=$(run_as_user timeout 300 srun -c2 --binding=linear:1 \
	--export=ALL,_SLURM_SPANK_OPTION_binding_binding=explicit:0,1 sh -c \
	'echo "$SLURM_BINDING_STATUS|$SLURM_BINDING|$(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status)"' 2>&1 | tail -1)
e2e_note "--binding=linear:1 with _SLURM_SPANK_OPTION_binding_binding=explicit:0,1 exported: '$got' (alone: '$want')"
assert_eq "$want" "$got" "a --binding smuggled in the step's environment does not replace the one srun checked"
rk=$(run_as_user "${hostile[@]}" timeout 300 srun -n1 --binding=pe:linear:1 sh -c 'echo "$SLURM_BINDING_RANKFILE"; cat "$SLURM_BINDING_RANKFILE"' 2>&1)
assert_match "$rk" "^$S/rankfile\\.[0-9]+\\.0\\.0$" "pe: the rankfile is the plugin's, in the state dir"
assert_not_contains "$rk" "evil" "pe: SLURMD_NODENAME did not reach the rankfile"

# --- 4. cpus outside the allocation
topo=$("$E2E_BUILD/sbind" topology 2>/dev/null)
if [ "$E2E_MODE" = cgroup-v1 ] && [ "$E2E_NCPUS" -eq 2 ] && [ "${topo//[^C]/}" = CC ] && [ "${topo//[^T]/}" = "" ]; then
	script=$(user_file t42_out.sh <<'EOF2'
#!/bin/sh
alloc=$(cat "/sys/fs/cgroup/cpuset$(cat /proc/self/cpuset)/cpuset.effective_cpus")
other=$((1 - alloc))
for r in explicit:0,$other cpus:$other; do
	srun -n1 --binding=$r sh -c 'echo "'$r'|$SLURM_BINDING_STATUS|$SLURM_BINDING|$(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status)"'
done > t42_out.$SLURM_JOB_ID.out 2>&1
echo "alloc $alloc" >> t42_out.$SLURM_JOB_ID.out
EOF2
)
	j=$(sbatch_as_user -n1 -o /dev/null "$script") || e2e_fail "sbatch refused"
	wait_job_done "$j" 60 >/dev/null
	res=$(cat "$E2E_WORK/t42_out.$j.out" 2>/dev/null)
	e2e_note "$(echo "$res" | tr '\n' ';')"
	al=$(echo "$res" | sed -n 's/^alloc //p')
	ot=$((1 - ${al:-0}))
	assert_match "$res" "^explicit:0,$ot\\|unbound: .*names cores this step was not given.*\\|\\|$al$" "explicit naming core $ot outside the allocation ($al): unbound, reason, on $al only"
	assert_match "$res" "^cpus:$ot\\|unbound: --binding=cpus:$ot names cpus this step was not given: .*outside the step's cpus\\|\\|$al$" "cpus:$ot outside the allocation: unbound, reason, on $al only"
else
	e2e_skip "cpus outside the allocation: needs cgroup v1 and 2 cores of 1 thread (here $E2E_MODE, topology $topo)"
fi

# --- 5. huge requests
big=$(head -c 1048576 /dev/zero | tr '\0' 'x')
script=$(user_file t42_big.sh <<EOF2
#!/bin/sh
#SBATCH --binding=linear:1:$big
true
EOF2
)
jobs0=$(jobs_known)
t0=$(date +%s)
out=$(run_as_user timeout 300 sbatch "$script" 2>&1); rc=$?
e2e_note "1 MB #SBATCH --binding: rc $rc in $(( $(date +%s) - t0 )) s: $(echo "$out" | head -c 300)"
assert_ne 124 "$rc" "a 1 MB request does not hang sbatch"
assert_ne 0 "$rc" "a 1 MB request is refused"
assert_match "$out" 'is not <socket>,<core> \(expected linear:<amount>\[:<socket>,<core>\]\)' "with the parser's message"
# Slurm's own "Invalid --binding <value>" line repeats the value whole; ours cuts it.
ours=$(echo "$out" | grep 'expected linear')
pass_if "the plugin's message is short (the token is cut): $(echo "$ours" | wc -c) bytes" [ "$(echo "$ours" | wc -c)" -lt 1000 ]
items=$(yes 0,0 | head -100000 | tr '\n' ':')
script=$(user_file t42_items.sh <<EOF2
#!/bin/sh
#SBATCH --binding=explicit:${items%:}
true
EOF2
)
out=$(run_as_user timeout 300 sbatch "$script" 2>&1); rc=$?
assert_eq "1" "$([ $rc -ne 0 ] && [ $rc -ne 124 ] && echo 1)" "100000 explicit pairs refused at once (rc $rc)"
assert_contains "$out" "more than 1024 <socket>,<core> pairs" "with the limit in the message"
out=$(run_as_user env SLURM_SPANK__SLURM_SPANK_OPTION_binding_binding="cpus:$(seq 0 20000 | tr '\n' ',' | sed 's/,$//')" \
	timeout 300 srun -n1 true 2>&1); rc=$?
assert_eq "1" "$([ $rc -ne 0 ] && [ $rc -ne 124 ] && echo 1)" "srun with a 20001-item cpus: list in its environment refused at once (rc $rc)"
assert_contains "$out" "more than 64 ranges of cpu ids above 4095" "with the limit in the message"
assert_eq "$jobs0" "$(jobs_known)" "none of them queued a job"

# --- 6. a private rankfile is readable by its job's user, and no more
# shellcheck disable=SC2086
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} private_files=yes
bg_srun t42_p -n1 --binding=pe:linear:1 sleep 600
p=$(job_named t42_p) || { e2e_fail "private pe job did not start"; e2e_done; }
step_pids "$p.0" 1 >/dev/null || e2e_fail "private pe job's task not found"
rf=$S/rankfile.$p.0.0
pass_if "job $p's private rankfile exists" wait_for_file "$rf" 20
assert_eq "root" "$(stat -c %U "$rf")" "the private rankfile is root's"
assert_ok "its job's user reads it" run_as_user cat "$rf"
assert_match "$E2E_OUT" "^rank 0=" "(the rankfile)"
size=$(stat -c %s "$rf") mtime=$(stat -c %Y "$rf")
assert_fails "its job's user cannot append 1 MB to it" run_as_user sh -c \
	"head -c 1048576 /dev/zero >>'$rf'"
assert_fails "its job's user cannot set its times back" run_as_user touch -d 2000-01-01 "$rf"
assert_fails "its job's user cannot change its mode" run_as_user chmod 666 "$rf"
assert_eq "$size $mtime" "$(stat -c '%s %Y' "$rf")" "the rankfile's size and time are unchanged"
out=$(probe -n1 --binding=linear:1)
assert_match "$out" "^bound\|" "the node's state transactions still work (a step is bound: $out)"
scancel "$p"; wait_job_done "$p" 30 >/dev/null; wait_bg
e2e_done
