# numamem (docs/memory.md): sbind gres-conf (the node's gres.conf lines and
# the node line's part, each NUMA node's memory less mem_reserve= with its
# cores as Slurm numbers them; the reserve read from the site's
# plugstack.conf), and sbind submit at a numamem site (the request the
# filter adds, read from a real slurm.conf and plugstack.conf, or given
# with --numamem-gres). Sourced by run.sh after lib.sh.

GUEST="pack:2 numa:2(memory=512MiB) core:2 pu:2"
expect_out "gres-conf: one line per NUMA node, cores as Slurm numbers them" \
"Name=numamem Type=n0 Count=512M Cores=0-1
Name=numamem Type=n1 Count=512M Cores=2-3
Name=numamem Type=n2 Count=512M Cores=4-5
Name=numamem Type=n3 Count=512M Cores=6-7" \
	sh -c "$SBIND gres-conf --topology '$GUEST' --mem-reserve 0 | grep -v '^#'"
expect_out "gres-conf --format node-line: the same figures, less mem_reserve=" \
	"Gres=numamem:n0:462M,numamem:n1:462M,numamem:n2:462M,numamem:n3:462M" \
	$SBIND gres-conf --topology "$GUEST" --mem-reserve 50M --format node-line
expect_out "gres-conf: a percentage, NodeName= for a shared gres.conf" \
	"NodeName=n[1-4] Name=numamem Type=n0 Count=487M Cores=0-1" \
	sh -c "$SBIND gres-conf --topology '$GUEST' --mem-reserve 5% --node-name 'n[1-4]' | grep Type=n0"
expect_out "gres-conf: the header names the reserve and the node line" "2" \
	sh -c "$SBIND gres-conf --topology '$GUEST' --mem-reserve 0 | grep -c -e '^# --mem-reserve 0, with its cores' -e '^# node.s line: Gres=numamem:n0:512M,'"
# A CPU-less node (a hwloc 1.x XML of the tree's own, with one) is left out.
x=$TESTXML/hwloc1-cpuless-node.xml
{
	expect_out "gres-conf: a NUMA node without cpus is left out, and said so" "1" \
		sh -c "$SBIND gres-conf --topology '$x' --mem-reserve 0 | grep -c 'without cpus left out'"
}
expect_err "gres-conf: a bad format" 2 '--format "yaml": expected gres or node-line' \
	$SBIND gres-conf --topology "$GUEST" --format yaml
expect_err "gres-conf: a bad reserve" 2 '--mem-reserve' \
	$SBIND gres-conf --topology "$GUEST" --mem-reserve lots

# The site's files as a submit host reads them: slurm.conf names the
# plugstack.conf with numamem=yes, and the nodes' Gres= lines.
site=$(mktemp -d /tmp/t_numamem.XXXXXX)
cat >"$site/slurm.conf" <<EOF
ClusterName=x
PlugStackConfig=$site/plugstack.conf
GresTypes=numamem
NodeName=DEFAULT Gres=numamem:n0:458M,numamem:n1:503M,numamem:n2:503M,numamem:n3:503M
NodeName=n[1-4] CPUs=16
Include $site/nodes.conf
EOF
echo "NodeName=big Gres=numamem:n0:600M,numamem:n1:600M" >"$site/nodes.conf"
echo "required /usr/lib/spank_binding.so numamem=yes mem_reserve=40" >"$site/plugstack.conf"
expect_out "submit at the site: untyped when the node's memory fits one NUMA node" \
	"options: --threads-per-core=1 --gres=numamem:400M" \
	sh -c "$SBIND submit --slurm-conf '$site/slurm.conf' --binding linear:1 --mbind cores:strict -n1 --mem 400 | grep '^options:'"
expect_out "submit at the site: typed per task beyond one, on the types every node has" \
	"options: --threads-per-core=1 --gres=numamem:n0:400M,numamem:n1:400M" \
	sh -c "$SBIND submit --slurm-conf '$site/slurm.conf' --binding linear:1 --mbind cores:strict -n2 -N1 --mem 800 | grep '^options:'"
expect_out "submit at the site: the largest NUMA node of any node line (600, through Include)" "1" \
	sh -c "$SBIND submit --slurm-conf '$site/slurm.conf' --binding linear:1 --mbind cores -n1 --mem 700 | grep -c 'the largest NUMA node holds 600 MiB (the nodes. Gres=numamem:n0)'"
expect_rc "submit at the site: refused, exit 3" 3 \
	$SBIND submit --slurm-conf "$site/slurm.conf" --binding linear:1 --mbind cores -n1 --mem 700
expect_out "submit at the site, JSON: the option and why" "1" \
	sh -c "$SBIND submit --slurm-conf '$site/slurm.conf' --format json --binding linear:1 --mbind nlocal --mem 100 | grep -c '{\"option\":\"gres\",\"value\":\"numamem:100M\"'"
echo "required /usr/lib/spank_binding.so numamem=no" >"$site/plugstack.conf"
expect_out "numamem=no: nothing of numamem" "options: --threads-per-core=1" \
	sh -c "$SBIND submit --slurm-conf '$site/slurm.conf' --binding linear:1 --mbind cores:strict -n1 --mem 400 | grep '^options:'"
expect_out "--numamem-gres instead of the site's files" "options: --threads-per-core=1 --gres=numamem:n0:250M,numamem:n1:250M" \
	sh -c "$SBIND submit --slurm-conf '$site/slurm.conf' --numamem-gres numamem:n0:300M,numamem:n1:300M --binding linear:1 --mbind round_robin -n1 --mem 500 | grep '^options:'"
expect_out "--mode refuse names the request to add" "1" \
	sh -c "$SBIND submit --mode refuse --numamem-gres numamem:n0:300M --binding linear:1 --mbind cores -n1 --mem 100 --threads-per-core 1 | grep -c '^refused: --mbind=cores needs --gres=numamem:100M'"
rm -rf "$site"
