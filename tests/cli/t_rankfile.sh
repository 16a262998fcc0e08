# Open MPI rankfiles (issue 12): the slot syntax Open MPI 4.1 reads, the
# merge of per-node files, and a real `mpirun --rankfile ... --report-bindings`
# whose ranks' Cpus_allowed_list must be the cpus sbind placed them on.
# Topologies other than this machine's are given to both sbind and mpirun
# as hwloc XML (mpirun --mca hwloc_base_topo_file), with OS cpus this
# 2-cpu machine has where a rank is bound to them.

# --- the slot syntax ------------------------------------------------------
expect_out "one core per rank: slot=S:C" "rank 0=n1 slot=0:0
rank 1=n1 slot=0:1" $SBIND place --topology "pack:1 core:2" --binding linear:1 --tasks 2 --format rankfile --host n1
expect_out "several cores: a range, never S:C,C (Open MPI splits at , first)" "rank 4=n1 slot=0:0-1
rank 5=n1 slot=1:0-1" $SBIND place --topology "pack:2 core:2" --binding linear:2 --tasks 2 --format rankfile --host n1 --first-rank 4
expect_out "across sockets and gaps: items joined by ;" "rank 0=n1 slot=0:0;0:2;1:1" \
	$SBIND place --topology "pack:2 core:4" --binding explicit:0,0:0,2:1,1 --format rankfile --host n1
expect_out "threads: logical hardware thread ids" "rank 0=n1 slot=0
rank 1=n1 slot=1" $SBIND place --topology "pack:1 core:2 pu:2" --binding packed:1:unit=T --tasks 2 --format rankfile --host n1
expect_err "--host without --format rankfile" 2 "go with --format rankfile" \
	$SBIND place --topology "pack:1 core:2" --binding linear:1 --host n1

# --- one file from the nodes' files ----------------------------------------
rd=$(mktemp -d /tmp/sbind-rankfile.XXXXXX)
printf 'rank 1=n2 slot=0:0\n' >"$rd/n2"
printf '# node 1\nrank 0=n1 slot=0:0-1\nrank 2=n1 slot=1:0\n' >"$rd/n1"
expect_out "merge: every rank, in order" "rank 0=n1 slot=0:0-1
rank 1=n2 slot=0:0
rank 2=n1 slot=1:0" $SBIND rankfile "$rd/n2" "$rd/n1"
printf 'rank 3=n3 slot=0:0\n' >"$rd/n3"
expect_err "merge: a missing rank is named (mpirun would refuse the file)" 2 "rank 1 is missing" \
	$SBIND rankfile "$rd/n1" "$rd/n3"
expect_err "merge: a rank twice" 2 "rank 0 is given twice" $SBIND rankfile "$rd/n1" "$rd/n1"
printf 'rank x=n1 slot=0:0\n' >"$rd/bad"
expect_err "merge: a line that is not a rankfile line" 2 "is not a rankfile line" $SBIND rankfile "$rd/bad"

# --- a real mpirun ---------------------------------------------------------
if ! command -v mpirun >/dev/null 2>&1 || ! command -v lstopo >/dev/null 2>&1; then
	skip "mpirun --rankfile" "needs mpirun (Debian openmpi-bin) and lstopo (hwloc)"
else
	host=$(hostname)
	root=; [ "$(id -u)" = 0 ] && root=--allow-run-as-root
	xml() { lstopo -i "$1" --of xml "$rd/$2.xml" 2>/dev/null && echo "$rd/$2.xml"; }
	# cpus of each task as sbind places them: one list per line
	cpus_of() { $SBIND place "$@" | sed -nE 's/.*\(cpus ([^)]*)\)$/\1/p'; }
	# runs mpirun on the rankfile; prints "rank <n> <Cpus_allowed_list>" sorted
	run_mpi() { # RANKFILE NP [mpirun options...]
		_rf=$1 _np=$2; shift 2
		# shellcheck disable=SC2016 # expanded by each rank's shell
		timeout 120 mpirun $root "$@" -np "$_np" --rankfile "$_rf" --report-bindings \
			sh -c 'echo "rank $OMPI_COMM_WORLD_RANK $(awk "/^Cpus_allowed_list/ {print \$2}" /proc/self/status)"' \
			2>"$rd/mpi.err" | grep '^rank ' | sort
	}
	# CASE: sbind place args (with --topology) ; mpirun options
	check_mpi() { # DESC NP "SBIND ARGS" [mpirun options...]
		_d=$1 _np=$2 _args=$3; shift 3
		# shellcheck disable=SC2086 # word lists
		$SBIND place $_args --tasks "$_np" --format rankfile --host "$host" >"$rd/rf" 2>"$rd/sb.err"
		# shellcheck disable=SC2086
		_want=$(cpus_of $_args --tasks "$_np" | awk '{ print "rank " NR-1 " " $0 }')
		_got=$(run_mpi "$rd/rf" "$_np" "$@")
		if [ -n "$_want" ] && [ "$_got" = "$_want" ]; then _report 1 "$_d"
		else _report 0 "$_d" "rankfile: $(cat "$rd/rf") | want: $_want | got: $_got | mpirun: $(head -c 600 "$rd/mpi.err")"; fi
	}
	ncores=$($SBIND topology | tr -cd C | wc -c)
	if [ "$ncores" -ge 2 ]; then
		check_mpi "mpirun: one core per rank on this machine, each rank on its core" 2 "--binding linear:1"
		# per-node parts merged into one file (what a multi-node job does)
		$SBIND place --topology "" --binding explicit:0,0 --format rankfile --host "$host" >"$rd/p0"
		$SBIND place --topology "" --binding explicit:0,1 --format rankfile --host "$host" --first-rank 1 >"$rd/p1"
		$SBIND rankfile --output "$rd/merged" "$rd/p1" "$rd/p0"
		want="rank 0 $(cpus_of --topology "" --binding explicit:0,0)
rank 1 $(cpus_of --topology "" --binding explicit:0,1)"
		got=$(run_mpi "$rd/merged" 2)
		if [ "$got" = "$want" ]; then _report 1 "mpirun: a rankfile merged by sbind rankfile, each rank on its core"
		else _report 0 "mpirun: merged rankfile" "file: $(cat "$rd/merged") | want: $want | got: $got | $(head -c 600 "$rd/mpi.err")"; fi
	else
		skip "mpirun on this machine's cores" "needs 2 cores, this machine has $ncores"
	fi
	if x1=$(xml "pack:1 core:2 pu:1" one) && x2=$(xml "pack:2 core:2 pu:1" two) &&
	   x3=$(xml "pack:2 core:2 pu:1(indexes=0,2,1,3)" cross) && x4=$(xml "pack:1 core:1 pu:2" smt); then
		# Open MPI read slot=0:0,1 as socket 0 core 0 plus socket 1: on one
		# socket it failed, on two it bound the rank to cpu 0 only.
		check_mpi "mpirun: two cores per rank, one socket (slot=0:0-1)" 1 "--topology $x1 --binding linear:2" \
			--mca hwloc_base_topo_file "$x1"
		check_mpi "mpirun: two cores per rank, two sockets (slot=0:0-1, not cpu 0 alone)" 1 "--topology $x2 --binding linear:2" \
			--mca hwloc_base_topo_file "$x2"
		check_mpi "mpirun: one rank across two sockets (slot=0:0;1:0)" 1 "--topology $x3 --binding explicit:0,0:1,0" \
			--mca hwloc_base_topo_file "$x3"
		check_mpi "mpirun --use-hwthread-cpus: one thread per rank (slot=<thread id>)" 2 "--topology $x4 --binding packed:1:unit=T" \
			--use-hwthread-cpus --mca hwloc_base_topo_file "$x4"
	else
		skip "mpirun on XML topologies" "lstopo could not write a synthetic topology as XML"
	fi
fi
rm -rf "$rd"
