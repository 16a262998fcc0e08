#!/bin/bash
# t31_gang_linuxproc.sh: the t30 scenarios with proctrack/linuxproc (no
# freezer: Slurm stops the whole process tree with SIGSTOP, and only
# slurmctld's job state tells a suspension from a user's stop).
. "$(dirname "$0")/gang_helpers.sh"
gang_file_start none
gang_suite
e2e_done
