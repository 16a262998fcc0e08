#!/usr/bin/env python3
"""Writes the hand-shaped GPU test topologies of this folder (see each
docstring): python3 gen-gpu.py tests/unit/topology/xml"""
import sys

def mask(bits):
    v = 0
    for b in bits:
        v |= 1 << b
    return "0x%08x" % v if v < (1 << 32) else hex(v)

class G:
    def __init__(self):
        self.gp = 1
        self.lines = []
    def nid(self):
        self.gp += 1
        return self.gp

def topology(packages, numa_mem, gpus, comment, gpu_nodes=(), extra_numa_attach=None):
    """packages: list of (cores, threads, dram_os_node); gpus: per package list of
    (busid, pci_type, osdevs[(name, type, subtype)]); gpu_nodes: per package list of
    (os_node, busid, size)."""
    g = G()
    out = []
    cpu = 0
    pkg_cpus = []
    for cores, threads, _ in packages:
        pkg_cpus.append(list(range(cpu, cpu + cores * threads)))
        cpu += cores * threads
    all_cpus = list(range(cpu))
    all_nodes = [p[2] for p in packages] + [n[0] for pk in gpu_nodes for n in pk]
    out.append('<?xml version="1.0" encoding="UTF-8"?>')
    out.append('<!DOCTYPE topology SYSTEM "hwloc2.dtd">')
    out.append('<!-- %s -->' % comment)
    out.append('<topology version="2.0">')
    out.append('  <object type="Machine" os_index="0" cpuset="%s" complete_cpuset="%s" allowed_cpuset="%s" nodeset="%s" complete_nodeset="%s" allowed_nodeset="%s" gp_index="1">' % (
        mask(all_cpus), mask(all_cpus), mask(all_cpus), mask(all_nodes), mask(all_nodes), mask(all_nodes)))
    for p, (cores, threads, node) in enumerate(packages):
        cs = mask(pkg_cpus[p])
        nodes = [node] + [n[0] for n in (gpu_nodes[p] if p < len(gpu_nodes) else [])]
        ns = mask(nodes)
        out.append('    <object type="Package" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d">' % (p, cs, cs, ns, ns, g.nid()))
        out.append('      <object type="NUMANode" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d" local_memory="%d"/>' % (node, cs, cs, mask([node]), mask([node]), g.nid(), numa_mem))
        for os_node, busid, size in (gpu_nodes[p] if p < len(gpu_nodes) else []):
            out.append('      <object type="NUMANode" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d" subtype="GPUMemory" local_memory="%d">' % (os_node, cs, cs, mask([os_node]), mask([os_node]), g.nid(), size))
            out.append('        <info name="PCIBusID" value="%s"/>' % busid)
            out.append('      </object>')
        c0 = pkg_cpus[p][0]
        for c in range(cores):
            cc = list(range(c0 + c * threads, c0 + (c + 1) * threads))
            out.append('      <object type="Core" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d">' % (p * cores + c, mask(cc), mask(cc), mask([node]), mask([node]), g.nid()))
            for pu in cc:
                out.append('        <object type="PU" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d"/>' % (pu, mask([pu]), mask([pu]), mask([node]), mask([node]), g.nid()))
            out.append('      </object>')
        for busid, pci_type, osdevs in (gpus[p] if p < len(gpus) else []):
            out.append('      <object type="PCIDev" gp_index="%d" pci_busid="%s" pci_type="%s" pci_link_speed="0.000000">' % (g.nid(), busid, pci_type))
            for name, t, sub in osdevs:
                st = ' subtype="%s"' % sub if sub else ''
                out.append('        <object type="OSDev" gp_index="%d" name="%s"%s osdev_type="%d"/>' % (g.nid(), name, st, t))
            out.append('      </object>')
        out.append('    </object>')
    out.append('  </object>')
    out.append('  <support name="discovery.pu"/>')
    out.append('  <support name="discovery.numa"/>')
    out.append('  <support name="discovery.numa_memory"/>')
    out.append('</topology>')
    return "\n".join(out) + "\n"

def power9():
    """IBM AC922 shape: 2 POWER9 packages (4 cores x 4 threads here), a DRAM
    node each (0, 8), two NVLink V100s per package whose HBM the kernel
    exposes as CPU-less NUMA nodes 252-255; hwloc (HWLOC_KEEP_NVIDIA_GPU_NUMA_NODES=1)
    attaches each GPU node next to its GPU's local cpus, subtype GPUMemory,
    with the GPU's PCIBusID."""
    v100 = "0302 [10de:1db1] [1014:0000] a1"
    gpus = [
        [("0004:04:00.0", v100, [("cuda0", 5, "CUDA"), ("nvml0", 1, None)]),
         ("0004:05:00.0", v100, [("cuda1", 5, "CUDA"), ("nvml1", 1, None)])],
        [("0035:03:00.0", v100, [("cuda2", 5, "CUDA"), ("nvml2", 1, None)]),
         ("0035:04:00.0", v100, [("cuda3", 5, "CUDA"), ("nvml3", 1, None)])],
    ]
    gn = 16 << 30
    nodes = [[(252, "0004:04:00.0", gn), (253, "0004:05:00.0", gn)],
             [(254, "0035:03:00.0", gn), (255, "0035:04:00.0", gn)]]
    return topology([(4, 4, 0), (4, 4, 8)], 256 << 30, gpus, power9.__doc__.replace("\n    ", " "), nodes)

def mi300a():
    """AMD MI300A shape: 4 APU packages (4 cores x 2 threads here), each one
    NUMA node of HBM shared by its CPU cores and its GPU (PCI class 0x1200,
    rsmi, renderD, card, opencl OS devices), so the GPU's NUMA node is the
    node of its cores."""
    t = "1200 [1002:74a0] [1002:74a0] 00"
    gpus = []
    for p, bus in enumerate(["0000:02:00.0", "0001:02:00.0", "0002:02:00.0", "0003:02:00.0"]):
        gpus.append([(bus, t, [("renderD%d" % (128 + p), 1, None), ("card%d" % p, 1, None),
                               ("rsmi%d" % p, 1, "RSMI"), ("opencl0d%d" % p, 5, "OpenCL")])])
    return topology([(4, 2, 0), (4, 2, 1), (4, 2, 2), (4, 2, 3)], 128 << 30, gpus, mi300a.__doc__.replace("\n    ", " "))

if __name__ == "__main__":
    d = sys.argv[1]
    open(d + "/power9-v100-gpumemory.xml", "w").write(power9())
    open(d + "/mi300a-apu.xml", "w").write(mi300a())
