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
## 7. The binding reaches Slurm's scheduler: with the package's cli_filter, linear:2 asks Slurm for two whole cores (no -c given), and a request no allocation can hold is refused at submission.
@cli_filter on
srun -v -n1 --binding=linear:2 sh -c 'echo "Cpus_allowed_list=$(awk "/^Cpus_allowed_list/ {print \$2}" /proc/self/status)"' 2>&1 | grep -E 'Cpus_allowed|spank-binding'
srun -n1 -c1 --binding=linear:2 true
@cli_filter off
## 8. GPUs as Slurm GRES (this node's two are device files with no driver, so their place is unknown and the task says so): gpu:1 takes a core for the task's own GPU.
srun -n2 -l --gpus-per-task=1 --binding=gpu:1 sh -c 'echo "GPU $SLURM_BINDING_GPUS CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES cpus=$SLURM_BINDING locality=${SLURM_BINDING_GPU_LOCALITY%%:*}"' 2>&1 | grep -v spank-binding:
## 9. Slurm suspends a job (scontrol suspend, or the gang scheduler): its cores go to the job that runs meanwhile, and come back on resume.
sbatch -n2 -J demo-s --binding=linear:1 -o /dev/null --wrap 'srun sleep 60'; until grep -q "job=$(squeue -h -n demo-s -o %i) step=0 .* status=active" "$E2E_STATE/state"; do sleep 0.2; done
@root j=$(squeue -h -n demo-s -o %i); scontrol suspend "$j" && until ! grep "^rec job=$j " "$E2E_STATE/state" | grep -qv ' status=suspended '; do sleep 0.2; done; "$E2E_BUILD/sbind" status --state "$E2E_STATE" | head -3
srun -n2 -l --binding=linear:1 sh -c 'echo "while it is suspended: task on $SLURM_BINDING"' 2>&1 | grep -v spank-binding:
@root j=$(squeue -h -n demo-s -o %i); scontrol resume "$j" && until ! grep "^rec job=$j " "$E2E_STATE/state" | grep -qv ' status=active '; do sleep 0.2; done; "$E2E_BUILD/sbind" status --state "$E2E_STATE" --node "$E2E_NODE" --job "$j" | sed -n '/step 0/,$p'
## 10. What an admin sees while it runs: the node's metrics for Prometheus (sbind metrics, or node_exporter's textfile), a picture of who holds which core (sbind draw; lstopo renders it), one line per bound task in slurmd's log.
@root "$E2E_BUILD/sbind" metrics --state "$E2E_STATE" | grep -E '^spank_binding_(placements|refusals|fallbacks)_total.* [1-9]|^spank_binding_(steps|socket_cores_held)[{ ].* [1-9]'
@root "$E2E_BUILD/sbind" draw --state "$E2E_STATE" --format svg --output "$E2E_DIR/node.svg" && grep -o "id='Core_[0-9]_rect'[^/]*fill='[^']*'\|>job [0-9][^<]*[:(][^<]*<" "$E2E_DIR/node.svg" | sed -E "s/ class='Core' x.*fill=/ fill=/; s/^>|<$//g"
@root grep -h 'spank-binding: job .* bound' "$E2E_DIR"/log/slurmd*.log | tail -2 | sed -E 's/^\[[^]]*\] //'
@root j=$(squeue -h -n demo-s -o %i); scancel "$j"; until ! grep -q " job=$j " "$E2E_STATE/state"; do sleep 0.2; done
## 11. The node's state once every job has ended.
@root "$E2E_BUILD/sbind" status --state "$E2E_STATE"
