#!/bin/bash
# t21_refused.sh: bad OCS packed and LSF requests are refused by srun, sbatch
# and salloc before anything is queued, with the parser's message naming the
# bad token and what is wrong; --binding=help shows both models with an
# example each.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin

before=$(jobs_known)
script=$(user_file t21.sh <<'EOF2'
#!/bin/sh
true
EOF2
)

# request|what the message must also say
bad='packed:1:unit=Q|unit "Q" is not one of
balance:0|n must be >= 1
pack:0|n must be >= 1
packed:0|amount must be >= 1
packed:1:colour=red|unknown key "colour"
packed:2:sort=Q|sort letter "Q" in "Q" is not one of
any:1:level=die|level "die" is not socket, core or thread
cpus:x|cpu "x" is not a decimal number'
while IFS='|' read -r req why; do
	for tool in srun sbatch salloc; do
		case $tool in
		srun) out=$(run_as_user timeout 300 srun -n1 --binding="$req" true 2>&1); rc=$? ;;
		sbatch) out=$(run_as_user timeout 300 sbatch --binding="$req" "$script" 2>&1); rc=$? ;;
		salloc) out=$(run_as_user timeout 300 salloc -n1 --binding="$req" true 2>&1); rc=$? ;;
		esac
		assert_ne 0 "$rc" "$tool --binding=$req exits non-zero"
		assert_contains "$out" "\"$req\": $why" "$tool --binding=$req: the message names the token and says why"
	done
done <<<"$bad"

# The same request in a script's #SBATCH line.
script_bad=$(user_file t21_bad.sh <<'EOF2'
#!/bin/sh
#SBATCH --binding=packed:1:unit=Q
true
EOF2
)
out=$(run_as_user timeout 300 sbatch "$script_bad" 2>&1); rc=$?
assert_ne 0 "$rc" "#SBATCH --binding=packed:1:unit=Q: sbatch exits non-zero"
assert_contains "$out" 'unit "Q"' "#SBATCH --binding=packed:1:unit=Q: the message names the unit"
assert_eq "$before" "$(jobs_known)" "nothing was queued (jobs known before and after: '$before')"

# help: the packed and the LSF forms, an example of each.
out=$(run_as_user timeout 300 srun --binding=help true 2>&1); rc=$?
assert_eq 0 "$rc" "srun --binding=help exits 0"
assert_contains "$out" "packed:<amount>[:<key>=<value>...]" "help: the OCS packed form"
assert_contains "$out" "unit=<u>" "help: the packed keys"
assert_match "$out" '^  e\.g\. --binding=packed:[0-9]' "help: a packed example"
assert_contains "$out" "balance:<n>" "help: the LSF balance form"
assert_contains "$out" "cpus:<list>" "help: the LSF cpu list form"
assert_match "$out" '^  e\.g\. --binding=(balance|pack|any|cpus):' "help: an LSF example"
assert_eq "$before" "$(jobs_known)" "help queued nothing"
e2e_done
