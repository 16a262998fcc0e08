#!/bin/bash
# Part of `make releases`: a node's Slurm and the plugin upgraded while a
# job still runs. The host's build (its Slurm, the oldest release) writes
# the state: a bound job J runs, then its slurmctld and slurmd stop (J's
# slurmstepd, with the old plugin loaded, runs on, as after a package
# upgrade). The chroot's release then starts on the same state dir
# (tests/releases/upgrade_new.sh, run inside it by the newer build): it
# reads J's record, binds around it, and once J's old slurmstepd is gone
# (SIGKILL) releases it and binds a step to its core.
#   sh tests/releases/upgrade.sh SUITE COPY
# (COPY: the tree's copy inside the chroot, built; tests/releases/run.sh
# makes it.) Prints "upgrade: N passed, M failed, K skipped".
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
suite=$1 copy=$2
here=$(cd "$(dirname "$0")" && pwd)
chroots=${BINDING_CHROOTS:-/var/cache/spank-binding/chroots}
croot=$chroots/$suite
# The state dir, at one path inside the chroot and under it on the host
# (every component root's: the plugin refuses any other).
inner=$(mktemp -d "$croot/tmp/upgrade.XXXXXX") || exit 1
chmod 755 "$inner"
state=$inner/state
export E2E_PLUGSTACK_ARGS="state_dir=$state"
# shellcheck source=tests/e2e/lib.sh
. "$here/../e2e/lib.sh"
. "$here/../e2e/binding_helpers.sh"
E2E_STATE=$state
E2E_TEST=upgrade
need_plugin
[ "$E2E_NCPUS" -ge 2 ] || { e2e_skip "the upgrade test needs 2 cpus"; e2e_done; }

# Not upgraded with Slurm: the old release's plugin, listed in the newer
# release's plugstack.conf, is refused by Slurm at load; the plugin's own
# line (printed at dlopen, before Slurm's check) says to rebuild it.
mkdir -p "$inner/old"
cp "$E2E_BUILD/spank_binding.so" "$inner/old/"
printf 'ClusterName=x\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=1\nPlugStackConfig=%s\nNodeName=n1 CPUs=1 State=UNKNOWN\nPartitionName=p Nodes=n1 Default=YES\n' \
	"${inner#"$croot"}/old/plugstack.conf" >"$inner/old/slurm.conf"
echo "required ${inner#"$croot"}/old/spank_binding.so" >"$inner/old/plugstack.conf"
chmod -R a+rX "$inner/old"
out=$(sh "$here/chroot.sh" run "$suite" env SLURM_CONF="${inner#"$croot"}/old/slurm.conf" timeout 60 srun true 2>&1)
assert_match "$out" "spank-binding: built for Slurm [0-9.]+ \\(libslurm API [0-9]+\\), but this Slurm's API is [0-9]+: rebuild spank-binding" \
	"the old release's plugin in the new Slurm: its one line says to rebuild"
assert_match "$out" "Incompatible" "... beside Slurm's own refusal"

bg_srun upgrade_old -n1 --binding=linear:1 sleep 600
j=$(job_named upgrade_old) || { e2e_fail "the old release's job did not start"; e2e_done; }
p=$(step_pids "$j.0" 1) || { e2e_fail "job $j: no task"; e2e_done; }
cpu=$(cpus_allowed_of "$p")
stepd=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status")
assert_eq slurmstepd "$(cat "/proc/$stepd/comm" 2>/dev/null)" "job $j's task runs under its slurmstepd $stepd"
assert_eq 1 "$(cpulist_count "$cpu")" "job $j bound by the old release's plugin to one cpu ($cpu)"
assert_match "$(state_records)" " job=$j .*cpus=$cpu " "the old release wrote job $j's record"

# The upgrade: the old daemons stop, the job's slurmstepd runs on.
_e2e_stop_daemons
pass_if "job $j's slurmstepd outlives the old slurmctld and slurmd" _e2e_alive "$stepd" slurmstepd

out=$(sh "$here/chroot.sh" run "$suite" env UPGRADE_STATE="${state#"$croot"}" UPGRADE_JOB="$j" \
	UPGRADE_STEPD="$stepd" UPGRADE_TASK="$p" UPGRADE_CPU="$cpu" BINDING_BUILD="$copy/build" \
	bash "$copy/tests/releases/upgrade_new.sh" 2>&1)
printf '%s\n' "$out" | grep -E '^(  ok|  FAIL|  skip|       |cluster: (up|mode))'
sum=$(printf '%s\n' "$out" | sed -nE 's/^upgrade_new: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p')
if [ -z "$sum" ]; then
	e2e_fail "the new release's half printed no summary: $(printf '%s\n' "$out" | tail -n 20)"
else
	read -r np nf ns <<<"$sum"
	for _ in $(seq 1 "$np"); do echo "pass upgrade (new release)" >>"$E2E_RESULTS"; done
	for _ in $(seq 1 "$nf"); do echo "fail upgrade (new release)" >>"$E2E_RESULTS"; done
	for _ in $(seq 1 "$ns"); do echo "skip upgrade (new release)" >>"$E2E_RESULTS"; done
	[ "$nf" -eq 0 ] || _e2e_file_failed=1
fi
_e2e_standalone_end() {
	local rc=$?
	cluster_stop
	rm -rf "$inner"
	awk '{ n[$1]++ } END { printf "upgrade: %d passed, %d failed, %d skipped\n", n["pass"], n["fail"], n["skip"] }' "$E2E_RESULTS"
	grep -q '^fail ' "$E2E_RESULTS" && rc=1
	rm -f "$E2E_RESULTS"
	exit $rc
}
e2e_done
