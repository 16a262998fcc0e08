# Examples run by `make demo` and by tests/e2e/t01_demo.sh (tests/e2e/demo_run.sh
# explains the line forms). The plugin argument `verbose` makes every task
# print one "spank-binding: host=... task=... cores=... cpus=... mempolicy=..."
# line. Each example waits for what it shows, never for a time.
## 1. Two tasks, one core each: the kernel's view and the task's environment.
srun -n2 -l --binding=linear:1 sh -c 'echo "Cpus_allowed_list=$(awk "/^Cpus_allowed_list/ {print \$2}" /proc/self/status) SLURM_BINDING=$SLURM_BINDING topology=$SLURM_BINDING_TOPOLOGY OMP_PLACES=$OMP_PLACES"'
## 2. A batch job: the script holds amount x its tasks; srun steps inside share them out.
sbatch -W -n2 --binding=linear:1 -o demo-batch.out --wrap 'echo "script: $(awk "/^Cpus_allowed_list/ {print \$2}" /proc/self/status)"; srun -n2 -l sh -c "echo step task on \$SLURM_BINDING"' >/dev/null && cat demo-batch.out
## 3. Two jobs at once get different cores; the state file shows who holds what.
rm -f demo-?.up; for j in a b; do (srun -n1 -J demo-$j --binding=linear:1 sh -c "touch demo-$j.up; exec sleep 600" >/dev/null 2>&1 &); until [ -e demo-$j.up ]; do sleep 0.1; done; done; squeue -o '%.4i %.8j %.2t'
@root "$E2E_BUILD/sbind" status --state "$E2E_STATE"
## A third job at the same time finds no free core: it starts unbound, deferred (on_failure=defer binds it once a core frees), and says why.
srun -n1 --binding=linear:1 sh -c 'echo "SLURM_BINDING_STATUS=$SLURM_BINDING_STATUS"'; scancel -n demo-a; scancel -n demo-b; while [ -n "$(squeue -h)" ]; do sleep 0.2; done
## 4. env and pe instances bind nothing; pe writes an OpenMPI rankfile.
srun -n1 -c2 --binding=env:linear:1 sh -c 'echo "Cpus_allowed_list=$(awk "/^Cpus_allowed_list/ {print \$2}" /proc/self/status) SLURM_BINDING=$SLURM_BINDING"'
srun -n2 -l --binding=pe:linear:1 sh -c 'echo "pe pairs $SLURM_BINDING_PE"; [ "$SLURM_PROCID" = 0 ] && cat "$SLURM_BINDING_RANKFILE"; true'
## 5. Memory policy: cores:strict binds memory to the cores' NUMA node.
srun -n1 --binding=linear:1 --mbind=cores:strict numactl --show | head -1
## 6. Bad requests stop before anything is queued; help shows the grammar.
srun --binding=linear:0 true
srun --binding=help true | head -9
## 7. The node's state once every job has ended.
@root "$E2E_BUILD/sbind" status --state "$E2E_STATE"
