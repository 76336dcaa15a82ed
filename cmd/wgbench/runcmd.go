package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

const runUsage = "wgbench run [-suite smoke|quick|full] [-run REGEXP] [-count N] [-adapter all|NAME|#N] [-backend vulkan|gl|...] [-json FILE] [-format table|bench] [-memory-history FILE]"

// runConfig is a run command line, checked.
type runConfig struct {
	suite     string
	workloads []workload
	count     int
	adapter   string
	backend   wgpu.Backend
	jsonPath  string
	format    string
	// historyPath, when set, is where the memory history of the run on each
	// adapter goes (historyFile).
	historyPath string
}

// parseRun parses and checks run's flags: every mistake is reported before
// anything runs. It returns a nil config after -h.
func parseRun(args []string, stdout io.Writer) (*runConfig, error) {
	fs := newFlagSet("run", runUsage)
	suiteName := fs.String("suite", "quick", "smoke, quick or full")
	only := fs.String("run", "", "only the suite's workloads whose names match this regular expression")
	count := fs.Int("count", 0, "samples per workload; 0: the suite's default (1 smoke, 6 quick, 10 full; at least 6 with -format bench)")
	adapter := fs.String("adapter", "", "all, a name substring, or #N (an index from wgbench list); empty: the default adapter")
	backend := fs.String("backend", "", "restrict to one backend (vulkan, gl, metal, dx12)")
	jsonOut := fs.String("json", "", "write results as JSON to this file")
	format := fs.String("format", "table", "table, or bench: Go benchmark format, every sample a line, for benchstat")
	history := fs.String("memory-history", "", "record the memory history of the run and write it to this file (with several adapters, one file each, named after the adapter); wgmemview renders it")
	pos, err := parseArgs(fs, args, stdout)
	if err != nil || fs.helped {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, usagef(fs.usage, "run takes no arguments, not %q", pos)
	}
	if *format != "table" && *format != "bench" {
		return nil, usagef(fs.usage, "-format %q: want table or bench", *format)
	}
	if *count < 0 {
		return nil, usagef(fs.usage, "-count %d: want a positive number of samples", *count)
	}
	ws, samples, err := suite(*suiteName)
	if err != nil {
		return nil, usagef(fs.usage, "%v", err)
	}
	if ws, err = matching(ws, *only); err != nil {
		return nil, usagef(fs.usage, "%v", err)
	}
	if *format == "bench" {
		samples = max(samples, minBenchSamples)
	}
	if *count > 0 {
		samples = *count
	}
	be, err := wgpu.ParseBackend(*backend)
	if err != nil {
		return nil, usagef(fs.usage, "%v", err)
	}
	for _, out := range [...]struct{ flag, path string }{{"json", *jsonOut}, {"memory-history", *history}} {
		if out.path != "" {
			if err := checkWritable(out.flag, out.path); err != nil {
				return nil, err
			}
		}
	}
	return &runConfig{suite: *suiteName, workloads: ws, count: samples, adapter: *adapter, backend: be, jsonPath: *jsonOut, format: *format,
		historyPath: *history}, nil
}

// matching returns the workloads of ws whose names match the regular
// expression pattern (all of them for ""); none is an error.
func matching(ws []workload, pattern string) ([]workload, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("-run: %w", err)
	}
	ws = slices.DeleteFunc(slices.Clone(ws), func(w workload) bool { return !re.MatchString(w.name) })
	if len(ws) == 0 {
		return nil, fmt.Errorf("-run %q matches no workload of the suite", pattern)
	}
	return ws, nil
}

// minBenchSamples is how many samples -format bench takes at least:
// benchstat gives no confidence interval for fewer than 6.
const minBenchSamples = 6

// targets returns the adapters c asks for.
func (c *runConfig) targets(ctx context.Context) ([]wgpu.AdapterInfo, error) {
	if c.adapter == "" {
		// The default adapter is the one wgpu.Open picks.
		a, err := defaultAdapter(ctx, wgpu.Options{Backend: c.backend})
		if err != nil {
			return nil, err
		}
		return []wgpu.AdapterInfo{a}, nil
	}
	var targets []wgpu.AdapterInfo
	for _, a := range wgpu.Adapters() {
		if c.backend != wgpu.BackendAny && a.Backend != c.backend {
			continue
		}
		if c.adapter == "all" || a.Matches(c.adapter) {
			targets = append(targets, a)
		}
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("no adapter matches -adapter %q -backend %q", c.adapter, c.backend)
	}
	return targets, nil
}

func runCmd(args []string, stdout, stderr io.Writer) error {
	c, err := parseRun(args, stdout)
	if err != nil || c == nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	targets, err := c.targets(ctx)
	if err != nil {
		return err
	}
	rep, err := c.measureAll(ctx, targets, stderr)
	if err != nil {
		return err
	}
	if c.jsonPath != "" {
		if err := writeJSON(c.jsonPath, rep); err != nil {
			return err
		}
	}
	switch c.format {
	case "bench":
		writeBench(stdout, rep)
	default:
		writeTable(stdout, rep)
	}
	for _, r := range rep.Results {
		if !r.Ok {
			return fmt.Errorf("%s on %s failed its check: %s", r.Workload, r.Adapter, r.Check)
		}
	}
	return nil
}

// newReport returns a report of this machine, without results.
func newReport(suite string) Report {
	host, _ := os.Hostname()
	return Report{Date: time.Now().UTC().Format(time.RFC3339), Suite: suite,
		Machine: fmt.Sprintf("%s, %s/%s, %d CPUs, %s", host, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version()),
		GOOS:    runtime.GOOS, GOARCH: runtime.GOARCH, CPU: cpuModel()}
}

// historyFile is where the memory history of a run on the adapter
// labelled label goes: path itself when the run has one adapter, else
// path with the label before its extension ("h.json" → "h-llvmpipe-vulkan.json").
func historyFile(path, label string, adapters int) string {
	if adapters == 1 {
		return path
	}
	ext := filepath.Ext(path)
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == os.PathSeparator {
			return '-'
		}
		return r
	}, label)
	return strings.TrimSuffix(path, ext) + "-" + name + ext
}

// measureAll runs every workload of c on every target, showing progress
// on stderr when it is a terminal.
func (c *runConfig) measureAll(ctx context.Context, targets []wgpu.AdapterInfo, stderr io.Writer) (Report, error) {
	rep := newReport(c.suite)
	labels := adapterLabels(wgpu.Adapters())
	for i, a := range targets {
		d, err := openTarget(ctx, a)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", adapterLabel(a), err)
		}
		// Results are labelled by the device opened, not by the request.
		info := d.Info()
		label := cmpOr(labels[info.Index], adapterLabel(info))
		rep.Adapters = append(rep.Adapters, adapterOf(info, label))
		status := func(format string, args ...any) {
			if isTerminal(stderr) { // a one-line status, redrawn; none in logs
				fmt.Fprintf(stderr, "\r\033[K[adapter %d/%d] %s: "+format, append([]any{i + 1, len(targets), label}, args...)...)
			}
		}
		e := tensor.New(d)
		if c.historyPath != "" {
			if err := e.RecordMemoryHistory(wgpu.HistoryOptions{}); err != nil {
				return rep, fmt.Errorf("%s: %w", label, err)
			}
		}
		for _, r := range sampleRounds(ctx, e, c.workloads, c.count, status) {
			r.Adapter = label
			rep.Results = append(rep.Results, r)
		}
		if c.historyPath != "" {
			path := historyFile(c.historyPath, label, len(targets))
			if err := e.WriteMemoryHistory(path); err != nil {
				return rep, fmt.Errorf("%s: memory history: %w", label, err)
			}
			fmt.Fprintf(stderr, "wgbench: %s: memory history written to %s\n", label, path)
		}
		if isTerminal(stderr) {
			fmt.Fprint(stderr, "\r\033[K")
		}
		if err := d.Close(); err != nil {
			fmt.Fprintf(stderr, "wgbench: %s: %v\n", label, err)
		}
	}
	return rep, nil
}

// sampleRounds takes count samples of every workload, in rounds that take
// one sample of each, so that a burst of load on the machine spreads over
// many workloads' samples instead of shifting all of one workload's. It
// returns a result per workload, in order; a workload that fails stops
// being sampled and its result holds the error.
//
// A workload that names no kernel gets the matmul kernels its products
// took (kernelsUsed), and one during whose samples the autotuner ran gets
// a metric of the time it took ("autotune", in all its samples).
func sampleRounds(ctx context.Context, e *tensor.Engine, ws []workload, count int, status func(string, ...any)) []Result {
	samples := make([][]Result, len(ws))
	failed := make([]error, len(ws))
	products := make([]map[string]uint64, len(ws))
	tuning := make([]time.Duration, len(ws))
	for round := range max(count, 1) {
		for i, w := range ws {
			if failed[i] != nil {
				continue
			}
			status("sample %d/%d of %s", round+1, count, w.name)
			if d := e.Device(); d.Recording() {
				d.MarkHistory(fmt.Sprintf("%s sample %d", w.name, round+1))
			}
			before := tensor.Autotune(e.Device())
			r, err := w.run(ctx, e)
			if err != nil {
				failed[i] = err
				continue
			}
			after := tensor.Autotune(e.Device())
			tuning[i] += after.Time - before.Time
			if products[i] == nil {
				products[i] = map[string]uint64{}
			}
			for kind, n := range after.Products {
				products[i][kind] += n - before.Products[kind]
			}
			samples[i] = append(samples[i], r)
		}
	}
	results := make([]Result, len(ws))
	for i, w := range ws {
		if failed[i] != nil {
			results[i] = Result{Check: failed[i].Error()}
		} else {
			results[i] = summarize(samples[i])
			if results[i].Kernel == "" {
				results[i].Kernel = kernelsUsed(products[i])
			}
			if tuning[i] > 0 {
				results[i].Extra = append(results[i].Extra, Metric{Name: "autotune", Value: float64(tuning[i].Microseconds()) / 1e3, Unit: "ms"})
			}
		}
		results[i].Workload = w.name
	}
	return results
}

// kernelsUsed names the matmul kernels of products (products by kernel),
// the most used first, with each one's share when there are several:
// "vec4", "vec4 75% + small 25%"; "" for none.
func kernelsUsed(products map[string]uint64) string {
	var total uint64
	kinds := make([]string, 0, len(products))
	for kind, n := range products {
		if n > 0 {
			kinds = append(kinds, kind)
			total += n
		}
	}
	slices.SortFunc(kinds, func(a, b string) int {
		if c := cmp.Compare(products[b], products[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	if len(kinds) == 1 {
		return "matmul " + kinds[0]
	}
	parts := make([]string, len(kinds))
	for i, kind := range kinds {
		parts[i] = fmt.Sprintf("%s %.0f%%", kind, 100*float64(products[kind])/float64(total))
	}
	if len(parts) == 0 {
		return ""
	}
	return "matmul " + strings.Join(parts, " + ")
}

// openTarget opens a device on exactly the adapter a, by its index in
// wgpu.Adapters' list: WGT_BACKEND and WGT_ADAPTER, which fill in only what
// options leave unset, cannot move it to another adapter.
func openTarget(ctx context.Context, a wgpu.AdapterInfo) (*wgpu.Device, error) {
	return wgpu.Open(ctx, wgpu.Options{Backend: a.Backend, Adapter: fmt.Sprintf("#%d", a.Index)})
}
