package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"

	"golang.org/x/perf/benchmath"

	"github.com/wgtensor/wgtensor/internal/bytesize"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Report is what run writes as JSON: every field name in snake case, every
// figure a number.
type Report struct {
	Date     string    `json:"date"`
	Machine  string    `json:"machine"` // host, GOOS/GOARCH, CPUs and Go version, for people
	GOOS     string    `json:"goos,omitempty"`
	GOARCH   string    `json:"goarch,omitempty"`
	CPU      string    `json:"cpu,omitempty"`
	Suite    string    `json:"suite"`
	Adapters []Adapter `json:"adapters"`
	Results  []Result  `json:"results"`
}

// Adapter is an adapter a report measured.
type Adapter struct {
	Index    int    `json:"index"` // in wgbench list
	Label    string `json:"label"` // what results call it
	Name     string `json:"name"`
	Backend  string `json:"backend"`
	Type     string `json:"type"`
	Driver   string `json:"driver"`
	VendorID uint32 `json:"vendor_id"`
	DeviceID uint32 `json:"device_id"`

	MaxBufferSize                     uint64 `json:"max_buffer_size"`
	MaxStorageBufferBindingSize       uint64 `json:"max_storage_buffer_binding_size"`
	MaxComputeWorkgroupStorageSize    uint32 `json:"max_compute_workgroup_storage_size"`
	MaxComputeInvocationsPerWorkgroup uint32 `json:"max_compute_invocations_per_workgroup"`
	MaxComputeWorkgroupsPerDimension  uint32 `json:"max_compute_workgroups_per_dimension"`
}

func adapterOf(a wgpu.AdapterInfo, label string) Adapter {
	l := a.Limits
	return Adapter{Index: a.Index, Label: label, Name: a.Name, Backend: a.Backend.String(), Type: a.Type.String(),
		Driver: a.Driver, VendorID: a.VendorID, DeviceID: a.DeviceID,
		MaxBufferSize: l.MaxBufferSize, MaxStorageBufferBindingSize: l.MaxStorageBufferBindingSize,
		MaxComputeWorkgroupStorageSize:    l.MaxComputeWorkgroupStorageSize,
		MaxComputeInvocationsPerWorkgroup: l.MaxComputeInvocationsPerWorkgroup,
		MaxComputeWorkgroupsPerDimension:  l.MaxComputeWorkgroupsPerDimension}
}

// writeJSON writes rep to path, whole or not at all.
func writeJSON(path string, rep Report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".wgbench-*")
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func readReport(path string) (Report, error) {
	var rep Report
	b, err := os.ReadFile(path)
	if err != nil {
		return rep, err
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return rep, fmt.Errorf("%s: %w", path, err)
	}
	return rep, nil
}

// samples returns r's samples; a result written before samples were kept
// has its median as its one sample.
func (r Result) samples() []Sample {
	if len(r.Samples) > 0 {
		return r.Samples
	}
	return []Sample{{Value: r.Value, NsPerOp: r.NsPerOp, Extra: r.Extra}}
}

// values returns the value of each of r's samples.
func (r Result) values() []float64 {
	var vs []float64
	for _, s := range r.samples() {
		vs = append(vs, s.Value)
	}
	return vs
}

// summary returns the median of values and its 95% confidence interval,
// as benchstat computes them.
func summary(values []float64) benchmath.Summary {
	s := benchmath.NewSample(slices.Clone(values), &benchmath.DefaultThresholds)
	return benchmath.AssumeNothing.Summary(s, 0.95)
}

// key names a result: its workload and adapter.
type key struct{ workload, adapter string }

// columns returns the adapters and workloads of rep in first-seen order.
func columns(rep Report) (adapters, workloads []string, at map[key]Result) {
	at = map[key]Result{}
	seenA, seenW := map[string]bool{}, map[string]bool{}
	for _, r := range rep.Results {
		if !seenA[r.Adapter] {
			seenA[r.Adapter] = true
			adapters = append(adapters, r.Adapter)
		}
		if !seenW[r.Workload] {
			seenW[r.Workload] = true
			workloads = append(workloads, r.Workload)
		}
		at[key{r.Workload, r.Adapter}] = r
	}
	return adapters, workloads, at
}

// formatNumber writes v with three significant digits and no exponent:
// 1000, 18.9, 3.00, 0.289.
func formatNumber(v float64) string {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	decimals := max(0, 2-int(math.Floor(math.Log10(math.Abs(v)))))
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// formatMetric writes a value in unit: bytes as KiB, MiB..., counts
// (tensors) whole.
func formatMetric(v float64, unit string) string {
	switch {
	case unit == "B" && v >= 0:
		return bytesize.Format(uint64(v))
	case countUnits[unit] && v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64) + " " + unit
	}
	return formatNumber(v) + " " + unit
}

// countUnits are the units of metrics that count things.
var countUnits = map[string]bool{"tensors": true}

// formatValue writes r's median, unit and, for several samples, the
// confidence interval in percent ("∞" when too few samples give none).
func formatValue(r Result) string {
	if r.Unit == "" {
		return "error"
	}
	s := formatNumber(r.Value) + " " + r.Unit
	if vs := r.values(); len(vs) > 1 {
		s += " ±" + summary(vs).PctRangeString()
	}
	if !r.Ok {
		s += " WRONG"
	}
	return s
}

// writeTable prints one row per workload and one column per adapter, then
// the figures besides each value, in labelled columns.
func writeTable(w io.Writer, rep Report) {
	adapters, workloads, at := columns(rep)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "workload\t%s\n", strings.Join(adapters, "\t"))
	for _, wl := range workloads {
		row := []string{wl}
		for _, a := range adapters {
			r, ok := at[key{wl, a}]
			if !ok {
				row = append(row, "-")
				continue
			}
			row = append(row, formatValue(r))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	if slices.ContainsFunc(rep.Results, func(r Result) bool { return len(r.Samples) > 1 }) {
		fmt.Fprintf(w, "(medians; ± the 95%% confidence interval over the samples, ∞ when fewer than 6)\n")
	}
	writeDetails(w, workloads, adapters, at)
}

// detailNames returns the names of the figures besides workload's value,
// in the order results give them.
func detailNames(workload string, adapters []string, at map[key]Result) []string {
	var names []string
	add := func(name string) {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, a := range adapters {
		r := at[key{workload, a}]
		if r.Ops > 0 {
			add("ops/sample")
		}
		if r.Kernel != "" {
			add("kernel")
		}
		for _, m := range r.Extra {
			add(m.Name)
		}
	}
	return names
}

// writeDetails prints the figures besides each value, in labelled
// columns: a table for each run of workloads with the same figures, a row
// per workload and adapter.
func writeDetails(w io.Writer, workloads, adapters []string, at map[key]Result) {
	var tw *tabwriter.Writer
	var header []string
	for _, wl := range workloads {
		names := detailNames(wl, adapters, at)
		if len(names) == 0 {
			continue
		}
		if !slices.Equal(names, header) {
			if tw != nil {
				tw.Flush()
			}
			header = names
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "\nworkload\tadapter\t%s\n", strings.Join(names, "\t"))
		}
		for _, a := range adapters {
			r, ok := at[key{wl, a}]
			if !ok {
				continue
			}
			cells := map[string]string{"kernel": r.Kernel}
			if r.Ops > 0 {
				cells["ops/sample"] = strconv.Itoa(r.Ops)
			}
			for _, m := range r.Extra {
				cells[m.Name] = formatMetric(m.Value, m.Unit)
			}
			row := []string{wl, a}
			for _, n := range names {
				row = append(row, cmpOr(cells[n], "-"))
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
	}
	if tw != nil {
		tw.Flush()
	}
}

func cmpOr(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// benchName writes s as a benchmark name or unit may: letters, digits,
// '-', '_' and '.', anything else as '-'.
func benchName(s string) string {
	return strings.Map(func(c rune) rune {
		if unicode.IsLetter(c) || unicode.IsDigit(c) || c == '-' || c == '_' || c == '.' {
			return c
		}
		return '-'
	}, s)
}

// benchUnit writes unit as the benchmark format has units: one field, µ as
// u.
func benchUnit(unit string) string {
	return strings.Map(func(c rune) rune {
		switch {
		case c == 'µ':
			return 'u'
		case unicode.IsSpace(c):
			return '-'
		}
		return c
	}, unit)
}

// metricUnit returns a metric's unit in the benchmark format: its name and
// unit, as in "peak_reserved-B".
func metricUnit(m Metric) string { return benchUnit(m.Name + "-" + m.Unit) }

// writeBench prints rep in the Go benchmark format, which benchstat reads:
// a line per sample (benchstat takes repeated lines as samples), its
// operation count as the iteration count, time as ns/op, the value in its
// unit unless it is a time, and the extra figures; and a Unit line giving
// the better direction of every other unit.
func writeBench(w io.Writer, rep Report) {
	goos, goarch := rep.GOOS, rep.GOARCH
	if goos == "" { // a report written before it recorded them
		if parts := strings.Split(rep.Machine, ", "); len(parts) > 1 {
			goos, goarch, _ = strings.Cut(parts[1], "/")
		}
	}
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: github.com/wgtensor/wgtensor/cmd/wgbench\n", goos, goarch)
	if rep.CPU != "" {
		fmt.Fprintf(w, "cpu: %s\n", rep.CPU)
	}
	directions := map[string]int{}
	var units []string
	note := func(unit string, dir int) {
		if _, ok := directions[unit]; !ok {
			directions[unit] = dir
			units = append(units, unit)
		}
	}
	var lines []string
	for _, r := range rep.Results {
		if r.Unit == "" {
			continue // the workload failed: no figures
		}
		name := fmt.Sprintf("Benchmark%s/adapter=%s", benchName(r.Workload), benchName(r.Adapter))
		for _, s := range r.samples() {
			var b strings.Builder
			fmt.Fprintf(&b, "%s %d", name, max(r.Ops, 1))
			if s.NsPerOp > 0 {
				fmt.Fprintf(&b, " %s ns/op", strconv.FormatFloat(s.NsPerOp, 'f', -1, 64))
			}
			if !timeUnits[r.Unit] || s.NsPerOp == 0 {
				u := benchUnit(r.Unit)
				note(u, better(r.Unit))
				fmt.Fprintf(&b, " %s %s", strconv.FormatFloat(s.Value, 'f', -1, 64), u)
			}
			for _, m := range s.Extra {
				note(metricUnit(m), better(m.Unit))
				fmt.Fprintf(&b, " %s %s", strconv.FormatFloat(m.Value, 'f', -1, 64), metricUnit(m))
			}
			lines = append(lines, b.String())
		}
	}
	for _, u := range units {
		dir := "lower"
		if directions[u] > 0 {
			dir = "higher"
		}
		fmt.Fprintf(w, "Unit %s better=%s\n", u, dir)
	}
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}
