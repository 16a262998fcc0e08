# The man pages against the code (issue 23 item 4): spank-binding(8) names
# every plugstack key with its form and default, every variable a task
# receives, every strategy; sbind(1) every strategy; and neither names a
# key, task variable or strategy the code lacks. The lists come from the
# code (sbind --list), never from a copy here; the pages are read as
# mandoc renders them (one line per paragraph).
man_dir=$SBIND_DIR/man
p8=$man_dir/spank-binding.8 p1=$man_dir/sbind.1

# Lines of a rendered page between a section heading and the next one.
section() { printf '%s\n' "$1" | awk -v h="$2" '$0 == h { on = 1; next } on && /^[^ ]/ { exit } on'; }
# Tags of a section's tagged paragraphs: a line indented 7 whose next
# line is its body, indented 14 (an untagged paragraph is indented 7).
tags() { printf '%s\n' "$1" | awk '
	prev != "" && /^              [^ ]/ { print prev }
	{ prev = /^       [^ ]/ ? substr($0, 8) : "" }'; }
# Lines of the first set that the second lacks.
lacks() { printf '%s\n' "$1" | grep -v '^$' | while IFS= read -r w; do
	printf '%s\n' "$2" | grep -qxF -- "$w" || printf '%s\n' "$w"; done; }
# One TAP line: ok when $3 (the offenders) is empty.
none() { if [ -z "$3" ]; then _report 1 "$1"; else _report 0 "$1" "$2: $(echo $3)"; fi; }

if ! [ -f "$p8" ] || ! [ -f "$p1" ]; then
	_report 0 "man pages built" "no $p8 or $p1 (make all builds them)"
	return 0 2>/dev/null || exit 0
fi
if ! command -v mandoc >/dev/null 2>&1; then
	skip "man pages name what the code has" "mandoc is not installed"
	return 0 2>/dev/null || exit 0
fi
keys=$($SBIND --list keys) vars=$($SBIND --list variables) strategies=$($SBIND --list strategies)
if [ -z "$keys" ] || [ -z "$vars" ] || [ -z "$strategies" ]; then
	_report 0 "sbind --list keys, variables and strategies print the code's tables" \
		"keys: $(echo $keys) | variables: $(echo $vars) | strategies: $(echo $strategies)"
	return 0 2>/dev/null || exit 0
fi
text8=$(mandoc -T ascii -O width=1000 "$p8" | col -bx)
text1=$(mandoc -T ascii -O width=1000 "$p1" | col -bx)

# Plugstack keys: each tag of PLUGSTACK ARGUMENTS is one key's usage.
args=$(section "$text8" "PLUGSTACK ARGUMENTS")
man_keys=$(tags "$args" | sed 's/[=[].*//')
code_keys=$(printf '%s\n' "$keys" | cut -f1)
none "spank-binding(8) names every plugstack key" "missing" "$(lacks "$code_keys" "$man_keys")"
none "spank-binding(8) names no plugstack key the code lacks" "not in the code" \
	"$(lacks "$man_keys" "$code_keys")"
bad=$(printf '%s\n' "$keys" | while IFS="$(printf '\t')" read -r name usage def help; do
	body=$(printf '%s\n' "$args" | awk -v k="$name" '
		/^       [^ ]/ { tag = substr($0, 8); sub(/[=[].*/, "", tag); on = tag == k; next }
		on')
	printf '%s\n' "$body" | grep -qE -- "Default: $(printf '%s' "$def" | sed 's/[].[*^$\\/]/\\&/g')([.,;: ]|\$)" ||
		printf '%s=%s ' "$name" "$def"
	# A closed list of values is the page's tag word for word.
	case $usage in *"<"*) ;; *"|"*)
		tags "$args" | grep -qxF -- "$usage" || printf '%s (tag) ' "$usage" ;;
	esac
done)
none "spank-binding(8) gives every key's default and values as the code has them" \
	"differ (want Default: <code's>)" "$bad"

# Variables: the tags above "Read from the job's environment:" in ENVIRONMENT.
set_part=$(section "$text8" ENVIRONMENT | sed "/^       Read from the job's environment:/q")
man_vars=$(tags "$set_part" | grep -v "^Read from" | sed 's/, /\n/g')
none "spank-binding(8) names every variable a task receives" "missing" \
	"$(lacks "$vars" "$man_vars")"
none "spank-binding(8) names no task variable the plugin does not set" "not set by the code" \
	"$(lacks "$man_vars" "$vars")"
for page in 8 1; do
	eval "text=\$text$page"
	name=$([ "$page" = 8 ] && echo "spank-binding(8)" || echo "sbind(1)")
	named=$(printf '%s\n' "$text" | grep -oE '(SLURM_BINDING|SLURM_MBIND|SGE_|GCS_|LSB_BIND)[A-Z_]*' |
		sort -u)
	none "$name: every SLURM_BINDING*/SLURM_MBIND*/SGE_*/GCS_*/LSB_BIND* name is one the code sets" \
		"unknown" "$(lacks "$named" "$vars")"
	# Strategies: each word as the grammar writes it (none alone, the
	# others with their ':'); every word a request starts with is one of
	# them: --binding=WORD, or --binding WORD: (prose says "--binding
	# wins"); help and the placeholder spec are the page's own words.
	missing=$(printf '%s\n' "$strategies" | while read -r s; do
		if [ "$s" = none ]; then w=none; else w="$s:"; fi
		printf '%s\n' "$text" | grep -qF -- "$w" || echo "$s"; done)
	none "$name names every strategy" "missing" "$missing"
	used=$(printf '%s\n' "$text" | grep -oE -- '--binding(=|( [a-z_]+:))((set|env|pe):)?[a-z_]*' |
		sed -E 's/^--binding[= ]((set|env|pe):)?//; s/:.*//' | grep -v '^$' | sort -u)
	none "$name: every --binding word is a strategy" "unknown" \
		"$(lacks "$used" "$(printf '%s\nhelp\nspec\n' "$strategies")")"
done

# sbind(1)'s SYNOPSIS against the commands themselves: each command's
# synopsis starts with "sbind", and names every option and every list of
# values (a|b|c) that the command's own usage names (sbind CMD --help), and
# --list's words as the code's error gives them. Both come from sbind's
# option table (tools/sbind_opts.c) through man/build.sh: this checks the
# build put them in.
syn=$(section "$text1" SYNOPSIS)
none "sbind(1) SYNOPSIS: every command line starts with the command's name" "lines" \
	"$(printf '%s\n' "$syn" | grep -E '^       [^ ]' | grep -vE '^       sbind ')"
bad=$(for cmd in topology place rankfile submit gres-conf status metrics draw release gc; do
	s=$(printf '%s\n' "$syn" | awk -v c="$cmd" '
		/^       sbind / { on = $2 == c } on')
	[ -n "$s" ] || { echo "$cmd:(no synopsis)"; continue; }
	$SBIND "$cmd" --help | awk '/^usage:/ || (u && /^   +[^ ]/) { u = 1; print; next } { u = 0 }' |
		grep -oE -- '--[a-z][a-z-]*|[a-z_]+(\|[a-z_]+)+' | sort -u | while read -r w; do
		printf '%s\n' "$s" | grep -qF -- "$w" || echo "$cmd:$w"
	done
done
w=$($SBIND --list nothing 2>&1 | grep -oE '[a-z]+(\|[a-z]+)+')
printf '%s\n' "$syn" | grep -qF -- "sbind --list $w" || echo "--list:$w")
none "sbind(1) SYNOPSIS names every option and value list of each command's usage" "missing" "$bad"

# plugstack.conf.example: one entry per key ("#   key=FORM  text" or a
# flag's "#   key  text", up to the next "#" line; "#   required ..." is
# an example line), each with the code's default.
example=$(awk '
	/^#   [a-z_]+([=[]|  |$)/ { if (e != "") print e; e = substr($0, 5); next }
	/^#$/ { if (e != "") print e; e = ""; next }
	e != "" { sub(/^# */, " "); e = e $0 }
	END { if (e != "") print e }' "$CLI_TOP/plugstack.conf.example")
ex_keys=$(printf '%s\n' "$example" | sed 's/[= [].*//')
none "plugstack.conf.example names every plugstack key" "missing" "$(lacks "$code_keys" "$ex_keys")"
none "plugstack.conf.example names no key the code lacks" "not in the code" \
	"$(lacks "$ex_keys" "$code_keys")"
bad=$(printf '%s\n' "$keys" | while IFS="$(printf '\t')" read -r name usage def help; do
	printf '%s\n' "$example" | grep -E "^$name([= []|\$)" |
		grep -qE -- "Default: $(printf '%s' "$def" | sed 's/[].[*^$\\/]/\\&/g')([.,;: ]|\$)" ||
		printf '%s=%s ' "$name" "$def"
done)
none "plugstack.conf.example gives every key's default as the code has it" \
	"differ (want Default: <code's>)" "$bad"

# README's plugstack table (| `key=FORM` | default | meaning |, under
# "## Configuration"): every key, the code's default, no other key.
readme=$(awk '/^## Configuration/ { on = 1; next } on && /^## / { exit }
	on && /^\| `[a-z_]+/' "$CLI_TOP/README.md" |
	awk -F' \\| ' '{ k = $1; sub(/^\| `/, "", k); sub(/[=`[].*/, "", k); d = $2; gsub(/`/, "", d)
		print k "\t" d }')
rd_keys=$(printf '%s\n' "$readme" | cut -f1)
none "README's plugstack table names every key" "missing" "$(lacks "$code_keys" "$rd_keys")"
none "README's plugstack table names no key the code lacks" "not in the code" \
	"$(lacks "$rd_keys" "$code_keys")"
none "README's plugstack table gives every key's default as the code has it" \
	"differ (want the code's)" "$(lacks "$(printf '%s\n' "$keys" | cut -f1,3)" "$readme" | tr '\t' =)"
