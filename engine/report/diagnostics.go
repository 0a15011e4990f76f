package report

import (
	"fmt"
	"slices"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/servers"
)

// diagnosticsRows are the lines of report.md's Diagnostics section: the
// machine that ran the benchmark, its NVIDIA driver (or why there is
// none), its GPUs and the environment variables speedmatrix ran with.
func diagnosticsRows(d engine.Diagnostics) []Row {
	var rs rows
	rs.add("Host", d.Hostname)
	rs.add("OS", d.OS)
	rs.add("Kernel", d.Uname)
	switch n := d.NVIDIA; {
	case n.DriverVersion != "":
		driver := n.DriverVersion
		if n.CUDAVersion != "" {
			driver += " (CUDA " + n.CUDAVersion + ")"
		}
		rs.add("NVIDIA driver", driver)
	case n.Note != "":
		rs.add("NVIDIA driver", "none ("+n.Note+")")
	}
	if t := d.Topology; t != nil && len(t.GPUs) > 0 {
		gpus := make([]string, len(t.GPUs))
		for i, g := range t.GPUs {
			gpus[i] = strings.TrimSpace(fmt.Sprintf("GPU%d %s", g.Index, g.Name))
			if g.PCIBusID != "" {
				gpus[i] += " (" + g.PCIBusID + ")"
			}
		}
		rs.add("GPUs", strings.Join(gpus, "; "))
	}
	rs.add("Environment", envLine(d.Env))
	return rs
}

// envLine lists variables as K=V, sorted, or says none was set.
func envLine(env map[string]string) string {
	if len(env) == 0 {
		return "none of " + strings.Join(servers.EnvPrefixes, "*, ") + "* set"
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		keys[i] = k + "=" + env[k]
	}
	return strings.Join(keys, " ")
}

// writeDiagnostics writes the Diagnostics section, and the GPUs'
// connections as `nvidia-smi topo -m` shows them when there are several.
func writeDiagnostics(b *strings.Builder, d *engine.Diagnostics) {
	if d == nil {
		return
	}
	writeSection(b, Section{Title: "Diagnostics", Rows: diagnosticsRows(*d)})
	t := d.Topology
	if t == nil || len(t.GPUs) < 2 {
		return
	}
	head := []string{""}
	path := map[[2]int]string{}
	for _, l := range t.Links {
		path[l.GPUs], path[[2]int{l.GPUs[1], l.GPUs[0]}] = cmpDash(l.Path), cmpDash(l.Path)
	}
	var table [][]string
	for _, a := range t.GPUs {
		head = append(head, fmt.Sprintf("GPU%d", a.Index))
		row := []string{fmt.Sprintf("GPU%d", a.Index)}
		for _, g := range t.GPUs {
			if g.Index == a.Index {
				row = append(row, "X")
			} else {
				row = append(row, cmpDash(path[[2]int{a.Index, g.Index}]))
			}
		}
		table = append(table, row)
	}
	b.WriteString("GPU connections: NV = NVLink; PIX, PXB = through PCIe switches; PHB = a host bridge; NODE, SYS = within, across NUMA nodes.\n\n")
	writeTable(b, head, table)
	var notes []string
	for _, l := range t.Links {
		if l.P2P != "" && l.P2P != "ok" {
			notes = append(notes, fmt.Sprintf("GPU%d ↔ GPU%d peer-to-peer: %s", l.GPUs[0], l.GPUs[1], l.P2P))
		}
	}
	if notes = append(notes, t.Notes...); len(notes) > 0 {
		for _, n := range notes {
			b.WriteString("- " + MDText(n) + "\n")
		}
		b.WriteString("\n")
	}
}

func cmpDash(s string) string {
	if s == "" {
		return Dash
	}
	return s
}
