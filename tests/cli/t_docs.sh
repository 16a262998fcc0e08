# Every example of sbind output in README.md, docs/*.md and man/*.in is
# what the built sbind prints (scripts/doc-examples; docs/testing.md,
# "Examples in the docs"): each marked transcript runs and must print what
# the doc shows, each e2e block must be one an e2e test shows (and compares
# when it runs), and no block with sbind output goes unmarked.
# `make doc-examples` writes what the tree prints into the docs.
out=$(SBIND="$SBIND" sh "$CLI_TOP/scripts/doc-examples" check 2>&1)
printf '%s\n' "$out" | while IFS= read -r l; do
	case $l in
	'ok - '*) _report 1 "${l#ok - }" ;;
	'not ok - '*) _report 0 "${l#not ok - }" "" ;;
	*) printf '#   %s\n' "${l#\#   }" ;;
	esac
done
[ -n "$out" ] || _report 0 "scripts/doc-examples check printed nothing" ""
