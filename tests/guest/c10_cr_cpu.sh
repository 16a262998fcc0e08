#!/bin/bash
# c10_cr_cpu.sh (guest node, CR_CPU): Slurm allocates threads. -c2 fills
# one core; two one-cpu tasks on one core share it; thread units take one
# thread; a one-cpu task gets the core its cgroup holds.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/guest_helpers.sh"
need_plugin

expect_tasks "CR_CPU -c2 linear:1: core 0" "$(gsrun -n1 -c2 --binding=linear:1)" 0-1
expect_tasks "CR_CPU -n2 linear:1: both tasks share core 0" "$(gsrun -n2 --binding=linear:1)" 0-1 0-1
expect_tasks "CR_CPU -c4 packed:1:unit=T: one thread" "$(gsrun -n1 -c4 --binding=packed:1:unit=T)" 0
expect_tasks "CR_CPU -n2 -c2 linear:1: a core each" "$(gsrun -n2 -c2 --binding=linear:1)" 0-1 2-3
# One cpu asked: Slurm's cgroup still holds the whole core (both
# threads), and so does the binding.
expect_tasks "CR_CPU -n1 linear:1: core 0" "$(gsrun -n1 --binding=linear:1)" 0-1
e2e_done
