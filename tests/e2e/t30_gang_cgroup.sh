#!/bin/bash
# t30_gang_cgroup.sh: gang scheduling and suspend with proctrack/cgroup (the
# cgroup v1 freezer): a user's stop keeps the cores; scontrol suspend
# releases them, a job started meanwhile is bound to them, resume defers
# and rebinds; two jobs time-sliced over >= 4 slices never share a cpu;
# 50 steps leave no process, thread or record. Its own gang cluster.
. "$(dirname "$0")/gang_helpers.sh"
gang_file_start v1
gang_suite
e2e_done
