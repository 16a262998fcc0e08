# GPUs (issue 22): the topology's GPUs with their locality, the text forms
# unchanged by I/O discovery, `sbind place --gpus` giving each task cores
# next to its own GPU (DGX-2H, Trento), two jobs through the state, the
# fallback note, --mbind=gpu's memory, Slurm's per-task rules, bad input.
X=tests/unit/topology/xml
root=$CLI_TOP
P9="$root/$X/power9-v100-gpumemory.xml"
APU="$root/$X/mi300a-apu.xml"
D=$(mktemp -d /tmp/sbind-gpu-XXXXXX); chmod 755 "$D"
trap 'kill $owner 2>/dev/null; rm -rf "$D"' EXIT

# Our own shapes (in the tree): a GPU's own memory node, an APU.
json=$($SBIND topology --topology "$P9" --format json)
case $json in
*'"gpus":[{"gpu":0,"label":"cuda0","busid":"0004:04:00.0","osdev":["cuda0","nvml0"],"pci_id":"10de:1db1","pci_class":"0302","compute":true,"cpus":"0-15","numa_nodes":[0],"memory_node":252}'*)
	_report 1 "topology json: a V100 with its cpus, host node and GPU memory node" ;;
*) _report 0 "topology json: a V100 with its cpus, host node and GPU memory node" "$json" ;;
esac
expect_out "place --gpus: each task on its APU's package, by name or bus id" \
"task 0: 3,0 3,1 (cpus 24-27) gpus rsmi3
task 1: 1,0 1,1 (cpus 8-11) gpus rsmi1
gpus: split by the plugin as --gpus-per-task=1" \
	$SBIND place --topology "$APU" --binding gpu:2 --tasks 2 --gpus rsmi3,0001:02:00.0
expect_out "--mbind=gpu: memory on the GPUs' host nodes" \
"task 0: 0,0 (cpus 0-1) gpus rsmi0
task 1: 2,0 (cpus 16-17) gpus rsmi2
gpus: split by the plugin as --gpus-per-task=1
memory: 0:512M 2:512M" \
	$SBIND place --topology "$APU" --binding gpu:1 --tasks 2 --gpus rsmi0,rsmi2 --mbind gpu --mem 1G
expect_out "packed near=gpu, Slurm's map_gpu rule" \
"task 0: 2,0 2,1 (cpus 16-19) gpus rsmi2
task 1: 0,0 0,1 (cpus 0-3) gpus rsmi0
gpus: Slurm's --gpu-bind=map_gpu:1,0" \
	$SBIND place --topology "$APU" --binding packed:2:near=gpu --tasks 2 --gpus rsmi0,rsmi2 --gpu-bind map_gpu:1,0
case $($SBIND place --topology "$APU" --binding gpu:1 --tasks 2 --gpus rsmi1,rsmi2 --format json) in
*'"tasks":[{"task":0,"cores":[[1,0]],"cpus":[8,9],"numa_nodes":[1],"gpus":["rsmi1"],"gpu_busids":["0001:02:00.0"],"gpu_numa_nodes":[1],"local_cores":1},{"task":1,"cores":[[2,0]],"cpus":[16,17],"numa_nodes":[2],"gpus":["rsmi2"]'*)
	_report 1 "place --format json: each task's gpus, cores, cpus and NUMA nodes" ;;
*) _report 0 "place --format json: each task's gpus, cores, cpus and NUMA nodes" \
	"$($SBIND place --topology "$APU" --binding gpu:1 --tasks 2 --gpus rsmi1,rsmi2 --format json)" ;;
esac

expect_err "an unknown GPU is named, with the node's" 2 \
	'--gpus: "cuda9" is no GPU of this topology (expected OS device names or PCI bus ids of this topology'"'"'s GPUs: rsmi0,rsmi1,rsmi2,rsmi3)' \
	$SBIND place --topology "$APU" --binding gpu:1 --gpus cuda9
expect_err "--gpus-per-task needs --gpus" 2 "go with --gpus LIST" \
	$SBIND place --topology "$APU" --binding gpu:1 --gpus-per-task 1
expect_err "gpu:0 is refused with the form" 2 \
	'--binding: "gpu:0": amount must be >= 1 (expected gpu:<amount>[:visible=task|all])' \
	$SBIND place --topology "$APU" --binding gpu:0
expect_err "visible= without near=gpu is refused" 2 "visible= goes with near=gpu" \
	$SBIND place --topology "$APU" --binding packed:2:visible=all
expect_err "more cores than the node has: no binding" 3 "gpu: 20 cores needed (10 per task x 2 tasks), only 16 free" \
	$SBIND place --topology "$APU" --binding gpu:10 --tasks 2 --gpus rsmi0,rsmi1

if ! [ -d "$TOPOS" ]; then
	_report 0 "real machines with GPUs" "no folder $TOPOS (tests/topologies, BINDING_TOPOLOGIES)"
	return 0 2>/dev/null || exit 0
fi
DGX="$TOPOS/NVIDIA-DGX2H-2pa24co+16nvml+1nvswitch+10ib.xml"
TRENTO="$TOPOS/AMD-Epyc-Zen3Trento-1pa4no2ca4co2t+8rocm+4hsn.xml"

# I/O discovery adds GPUs, never units: every text form of every XML with
# GPUs is the same as that of the XML without its I/O objects (hwloc's own
# lstopo --no-io export).
bad=
for x in "$TOPOS"/*cuda*.xml "$TOPOS"/*nvml*.xml "$TOPOS"/*rocm*.xml "$TOPOS"/*opencl*.xml; do
	[ -f "$x" ] || continue
	rm -f "$D/noio.xml"
	lstopo-no-graphics --no-io -i "$x" --of xml "$D/noio.xml" || bad="$bad $(basename "$x"):lstopo"
	for f in sge ocs numa; do
		a=$($SBIND topology --topology "$x" --format $f) b=$($SBIND topology --topology "$D/noio.xml" --format $f)
		[ "$a" = "$b" ] && [ -n "$a" ] || bad="$bad $(basename "$x"):$f"
	done
done
[ -z "$bad" ] && _report 1 "sge, ocs and numa strings unchanged by the GPUs" ||
	_report 0 "sge, ocs and numa strings unchanged by the GPUs" "$bad"

n=$($SBIND topology --topology "$DGX" --format json | grep -o '"compute":true' | wc -l)
expect_out "DGX-2H: 16 compute GPUs (and the BMC's VGA listed, compute false)" 16 echo "$n"
g=""; for i in $(seq 0 15); do g="$g${g:+,}nvml$i"; done
out=$($SBIND place --topology "$DGX" --binding gpu:3 --tasks 16 --gpus "$g")
ok=1
for i in $(seq 0 15); do
	line=$(printf '%s\n' "$out" | grep "^task $i:")
	s=$((i / 8))
	case $line in *" gpus nvml$i") ;; *) ok=0 ;; esac
	printf '%s\n' "$line" | sed 's/(.*//' | tr ' ' '\n' | grep ',' | grep -qv "^$s," && ok=0
done
[ $ok = 1 ] && _report 1 "DGX-2H: 16 tasks x 3 cores, each on its own GPU's socket" ||
	_report 0 "DGX-2H: 16 tasks x 3 cores, each on its own GPU's socket" "$out"

# Two jobs on one Trento node through the state: each next to its own GPU;
# a third whose GPU's L3 the first holds is told so.
sleep 300 & owner=$!
expect_out "job 1 on rsmi6's L3" "task 0: 0,32 0,33 0,34 0,35 (cpus 32-35,96-99) gpus rsmi6
gpus: split by the plugin as --gpus-per-task=1" \
	$SBIND place --topology "$TRENTO" --binding gpu:4 --gpus rsmi6 --state "$D/st" --commit --job 1 --step 0 --owner-pid $owner
expect_out "job 2 on rsmi0's L3, not next to job 1" "task 0: 0,48 0,49 0,50 0,51 (cpus 48-51,112-115) gpus rsmi0
gpus: split by the plugin as --gpus-per-task=1" \
	$SBIND place --topology "$TRENTO" --binding gpu:4 --gpus rsmi0 --state "$D/st" --commit --job 2 --step 0 --owner-pid $owner
expect_out "job 3 on rsmi6 too: its 4 free cores, then the node's other L3" \
"task 0: 0,36 0,37 0,38 0,39 0,40 0,41 (cpus 36-41,100-105) gpus rsmi6
not next to its GPUs: task 0: rsmi6 has 8 local cores (cpus 32-39,96-103): 4 held by other jobs, 0 outside this step's cpus, 0 taken by its earlier tasks; 2 of its 6 cores are elsewhere, the farthest at NUMA distance 10
gpus: split by the plugin as --gpus-per-task=1" \
	$SBIND place --topology "$TRENTO" --binding gpu:6 --gpus rsmi6 --state "$D/st"
