#!/bin/bash
# n20_picture.sh (guest node, CR_Core_Memory): a picture of the busy
# 4-NUMA node. Real jobs fill it: two tasks next to their own GPUs with
# their memory there (the 4 fake GPUs mapped to the PCI device QEMU puts
# on each NUMA node, as in g70_gpu.sh), a strict-memory job, a job Slurm
# suspends, one that runs meanwhile, and a step that waits (deferred) for
# its sibling's core. sbind draw annotates hwloc's topology and lstopo
# renders it: in the SVG every core the state says a job holds is filled
# with that job's colour, and nobody's core is not; each job's memory is
# on its NUMA nodes, the suspended and the waiting steps have their marks.
# The PNG goes to the harness's channel: tests/guest/run.sh keeps it as
# build/guest/node.png, scripts/guest-picture.sh puts it in docs/ for the
# README. NUMA node n = cpus 4n..4n+3; Slurm core k = cpus 2k,2k+1.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/binding_helpers.sh"
. "$(dirname "$0")/guest_helpers.sh"
need_plugin
command -v lstopo >/dev/null 2>&1 || { e2e_skip "n20: no lstopo (Debian package hwloc)"; e2e_done; }
HANG=$(e2e_wait_secs 600)

bus=()
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/class")" = 0x038000 ] || continue
	bus[$(cat "$d/numa_node")]=${d##*/}
done
assert_eq 4 "${#bus[@]}" "a display device on each of the 4 NUMA nodes: ${bus[*]}"
map=
for n in 0 1 2 3; do map="$map${map:+,}$E2E_DIR/dev/fakegpu$n=${bus[$n]}"; done
cluster_plugstack "gpu_devices=$map"

# Each job's script runs its srun step at once: a job counts as started
# when that step is bound, so that `scontrol suspend` never meets a step
# still being launched, and as suspended when none of its records holds
# cpus any more (the next job may be given them).
active() { state_records | grep " job=$1 step=0 " | grep -q " status=active "; }
suspended() {
	local r
	r=$(state_records | grep " job=$1 ")
	printf '%s\n' "$r" | grep -q " status=suspended " && ! printf '%s\n' "$r" | grep -q " status=active "
}
deferred() { state_records | grep " job=$1 " | grep -q " status=deferred "; }
start() {	# NAME SBATCH-ARGS... -- the job's script
	local name=$1 j; shift
	j=$(sbatch_as_user -J "$name" -o /dev/null "$@") || { e2e_fail "$name: sbatch refused" >&2; return 1; }
	# The verdict to stderr: stdout is the job id the caller keeps (a failure
	# printed there once made it "FAIL ... 8", and its scancel a no-op).
	wait_until "$HANG" active "$j" || e2e_fail "$name (job $j) not bound: record: $(state_records | grep " job=$j "); Slurm: $(scontrol show job "$j" 2>&1 | grep -oE '(JobState|Reason|ExitCode|NodeList)=[^ ]*' | tr '\n' ' ')" >&2
	echo "$j"
}

gpu=$(start n20-gpu -n2 -c4 --gpus-per-task=1 --mem=200 --binding=gpu:2 --mbind=gpu --wrap 'srun sleep 600')
mem=$(start n20-mem -n1 -c4 --mem=300 --binding=linear:2 --mbind=cores:strict --wrap 'srun sleep 600')
sus=$(start n20-suspend -n1 -c2 --mem=100 --binding=linear:1 --wrap 'srun sleep 600')
scontrol suspend "$sus"
wait_until "$HANG" suspended "$sus" || e2e_fail "job $sus: not suspended in the state"
run=$(start n20-run -n1 -c2 --mem=100 --binding=linear:1 --wrap 'srun sleep 600')
# a job whose second step waits for the core its first step holds
wait=$(start n20-wait -n1 -c2 --mem=100 --binding=linear:1 \
	--wrap 'srun --exact sleep 600 & sleep 1; srun --overlap --exact sleep 600')
wait_until "$HANG" deferred "$wait" || e2e_fail "job $wait: its second step not deferred: $(state_records | grep " job=$wait ")"
e2e_note "$("$E2E_BUILD/sbind" status --state "$E2E_STATE" | tr '\n' '|')"

out=$E2E_DIR/node
assert_ok "sbind draw renders the node's SVG with lstopo" \
	"$E2E_BUILD/sbind" draw --state "$E2E_STATE" --format svg --output "$out.svg"
assert_ok "... and its PNG" "$E2E_BUILD/sbind" draw --state "$E2E_STATE" --format png --output "$out.png"

# The colour of the k-th job by id, as sbind draw gives it (report/draw.c:
# Okabe and Ito's blue, orange, green, vermillion, purple).
colours=("rgb(0,114,178)" "rgb(230,159,0)" "rgb(0,158,115)" "rgb(213,94,0)" "rgb(204,121,167)")
jobs=$(state_records | sed -nE 's/^rec job=([0-9]+) .*/\1/p' | sort -nu)
fill_of() { sed -n "s/.*id='Core_$1_rect'.*fill='\\([^']*\\)'.*/\\1/p" "$out.svg"; }
k=0 held=
for j in $jobs; do
	cpus=$(state_records | grep " job=$j " | grep ' status=active ' | sed -nE 's/.* cpus=([^ ]*) .*/\1/p' | tr '\n' ,)
	for cpu in $(cpulist_expand "${cpus%,}" | tr ' ' '\n' | sort -nu); do
		[ $((cpu % 2)) = 0 ] || continue
		core=$((cpu / 2))
		held="$held $core"
		assert_eq "${colours[$k]}" "$(fill_of "$core")" "core L#$core (cpus $cpu-$((cpu + 1))) is job $j's colour"
	done
	k=$((k + 1))
done
for core in 0 1 2 3 4 5 6 7; do
	case " $held " in *" $core "*) continue ;; esac
	assert_ne "" "$(fill_of "$core")" "core L#$core is drawn"
	for c in "${colours[@]}"; do
		[ "$(fill_of "$core")" != "$c" ] || e2e_fail "core L#$core is nobody's but has a job's colour $c"
	done
done
svg=$(cat "$out.svg")
# the GPU job's two GPUs (PCI devices) are filled with its colour, the first
assert_eq 2 "$(grep -c "class='PCI' .*fill='${colours[0]}'" "$out.svg")" "the GPU job's 2 GPUs are its colour"
assert_contains "$svg" ">job $sus suspended<" "the suspended job has its mark"
assert_contains "$svg" ">job $wait waits<" "the waiting step has its mark"
assert_match "$svg" ">job $gpu: 100 MiB<" "the GPU job's memory on its NUMA nodes"
assert_match "$svg" ">job $mem: (300|150) MiB<" "the strict job's memory on its NUMA node(s)"

if [ -d /binding-chan ]; then
	cp "$out.png" /binding-chan/node.png && cp "$out.svg" /binding-chan/node.svg &&
		e2e_pass "the picture is in the channel (build/guest/node.png on the host)"
fi
scontrol resume "$sus"
scancel "$gpu" "$mem" "$sus" "$run" "$wait"
for j in "$gpu" "$mem" "$sus" "$run" "$wait"; do wait_job_done "$j" "$HANG" >/dev/null; done
e2e_done
