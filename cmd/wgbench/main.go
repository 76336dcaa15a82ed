// Command wgbench benchmarks wgtensor on every adapter of the machine, side
// by side.
//
//	wgbench list                                   adapters and their limits
//	wgbench run [-suite smoke|quick|full] [-adapter all|NAME|#N] [-backend B]
//	            [-json FILE] [-format table|bench]  run a suite
//	wgbench compare OLD.json NEW.json              ratios, regressions marked
//	wgbench plot FILE.json -o FILE.svg|png          a bar chart per workload
//
// Workload definitions are fixed (see README): other libraries are measured
// on the same ones. Every result carries a correctness check of its output.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/wgtensor/wgtensor/internal/bytesize"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "wgbench:", err)
		os.Exit(1)
	}
}

const usage = `usage:
  wgbench list
  wgbench run [-suite smoke|quick|full] [-adapter all|NAME|#N] [-backend vulkan|gl|...] [-json FILE] [-format table|bench]
  wgbench compare OLD.json NEW.json
  wgbench plot FILE.json -o FILE.svg|FILE.png`

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "list":
		return list(stdout)
	case "run":
		return runCmd(args[1:], stdout, stderr)
	case "compare":
		if len(args) != 3 {
			return errors.New(usage)
		}
		return compare(args[1], args[2], stdout)
	case "plot":
		fs := flag.NewFlagSet("plot", flag.ContinueOnError)
		out := fs.String("o", "", "output file (.svg or .png)")
		if len(args) < 2 {
			return errors.New(usage)
		}
		if err := fs.Parse(args[2:]); err != nil {
			return err
		}
		return plot(args[1], *out)
	}
	return errors.New(usage)
}

func list(w io.Writer) error {
	as := wgpu.Adapters()
	if len(as) == 0 {
		return wgpu.ErrNoAdapter
	}
	for _, a := range as {
		l := a.Limits
		fmt.Fprintf(w, "[%d] %s\n    backend %s, type %s, driver %q, vendor 0x%x device 0x%x\n    max buffer %s, max storage binding %s, workgroup storage %s, %d invocations per workgroup, %d workgroups per dimension\n",
			a.Index, a.Name, a.Backend, a.Type, a.Driver, a.VendorID, a.DeviceID,
			bytesize.Format(l.MaxBufferSize), bytesize.Format(l.MaxStorageBufferBindingSize),
			bytesize.Format(uint64(l.MaxComputeWorkgroupStorageSize)), l.MaxComputeInvocationsPerWorkgroup, l.MaxComputeWorkgroupsPerDimension)
	}
	return nil
}

// Report is what run writes as JSON.
type Report struct {
	Date     string             `json:"date"`
	Machine  string             `json:"machine"`
	CPU      string             `json:"cpu,omitempty"`
	Suite    string             `json:"suite"`
	Adapters []wgpu.AdapterInfo `json:"adapters"`
	Results  []Result           `json:"results"`
}

func adapterLabel(a wgpu.AdapterInfo) string {
	name := a.Name
	if i := strings.Index(name, " ("); i > 0 {
		name = name[:i]
	}
	return fmt.Sprintf("%s/%s", name, a.Backend)
}

func runCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	suiteName := fs.String("suite", "quick", "smoke, quick or full")
	adapter := fs.String("adapter", "", "all, a name substring, or #N (an index from wgbench list); empty: the default adapter")
	backend := fs.String("backend", "", "restrict to one backend (vulkan, gl, metal, dx12)")
	jsonOut := fs.String("json", "", "write results as JSON to this file")
	format := fs.String("format", "table", "table or bench (Go benchmark format, for benchstat)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ws, samples, err := suite(*suiteName)
	if err != nil {
		return err
	}
	be, err := wgpu.ParseBackend(*backend)
	if err != nil {
		return err
	}
	var targets []wgpu.AdapterInfo
	for _, a := range wgpu.Adapters() {
		if be != wgpu.BackendAny && a.Backend != be {
			continue
		}
		if *adapter != "all" && !a.Matches(*adapter) {
			continue
		}
		targets = append(targets, a)
		if *adapter == "" {
			break // the default: the first match in the runtime's order
		}
	}
	if *adapter == "" {
		// The default adapter is the one wgpu.Open picks.
		ctx := context.Background()
		d, err := wgpu.Open(ctx, wgpu.Options{Backend: be})
		if err != nil {
			return err
		}
		targets = []wgpu.AdapterInfo{d.Info()}
		if err := d.Close(); err != nil {
			return err
		}
	}
	if len(targets) == 0 {
		return fmt.Errorf("no adapter matches -adapter %q -backend %q", *adapter, *backend)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	host, _ := os.Hostname()
	rep := Report{Date: time.Now().UTC().Format(time.RFC3339), Suite: *suiteName,
		Machine: fmt.Sprintf("%s, %s/%s, %d CPUs, %s", host, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version()),
		CPU:     cpuModel()}
	total := len(targets) * len(ws)
	done := 0
	status := func(format string, args ...any) {
		if isTerminal(stderr) { // a one-line status, redrawn; none in logs
			fmt.Fprintf(stderr, "\r\033[K"+format, args...)
		}
	}
	for _, a := range targets {
		d, err := openTarget(ctx, a)
		if err != nil {
			return fmt.Errorf("%s: %w", adapterLabel(a), err)
		}
		// Results are labelled by the device opened, not by the request.
		info := d.Info()
		label := adapterLabel(info)
		rep.Adapters = append(rep.Adapters, info)
		e := tensor.New(d)
		for _, w := range ws {
			done++
			status("[%d/%d] %s: %s", done, total, label, w.name)
			r, err := measure(ctx, e, w, samples)
			if err != nil {
				r = Result{Check: err.Error()}
			}
			r.Adapter, r.Workload = label, w.name
			rep.Results = append(rep.Results, r)
		}
		if err := d.Close(); err != nil {
			fmt.Fprintf(stderr, "\nwgbench: %s: %v\n", label, err)
		}
	}
	status("")
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, rep); err != nil {
			return err
		}
	}
	switch *format {
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

// openTarget opens a device on exactly the adapter a, by its index in
// wgpu.Adapters' list: WGT_BACKEND and WGT_ADAPTER, which fill in only what
// options leave unset, cannot move it to another adapter.
func openTarget(ctx context.Context, a wgpu.AdapterInfo) (*wgpu.Device, error) {
	return wgpu.Open(ctx, wgpu.Options{Backend: a.Backend, Adapter: fmt.Sprintf("#%d", a.Index)})
}

// cpuModel names the host's processor, as Linux's /proc/cpuinfo does, or
// "unknown CPU".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
