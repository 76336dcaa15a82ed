// Command wgbench benchmarks wgtensor on every adapter of the machine, side
// by side.
//
//	wgbench list                              adapters; * marks run's default
//	wgbench run [flags]                       run a suite (wgbench run -h)
//	wgbench compare [flags] OLD.json NEW.json significant changes; exit 1 on a regression
//	wgbench plot -o FILE.svg|png A.json [B.json]  a bar chart per workload, A beside B
//
// Flags may come before or after the arguments; "--" ends them. -h and
// help print usage and exit 0; a usage error exits 2, a failed run or a
// regression found by compare exits 1.
//
// Workload definitions are fixed (see README): other libraries are measured
// on the same ones. Every sample carries a correctness check of its output.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wgtensor/wgtensor/internal/bytesize"
	"github.com/wgtensor/wgtensor/wgpu"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "wgbench:", err)
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(os.Stderr, ue.usage)
	}
	os.Exit(exitStatus(err))
}

// exitStatus returns wgbench's exit status after err: 0 for none, 2 for a
// usage error, 1 for anything else (a failed run, a regression).
func exitStatus(err error) int {
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		return 2
	}
	return 1
}

const usage = `wgbench benchmarks wgtensor on every adapter of the machine, side by side.

usage:
  wgbench list                  the adapters; * marks the one run uses by default
  wgbench run [flags]           run a suite of workloads (wgbench run -h for the flags)
  wgbench compare [flags] OLD.json NEW.json
                                significant changes between two runs; exit 1 on a regression
  wgbench plot -o FILE.svg|FILE.png RESULTS.json [AFTER.json]
                                a bar chart per workload, AFTER beside RESULTS
  wgbench help                  this text

Flags may come before or after the arguments.`

// usageError is a command line wgbench cannot run; main prints usage
// after it and exits 2.
type usageError struct{ msg, usage string }

func (e usageError) Error() string { return e.msg }

func usagef(usage, format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...), usage}
}

// run runs the command line args, writing results to stdout and progress
// to stderr.
func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef(usage, "no command")
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	case "list":
		fs := newFlagSet("list", "wgbench list")
		pos, err := parseArgs(fs, args[1:], stdout)
		if err != nil || fs.helped {
			return err
		}
		if len(pos) > 0 {
			return usagef(fs.usage, "list takes no arguments, not %q", pos)
		}
		return list(stdout)
	case "run":
		return runCmd(args[1:], stdout, stderr)
	case "compare":
		return compareCmd(args[1:], stdout)
	case "plot":
		return plotCmd(args[1:], stdout)
	case "ddp-rank": // one rank of a ddp_train_step job, which mpirun starts (ddp.go)
		return ddpRankCmd(args[1:], stdout)
	}
	return usagef(usage, "unknown command %q", args[0])
}

// flagSet is a flag.FlagSet that reports -h instead of printing.
type flagSet struct {
	*flag.FlagSet
	usage  string
	helped bool // -h was given: usage went to stdout
}

func newFlagSet(name, usage string) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), usage: "usage: " + usage}
	fs.SetOutput(io.Discard)
	return fs
}

// parseArgs parses fs's flags wherever they stand among args, up to a
// "--" after which everything is an argument, and returns the arguments in
// order. -h prints fs's usage and defaults to stdout and sets fs.helped.
func parseArgs(fs *flagSet, args []string, stdout io.Writer) ([]string, error) {
	var pos []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.helped = true
			fmt.Fprintln(stdout, fs.usage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil, nil
		}
		if err != nil {
			return nil, usagef(fs.usage, "%v", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// adapterLabel names a in results: the device's name without its details,
// and the backend.
func adapterLabel(a wgpu.AdapterInfo) string {
	name := a.Name
	if i := strings.Index(name, " ("); i > 0 {
		name = name[:i]
	}
	return fmt.Sprintf("%s/%s", name, a.Backend)
}

// adapterLabels returns the label of each adapter of as, by index: its
// adapterLabel, followed by "#N" where another adapter has the same one.
func adapterLabels(as []wgpu.AdapterInfo) map[int]string {
	count := map[string]int{}
	for _, a := range as {
		count[adapterLabel(a)]++
	}
	labels := map[int]string{}
	for _, a := range as {
		l := adapterLabel(a)
		if count[l] > 1 {
			l = fmt.Sprintf("%s#%d", l, a.Index)
		}
		labels[a.Index] = l
	}
	return labels
}

// defaultAdapter returns the adapter wgpu.Open picks for these options (and
// WGT_BACKEND and WGT_ADAPTER), which run uses without -adapter.
func defaultAdapter(ctx context.Context, opts wgpu.Options) (wgpu.AdapterInfo, error) {
	d, err := wgpu.Open(ctx, opts)
	if err != nil {
		return wgpu.AdapterInfo{}, err
	}
	info := d.Info()
	return info, d.Close()
}

func list(w io.Writer) error {
	as := wgpu.Adapters()
	if len(as) == 0 {
		return wgpu.ErrNoAdapter
	}
	def, err := defaultAdapter(context.Background(), wgpu.Options{})
	hasDefault := err == nil
	labels := adapterLabels(as)
	for _, a := range as {
		mark := " "
		if hasDefault && def.Index == a.Index {
			mark = "*"
		}
		l := a.Limits
		fmt.Fprintf(w, "%s[%d] %s, labelled %s\n    backend %s, type %s, driver %q, vendor 0x%x device 0x%x\n    max buffer %s, max storage binding %s, workgroup storage %s, %d invocations per workgroup, %d workgroups per dimension\n",
			mark, a.Index, a.Name, labels[a.Index], a.Backend, a.Type, a.Driver, a.VendorID, a.DeviceID,
			bytesize.Format(l.MaxBufferSize), bytesize.Format(l.MaxStorageBufferBindingSize),
			bytesize.Format(uint64(l.MaxComputeWorkgroupStorageSize)), l.MaxComputeInvocationsPerWorkgroup, l.MaxComputeWorkgroupsPerDimension)
	}
	if hasDefault {
		fmt.Fprintf(w, "* the default adapter: what wgbench run uses without -adapter\n")
	} else {
		fmt.Fprintf(w, "no default adapter: %v\n", err)
	}
	return nil
}

// checkWritable fails unless a file can be created at path's directory, so
// that a run does not end by failing to save what it measured; flag names
// the flag that gave path.
func checkWritable(flag, path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("cannot write -%s %s: a directory", flag, path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".wgbench-*")
	if err != nil {
		return fmt.Errorf("cannot write -%s %s: %w", flag, path, err)
	}
	f.Close()
	return os.Remove(f.Name())
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
