# The CLI is valgrind-clean: no invalid access, no definite leak, on every
# command path (topology sources, formats, placements, errors, state).
if ! command -v valgrind >/dev/null 2>&1; then
	skip "sbind under valgrind" "valgrind is not installed"
	return 0 2>/dev/null || exit 0
fi
_vgdir=$(mktemp -d /tmp/sbind-vg.XXXXXX)
_vg() { # desc rc args...
	_d=$1 _e=$2; shift 2
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--suppressions="$CLI_TOP/tests/cli/valgrind.supp" "$SBIND" "$@" \
		>/dev/null 2>"$_vgdir/err"
	_rc=$?
	if [ "$_rc" = "$_e" ]; then _report 1 "valgrind: $_d"
	else _report 0 "valgrind: $_d" "rc=$_rc expected $_e: $(grep -v 'hwloc x86\|May be\|and reload' "$_vgdir/err" | head -20)"; fi
}
_vg "topology of this machine" 0 topology --format json
_vg "synthetic topology, ocs" 0 topology --topology "pack:2 numa:2 core:4 pu:2" --format ocs
_vg "masked topology" 0 topology --topology "pack:2 core:2" --mask ScCSCC
_vg "linear with tasks, json" 0 place --topology "pack:2 core:4 pu:2" --binding linear:2 --tasks 2 --format json
_vg "striding, sge" 0 place --topology "pack:2 core:2" --binding striding:2:2 --format sge
_vg "packed with sort/start/stop" 0 place --topology "pack:2 l3:1 core:4 pu:1" --mask NSXCCccSXCCCC --binding packed:4:sort=S:start=S:stop=s
_vg "lsf pack" 0 place --topology "pack:2 core:4" --binding pack:2
_vg "no binding" 3 place --topology "pack:2 core:2" --binding linear:9
_vg "bad request" 2 place --topology "pack:2 core:2" --binding "linear:1:x"
_vg "bad mask" 2 place --topology "pack:2 core:2" --binding linear:1 --mask SC
_vg "bad topology" 1 topology --topology "nonsense:7"
_vg "rankfile format, threads" 0 place --topology "pack:1 core:2 pu:2" --binding packed:1:unit=T --tasks 2 --format rankfile --host n1
printf 'rank 1=n1 slot=0:0\n# x\nrank 0=n1 slot=0:1\n' >"$_vgdir/rf"
_vg "rankfile merge" 0 rankfile "$_vgdir/rf"
_vg "rankfile merge, a rank twice" 2 rankfile "$_vgdir/rf" "$_vgdir/rf"
_vg "version" 0 --version
_vg "numa string" 0 topology --topology "pack:2 numa:2 core:2" --format numa
_vg "strict memory, json" 0 place --topology "pack:2 numa:1 core:2" --binding linear:1 --tasks 2 --mbind cores:strict --mem 1G --format json
_vg "strict memory short" 3 place --topology "pack:2 numa:1 core:2" --binding linear:1 --mbind cores:strict --mem 4G
_vg "nlocal" 0 place --topology "pack:2 numa:2 core:2" --mbind nlocal --tasks 3 --mem 100
_vg "--mbind alone, round_robin: not bound" 0 place --topology "pack:2 numa:2 core:2" --mbind round_robin --tasks 3 --mem 100
_vg "--mbind alone, cores:strict: the plugin's reason, json" 3 place --topology "pack:2 numa:2 core:2" --mbind cores:strict --format json
_gx="$CLI_TOP/tests/unit/topology/xml"
_vg "GPUs and their memory nodes, json" 0 topology --topology "$_gx/power9-v100-gpumemory.xml" --format json
_vg "gpu:2 with --gpus, --mbind=gpu, json" 0 place --topology "$_gx/mi300a-apu.xml" --binding gpu:2 --tasks 4 --gpus rsmi0,rsmi1,rsmi2,rsmi3 --mbind gpu --mem 1G --format json
_vg "packed near=gpu falling back, text" 0 place --topology "$_gx/mi300a-apu.xml" --binding packed:6:near=gpu --gpus rsmi1 --gpu-bind map_gpu:0
_vg "an unknown GPU" 2 place --topology "$_gx/mi300a-apu.xml" --binding gpu:1 --gpus nvml7
_vg "UGE load values" 0 topology --topology "pack:2 numa:2 core:2" --format uge --mem-reserve 5%
_vg "status json with UGE's whole listing" 0 status --state "$_vgdir/nostate" --topology "pack:2 numa:1(memory=1GiB) l3:1(size=12MiB) core:2" --format json
_vg "a topology that cannot be read: NONE, json" 1 topology --topology "$_vgdir/rf" --format json
_vg "sort=N with a latency matrix" 0 place --topology "$TESTXML/quadrant-4numa.xml" --binding packed:8:sort=NXC
_vg "filter in OCS form without memory units" 0 place --topology "$TESTXML/hybrid-4p4e.xml" --binding packed:1:unit=E:filter=SCCCCeEEE
_vg "start letter the node lacks" 3 place --topology "pack:2 core:2" --binding packed:1:start=E
_vg "explicit with ;" 0 place --topology "pack:2 core:2" --binding "explicit:0,0;1,1"
_vg "submit, text" 0 submit --mode translate --binding linear:2 -n 4 --mem=4G
_vg "submit, json, whole node" 0 submit --mode translate --command sbatch --binding explicit:0,0:1,3 -n2 --format json
_vg "submit, refused" 3 submit --mode translate --binding linear:2 -c 1 --format json
_vg "submit, bad option" 2 submit --binding linear:1 --nodes=4-2
printf 'PlugStackConfig=%s/ps.conf\n' "$_vgdir" >"$_vgdir/slurm.conf"
printf 'include %s/ps.d/*.conf\n' "$_vgdir" >"$_vgdir/ps.conf"
mkdir -p "$_vgdir/ps.d" && printf 'required /x/spank_binding.so submit=refuse\n' >"$_vgdir/ps.d/a.conf"
_vg "submit, the site's switch through include" 3 submit --slurm-conf "$_vgdir/slurm.conf" --binding linear:2
if [ -n "$TOPOS" ] && [ -d "$TOPOS" ]; then
	_vg "384-PU XML, packed unit=X" 0 place --topology "$TOPOS/AMD-Epyc-Zen5-c4d-highmem-384.xml" --binding packed:1:unit=X
	_vg "hybrid XML, unit=E" 0 place --topology "$TOPOS/Intel-Core-RaptorLake-1pa6co2t+2ca4co1t-hybrid.xml" --binding packed:2:unit=E --format ocs
else
	_report 0 "valgrind on real XMLs" "no folder $TOPOS (tests/topologies, BINDING_TOPOLOGIES)"
fi
_vg "commit into a state" 0 place --state "$_vgdir/state" --topology "pack:1 core:4" --binding linear:2 --commit --job 5 --step 0 --owner-pid $$
_vg "status" 0 status --state "$_vgdir/state"
_vg "status json" 0 status --state "$_vgdir/state" --format json
_vg "commit with memory" 0 place --state "$_vgdir/state" --topology "pack:1 core:4" --binding linear:1 --mbind cores --mem 100 --commit --job 6 --step 0 --owner-pid $$
_vg "topology json with a state" 0 topology --state "$_vgdir/state" --topology "pack:1 core:4" --format json --mem-reserve 5%
_vg "status --job: the receipt" 0 status --state "$_vgdir/state" --topology "pack:1 core:4" --job 6
_vg "status --job json" 0 status --state "$_vgdir/state" --topology "pack:1 core:4" --job 5 --format json
_vg "metrics" 0 metrics --state "$_vgdir/state" --topology "pack:1 core:4"
_vg "metrics --output" 0 metrics --state "$_vgdir/state" --topology "pack:1 core:4" --output "$_vgdir/m.prom"
_vg "draw, xml" 0 draw --state "$_vgdir/state" --topology "pack:1 core:4" --output "$_vgdir/d.xml"
_vg "release" 0 release --state "$_vgdir/state" --job 5
_vg "gc" 0 gc --state "$_vgdir/state"
rm -rf "$_vgdir"
