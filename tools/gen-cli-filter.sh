#!/bin/sh
# Writes the cli_filter.lua (tools/cli_filter.lua.in) to stdout with the
# sbind it runs, where it is installed, and the allocation options the
# translation reads (from sbind's own table, so the two never disagree).
#   sh tools/gen-cli-filter.sh BUILT_SBIND SBIND_PATH DATADIR < tools/cli_filter.lua.in
set -eu
opts=$("$1" submit --list-options | sed 's/.*/"&",/' | tr '\n' ' ')
[ -n "$opts" ] || { echo "gen-cli-filter: $1 submit --list-options printed nothing" >&2; exit 1; }
sed -e "s|@SBIND@|$2|g" -e "s|@DATADIR@|$3|g" -e "s|@OPTIONS@|${opts% }|"
