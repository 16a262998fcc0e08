#!/bin/bash
# t13_invalid.sh: bad --binding/--mbind values are refused by srun, sbatch
# and salloc before anything is queued, with the parser's message naming
# the bad token; --binding=help prints the grammar and exits 0; the
# options are in srun --help.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin

before=$(jobs_known)
script=$(user_file t13.sh <<'EOF2'
#!/bin/sh
true
EOF2
)

check_refused() {	# WHAT TOKEN CMD...
	local what=$1 token=$2; shift 2
	local out rc
	out=$(run_as_user timeout 300 "$@" 2>&1); rc=$?
	if [ $rc -ne 0 ]; then e2e_pass "$what: exits $rc"; else e2e_fail "$what: exited 0: $out"; fi
	assert_contains "$out" "\"$token\"" "$what: the message names \"$token\""
}
for tool in srun sbatch salloc; do
	case $tool in
	srun) run=(srun -n1 true) ;;
	sbatch) run=(sbatch "$script") ;;
	salloc) run=(salloc -n1 true) ;;
	esac
	check_refused "$tool --binding=linear:0" linear:0 "${run[0]}" --binding=linear:0 "${run[@]:1}"
	check_refused "$tool --binding=bogus" bogus "${run[0]}" --binding=bogus "${run[@]:1}"
	check_refused "$tool --mbind=nowhere" nowhere "${run[0]}" --binding=linear:1 --mbind=nowhere "${run[@]:1}"
done
assert_match "$(run_as_user srun --binding=linear:0 true 2>&1)" 'amount must be >= 1' "srun: the parser's reason is shown"

# In the script (#SBATCH) and through the environment srun reads.
script_bad=$(user_file t13_bad.sh <<'EOF2'
#!/bin/sh
#SBATCH --binding=striding:2
true
EOF2
)
check_refused "#SBATCH --binding=striding:2" striding:2 sbatch "$script_bad"
check_refused "srun with a bad --binding in its environment" explicit:0 \
	env SLURM_SPANK__SLURM_SPANK_OPTION_binding_binding=explicit:0 srun -n1 true

after=$(jobs_known)
assert_eq "$before" "$after" "nothing was queued (jobs known before and after: '$before')"

# help: grammar on stdout, exit 0, nothing submitted.
for tool in srun sbatch salloc; do
	case $tool in
	srun) out=$(run_as_user timeout 300 srun --binding=help true 2>&1); rc=$? ;;
	sbatch) out=$(run_as_user timeout 300 sbatch --binding=help "$script" 2>&1); rc=$? ;;
	salloc) out=$(run_as_user timeout 300 salloc --binding=help true 2>&1); rc=$? ;;
	esac
	assert_eq 0 "$rc" "$tool --binding=help exits 0"
	assert_contains "$out" "linear:<amount>[:<socket>,<core>]" "$tool --binding=help prints the grammar"
done
out=$(run_as_user timeout 300 srun --mbind=help true 2>&1)
assert_contains "$out" "cores:strict" "srun --mbind=help prints the policies"
assert_eq "$after" "$(jobs_known)" "help submitted nothing"

out=$(run_as_user srun --help 2>&1)
assert_match "$out" '--binding=SPEC' "srun --help lists --binding"
assert_match "$out" '--mbind=SPEC' "srun --help lists --mbind"
e2e_done
