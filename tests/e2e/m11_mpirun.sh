#!/bin/bash
# m11_mpirun.sh: a real Open MPI `mpirun --rankfile` across the two slurmd
# nodes (E2E_NODES=2). An `sbatch -N2 -n4` job runs a `--binding=pe:linear:1`
# step, whose task 0 on each node copies that node's rankfile part; `sbind
# rankfile` merges the parts into one file with every rank, and mpirun
# (launching its daemons through srun on both nodes) places the ranks as
# written. Each rank reports its own host and Cpus_allowed_list from /proc;
# the assertions compare those with the merged file, never with mpirun's
# own --report-bindings claims.
E2E_NODES=2
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
need_two_nodes
command -v mpirun >/dev/null 2>&1 ||
	{ e2e_fail "mpirun is missing (Debian openmpi-bin, installed by make deps)"; e2e_done; }

# shellcheck disable=SC2016 # expanded in the job
script=$(user_file m11.sbatch <<SCRIPT
#!/bin/sh
cd "$E2E_WORK/m11" || exit 1
srun --binding=pe:explicit:0,1:0,0 sh -c 'echo "pe \$SLURM_PROCID \$(hostname) \$SLURM_BINDING_PE"; [ "\$SLURM_LOCALID" = 0 ] && cp "\$SLURM_BINDING_RANKFILE" "part.\$SLURM_NODEID"; true'
"$E2E_BUILD/sbind" rankfile --output job.rankfile part.* || exit 1
sed 's/^/rf /' job.rankfile
mpirun --rankfile job.rankfile -np 4 sh -c 'echo "rank \$OMPI_COMM_WORLD_RANK \$(hostname) \$(awk "/^Cpus_allowed_list/ {print \\\$2}" /proc/self/status)"'
echo "mpirun rc \$?"
SCRIPT
)
run_as_user mkdir -p "$E2E_WORK/m11"
bj=$(sbatch_as_user -N2 -n4 -o "$E2E_WORK/m11.out" "$script") ||
	{ e2e_fail "sbatch -N2 -n4 refused"; e2e_done; }
assert_eq COMPLETED "$(wait_job_done "$bj" 120)" "sbatch -N2 -n4 job $bj with mpirun completes"
out=$(cat "$E2E_WORK/m11.out")
e2e_note "$(echo "$out" | tr '\n' ';')"

assert_eq "mpirun rc 0" "$(echo "$out" | grep '^mpirun rc')" "mpirun accepts the merged rankfile and runs 4 ranks"
assert_eq 4 "$(echo "$out" | grep -c '^rf rank ')" "the merged rankfile lists 4 ranks"
for r in 0 1 2 3; do
	want=$n1
	[ "$r" -ge 2 ] && want=$n2
	read -r host pair <<<"$(echo "$out" | awk -v r="$r" '$1 == "pe" && $2 == r { print $3, $4 }')"
	assert_eq "$want" "$host" "pe: rank $r ran on $want"
	want_pair=0,$(( 1 - r % 2 ))
	assert_eq "$want_pair" "$pair" "pe: rank $r got core $want_pair (explicit:0,1:0,0)"
	assert_match "$out" "^rf rank $r=$want slot=${pair/,/:}$" "the merged file gives rank $r host $want and its pe core $pair"
	# the cpus of that core on the node (both nodes have this host's topology)
	cpus=$("$E2E_BUILD/sbind" place --binding "explicit:$pair" --tasks 1 | sed -nE 's/.*\(cpus ([^)]*)\)$/\1/p')
	assert_match "$out" "^rank $r $want $cpus$" "mpirun: rank $r runs on $want with Cpus_allowed_list $cpus (core $pair)"
done
for n in $n1 $n2; do
	assert_eq "" "$(node_records "$n")" "$n: no record is left after the job"
done
e2e_done
