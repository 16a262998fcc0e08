#!/bin/bash
# g20_strategies.sh (guest node): Grid Engine, OCS and LSF strategies bind
# real Slurm tasks across the 2 sockets, exactly as the request says. Each
# step gets the whole node (-c16 or -n2 -c8), more than the binding, so
# Slurm's own task/affinity cannot produce the same cpus.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/guest_helpers.sh"
need_plugin

expect_tasks "linear:4 fills socket 0" "$(gsrun -n1 -c16 --binding=linear:4)" 0-7
expect_tasks "linear:1:1,0 starts at socket 1" "$(gsrun -n1 -c16 --binding=linear:1:1,0)" 8-9
expect_tasks "striding:2:4 takes core 0 of each socket" "$(gsrun -n1 -c16 --binding=striding:2:4)" 0-1,8-9
expect_tasks "explicit:0,1:1,2" "$(gsrun -n1 -c16 --binding=explicit:0,1:1,2)" 2-3,12-13
expect_tasks "packed:1:unit=S is socket 0 whole" "$(gsrun -n1 -c16 --binding=packed:1:unit=S)" 0-7
expect_tasks "LSF balance:2 spreads over both sockets" "$(gsrun -n1 -c16 --binding=balance:2)" 0-1,8-9
expect_tasks "linear:2 for two tasks: consecutive groups" "$(gsrun -n2 -c8 --binding=linear:2)" 0-3 4-7
e2e_done
