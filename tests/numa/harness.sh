#!/bin/sh
# Shared by the QEMU stages (tests/numa/run.sh, tests/guest/run.sh), sourced
# after setting HARNESS_STAGE (the name in the summary line) and build:
# timing, the summary line and results record, skipping, the cache lock and
# the 4-node NUMA layout (2 sockets x 2 nodes; distances 10 local, 12 same
# socket, 20 other socket).

# Milliseconds, and seconds between two of them, for the timing lines.
ms() { date +%s%3N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }

t_start=$(ms)
record() { # passed failed skipped
	echo "$HARNESS_STAGE: $1 passed, $2 failed, $3 skipped ($(secs "$t_start" "$(ms)") s)"
	# HARNESS_RESULTS: another file (a release's guest run reports its own).
	if [ -n "${HARNESS_RESULTS:-}" ]; then echo "$HARNESS_STAGE $1 $2 $3" >>"$HARNESS_RESULTS"
	elif [ -d "$build" ]; then echo "$HARNESS_STAGE $1 $2 $3" >>"$build/results"; fi
	[ "$2" -eq 0 ]
}
skip() { echo "# SKIP $HARNESS_STAGE: $*"; record 0 0 1; exit 0; }

# Two make checks at once (several people share a machine) must not rebuild
# a cache under each other's feet; a run waits up to $2 seconds for it.
harness_lock() { # CACHE SECONDS
	mkdir -p "$1"
	exec 9>"$1/.lock"
	if command -v flock >/dev/null && ! flock -w "$2" 9; then
		echo "not ok - cache $1 stays locked by another run"
		record 0 1 0
		exit 1
	fi
}

# QEMU's accelerator for both guests: TCG with one host thread for all the
# vCPUs. make check runs a guest beside the other lane's stages on 2 CPUs;
# multi-threaded TCG's 16 vCPU threads kept 1.25 CPUs busy, spinning in the
# guest's locks whenever the host preempted a vCPU, and took the other
# lane's CPU. A g20-only guest run (2026-11-28) beside one CPU hog: 114 s
# and 124 s of CPU with thread=multi, 58 s and 59 s with thread=single;
# idle 77 s and 69 s.
# shellcheck disable=SC2034 # used by the run.sh files that source this
NUMA_ACCEL="tcg,thread=single,tb-size=256"

# The guest kernels' command line after the console, for both guests.
# no_ipi_broadcast=1: with the default all-but-self shorthand IPI, QEMU 7.2's
# multi-threaded TCG seems to lose one now and then; the first cross-CPU call after
# the kernel turns shorthands on (patching a static key while marking
# sched_clock stable, about 2.3 s into the boot) then waits forever. That
# hung 4 of 42 boots of the 16-vCPU guest on this 2-CPU host (its log
# stopped at "IPI shorthand broadcast: enabled", "sched_clock: Marking
# stable"); with one IPI per cpu, 0 of 37.
# norandmaps: TCG keys the code it translates by virtual address, so with
# ASLR every new process (srun, slurmstepd, each task, each scontrol) put
# its libraries somewhere else and had them translated again. Without it
# they map where the last process had them and their translations are
# reused: a g10+g20 guest run took 50 s instead of 75 s (cluster start 10
# s instead of 18 s), idle. The guest holds no secrets; nothing here
# tests address-space layout.
# shellcheck disable=SC2034 # used by the run.sh files that source this
NUMA_GUEST_KARGS="panic=-1 lpj=9780000 tsc=reliable no_timer_check mitigations=off no_ipi_broadcast=1 norandmaps"

# QEMU's -numa arguments for 4 nodes of MEM memory with CPN cpus each
# (node n = cpus n*CPN .. n*CPN+CPN-1), and the distance matrix.
numa_qemu_args() { # CPN MEM
	_a=""
	for _n in 0 1 2 3; do
		_a="$_a -object memory-backend-ram,id=mem$_n,size=$2"
		_a="$_a -numa node,nodeid=$_n,cpus=$(($1 * _n))-$(($1 * _n + $1 - 1)),memdev=mem$_n"
	done
	for _s in 0 1 2 3; do
		for _d in 0 1 2 3; do
			[ "$_s" -lt "$_d" ] || continue
			if [ $((_s / 2)) -eq $((_d / 2)) ]; then _v=12; else _v=20; fi
			_a="$_a -numa dist,src=$_s,dst=$_d,val=$_v"
		done
	done
	echo "$_a"
}
