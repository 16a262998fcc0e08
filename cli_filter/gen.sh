#!/bin/sh
# Writes the cli_filter.lua (cli_filter/cli_filter.lua.in) to stdout with the
# translation module it loads, the sbind it runs when the module cannot be
# loaded, where it is installed, and the allocation options the
# translation reads (from sbind's own table, so the two never disagree).
#   sh cli_filter/gen.sh BUILT_SBIND SBIND_PATH DATADIR MODULE_PATH < cli_filter/cli_filter.lua.in
set -eu
opts=$("$1" submit --list-options | sed 's/.*/"&",/' | tr '\n' ' ')
[ -n "$opts" ] || { echo "cli_filter/gen.sh: $1 submit --list-options printed nothing" >&2; exit 1; }
sed -e "s|@SBIND@|$2|g" -e "s|@DATADIR@|$3|g" -e "s|@MODULE@|$4|g" -e "s|@OPTIONS@|${opts% }|"
