# What ships with sbind (issue 12): its version is the Debian changelog's,
# the man pages lint clean and carry the --binding=help / --mbind=help text
# sbind prints (one source), and the bash completion offers only options
# sbind has.
root=$CLI_TOP
man_dir=$SBIND_DIR/man

want=$(head -n1 "$root/debian/changelog" | sed -n 's/^[^(]*(\([^)-]*\).*/\1/p')
expect_out "sbind --version is debian/changelog's version" "sbind (spank-binding) $want" $SBIND --version

if ! [ -f "$man_dir/sbind.1" ] || ! [ -f "$man_dir/spank-binding.8" ]; then
	_report 0 "man pages built" "no $man_dir/sbind.1 or spank-binding.8 (make all builds them)"
elif ! command -v mandoc >/dev/null 2>&1; then
	skip "man pages lint" "mandoc is not installed"
else
	for page in sbind.1 spank-binding.8; do
		out=$(mandoc -T lint -W warning "$man_dir/$page" 2>&1)
		if [ -z "$out" ]; then _report 1 "mandoc -T lint -W warning $page: clean"
		else _report 0 "mandoc -T lint -W warning $page: clean" "$out"; fi
		if command -v groff >/dev/null 2>&1; then
			out=$(groff -ww -z -man "$man_dir/$page" 2>&1)
			if [ -z "$out" ]; then _report 1 "groff -ww $page: no warnings"
			else _report 0 "groff -ww $page: no warnings" "$out"; fi
		fi
		# Every line --binding=help and --mbind=help print is in the page
		# as rendered (one source for both).
		text=$(mandoc -T ascii "$man_dir/$page" | col -bx)
		missing=$( { $SBIND place --binding help; $SBIND --help | sed -n '/^--mbind=<policy>/,$p'; } |
			sed 's/^ *//' | grep -v '^$' | while IFS= read -r l; do
				printf '%s\n' "$text" | grep -qF -- "$l" || printf '%s\n' "$l"; done)
		if [ -z "$missing" ]; then _report 1 "$page has --binding=help and --mbind=help word for word"
		else _report 0 "$page has --binding=help and --mbind=help word for word" "missing: $missing"; fi
	done
fi

# The plugin shows Slurm only its entry points (spank_binding.map): lib/'s
# names stay inside the .so.
plugin=$SBIND_DIR/spank_binding.so
if ! [ -f "$plugin" ]; then
	skip "plugin exports" "no $plugin (built with libslurm-dev)"
elif ! command -v nm >/dev/null 2>&1; then
	skip "plugin exports" "nm is not installed"
else
	exported=$(nm -D --defined-only "$plugin" | awk '{ print $3 }' | sort)
	want=$(printf '%s\n' plugin_name plugin_type plugin_version slurm_spank_exit slurm_spank_init \
		slurm_spank_init_post_opt slurm_spank_task_init slurm_spank_task_post_fork \
		spank_plugin_version | sort)
	if [ "$exported" = "$want" ]; then _report 1 "nm -D spank_binding.so: only Slurm's symbols and the 5 callbacks"
	else _report 0 "nm -D spank_binding.so: only Slurm's symbols and the 5 callbacks" "$(echo $exported)"; fi
fi

# Test hooks (include/binding/hooks/) are for tests, fuzzers and benches:
# what ships (the plugin, sbind) never reaches them.
hooked=$(grep -l '#include "binding/hooks/' "$root"/spank_binding.c "$root"/tools/*.c 2>/dev/null)
if [ -z "$hooked" ]; then _report 1 "the plugin and sbind include no test hooks"
else _report 0 "the plugin and sbind include no test hooks" "$(echo $hooked)"; fi

comp="$root/tools/sbind.bash-completion"
if ! command -v bash >/dev/null 2>&1; then
	skip "bash completion" "bash is not installed"
else
	for cmd in topology place submit gres-conf rankfile status metrics draw release gc; do
		# shellcheck disable=SC2016 # for the inner bash
		offered=$(bash -c '. "$1"; COMP_WORDS=("$3" "$2" -); COMP_CWORD=2; _sbind; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$cmd" "$SBIND" | grep '^--')
		usage=$($SBIND "$cmd" --help 2>&1)
		bad=$(for o in $offered; do [ "$o" = --help ] || printf '%s\n' "$usage" | grep -qF -- "$o" || echo "$o"; done)
		if [ -n "$offered" ] && [ -z "$bad" ]; then _report 1 "completion of sbind $cmd offers only its options"
		else _report 0 "completion of sbind $cmd offers only its options" "offered: $offered | not in sbind $cmd --help: $bad"; fi
	done
fi

# The words after --binding and --mbind come from sbind's tables (sbind
# complete), which hold every strategy --binding=help shows.
words=$($SBIND complete binding)
missing=$(for w in $words; do case $w in help|set:|env:|pe:) ;; *)
	$SBIND place --binding help | grep -qE "^  ${w%:}(:| )" || echo "$w" ;; esac; done)
has=1
for w in none linear: gpu: set: pe:; do case " $words " in *" $w "*) ;; *) has=0 ;; esac; done
if [ "$has" = 1 ] && [ -z "$missing" ]; then _report 1 "sbind complete binding: every strategy of --binding=help"
else _report 0 "sbind complete binding: every strategy of --binding=help" "words: $words | not in the help: $missing"; fi
expect_out "sbind complete mbind" "none cores cores:strict round_robin nlocal gpu" $SBIND complete mbind
expect_rc "sbind complete with no table is a usage error" 2 $SBIND complete strategies
if command -v bash >/dev/null 2>&1; then
	# shellcheck disable=SC2016 # for the inner bash
	offered=$(bash -c '. "$1"; COMP_WORDS=("$2" place --binding ""); COMP_CWORD=3; _sbind; printf "%s " "${COMPREPLY[@]}"' _ "$comp" "$SBIND")
	if [ "$offered" = "$words " ]; then _report 1 "completion after --binding asks sbind complete binding"
	else _report 0 "completion after --binding asks sbind complete binding" "offered: $offered | sbind: $words"; fi
	offered=$(bash -c '. "$1"; COMP_WORDS=("$2" place --mbind c); COMP_CWORD=3; _sbind; printf "%s " "${COMPREPLY[@]}"' _ "$comp" "$SBIND")
	if [ "$offered" = "cores cores:strict " ]; then _report 1 "completion after --mbind asks sbind complete mbind"
	else _report 0 "completion after --mbind asks sbind complete mbind" "offered: $offered"; fi
fi
