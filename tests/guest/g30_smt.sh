#!/bin/bash
# g30_smt.sh (guest node, CR_Core): hardware threads. Tasks that Slurm puts
# on the threads of one core share that core (issue 13: `srun -n2
# --binding=linear:1` used to bind nothing); -c2 gives each task its core;
# --hint=nomultithread and --threads-per-core=1; packed unit=T vs unit=C;
# a start core the step lacks is the reason. Never a cpu outside the
# task's cgroup.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/guest_helpers.sh"
need_plugin

expect_tasks "-n2 linear:1 (one core from Slurm, a task per thread) shares the core" \
	"$(gsrun -n2 --binding=linear:1)" 0-1 0-1
# Slurm's default block:cyclic gives -n4 core 0 of each socket (cpus 0-1
# and 8-9), a task per thread; the tasks on one core share it.
expect_tasks "-n4 linear:1: two tasks per core" "$(gsrun -n4 --binding=linear:1)" 0-1 0-1 8-9 8-9
expect_tasks "-n2 -c2 linear:1: a core each" "$(gsrun -n2 -c2 --binding=linear:1)" 0-1 2-3
# One thread per core: Slurm gives a core on each socket (0,0 and 1,0).
expect_tasks "--hint=nomultithread -n2 linear:1: a core each" \
	"$(gsrun -n2 --hint=nomultithread --binding=linear:1)" 0-1 8-9
expect_tasks "--threads-per-core=1 -n2 linear:1: a core each" \
	"$(gsrun -n2 --threads-per-core=1 --binding=linear:1)" 0-1 8-9
expect_tasks "-c4 packed:1:unit=T: one thread" "$(gsrun -n1 -c4 --binding=packed:1:unit=T)" 0
expect_tasks "-c4 packed:1:unit=C: one core, both threads" "$(gsrun -n1 -c4 --binding=packed:1:unit=C)" 0-1
expect_tasks "-c4 packed:2:unit=T: two threads of core 0" "$(gsrun -n1 -c4 --binding=packed:2:unit=T)" 0-1

out=$(gsrun -n1 -c8 --binding=linear:1:1,0)
assert_contains "$out" "unbound: --binding=linear:1:1,0 needs core 1,0, which is not among this step's cores: Slurm gave it 4 cores (cpus 0-7) for 1 task" \
	"-c8 linear:1:1,0: the reason names core 1,0"

# OMP_PLACES lists the task's threads, one place per core.
# shellcheck disable=SC2016 # expanded by the task
out=$(run_as_user timeout "$(e2e_wait_secs 600)" srun -n1 -c4 --binding=linear:2 sh -c 'echo "$OMP_PLACES $OMP_PROC_BIND"' 2>&1)
assert_eq "{0,1},{2,3} close" "$out" "-c4 linear:2: OMP_PLACES names both cores' threads"
e2e_done
