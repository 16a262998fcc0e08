#!/bin/sh
# Builds the man pages: man/NAME.in -> OUT/NAME. The texts the programs
# print (`sbind --help` usage, `--binding=help`, `--mbind=help`) are put in
# as they are, so a man page and --binding=help never disagree. sbind(1)'s
# SYNOPSIS (each command's usage lines of `sbind --help`) and OPTIONS
# (`sbind --list options`) come from sbind's option table.
#   sh man/build.sh SBIND OUTDIR VERSION DATE PLUGINDIR
set -eu
sbind=$1 out=$2 version=$3 date=$4 plugindir=$5
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# roff: a backslash is \e, a line starting with . or ' is protected, a
# hyphen is \- (mandoc and groff would otherwise warn or break words).
roff() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
# the usage lines: "  sbind CMD ..." and their continuations (8 spaces),
# not the lines that say what a command does (6)
"$sbind" --help | sed -n '/^commands:/,/^$/p' | sed '1d;$d' | grep -E '^  sbind |^        ' |
	sed 's/^  //' | roff >"$tmp/usage"
# OPTIONS: a subsection per command, a tagged paragraph per option
"$sbind" --list options | roff | awk -F '\t' '
	$1 != cmd { cmd = $1; print ".SS sbind " cmd }
	{ print ".TP"; print ".B \"" $2 "\""; print $3 }' >"$tmp/options"
"$sbind" place --binding help | roff >"$tmp/binding"
# --mbind=help is the part of `sbind --help` after the binding grammar
"$sbind" --help | sed -n '/^--mbind=<policy>/,$p' | roff >"$tmp/mbind"
mkdir -p "$out"
for page in sbind.1 spank-binding.8; do
	awk -v u="$tmp/usage" -v b="$tmp/binding" -v m="$tmp/mbind" -v o="$tmp/options" '
		function cat(f,  l) { while ((getline l < f) > 0) print l; close(f) }
		/^@USAGE@$/ { cat(u); next }
		/^@OPTIONS@$/ { cat(o); next }
		/^@BINDING_HELP@$/ { cat(b); next }
		/^@MBIND_HELP@$/ { cat(m); next }
		{ print }' "$here/$page.in" |
	sed -e "s|@VERSION@|$version|g" -e "s|@DATE@|$date|g" -e "s|@PLUGINDIR@|$plugindir|g" \
		>"$out/$page"
done
