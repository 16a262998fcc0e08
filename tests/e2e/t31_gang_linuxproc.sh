#!/bin/bash
# t31_gang_linuxproc.sh: the t30 scenarios with proctrack/linuxproc (no
# freezer: Slurm stops the whole process tree with SIGSTOP, and only
# slurmctld's job state tells a suspension from a user's stop); 10 steps
# leave nothing behind (t30 checks 50).
. "$(dirname "$0")/gang_helpers.sh"
gang_file_start none
GANG_STEPS=10   # t30 runs 50; each step costs ~1 s here
gang_suite
e2e_done
