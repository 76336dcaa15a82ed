package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/dist"
	"github.com/wgtensor/wgtensor/wgpu"
)

// wgbench -adapter all used to open GL for every adapter when WGT_BACKEND
// was gl, and label one of the two GL runs Vulkan.
func TestOpenTargetOpensThatAdapter(t *testing.T) {
	t.Setenv("WGT_BACKEND", "gl")
	t.Setenv("WGT_ADAPTER", "no such adapter anywhere")
	adapters := wgpu.Adapters()
	if len(adapters) == 0 {
		t.Skip("no adapter")
	}
	for _, a := range adapters {
		if a.Backend == wgpu.BackendAny {
			continue
		}
		d, err := openTarget(context.Background(), a)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		if got := d.Info(); got.Index != a.Index || got.Backend != a.Backend || got.Name != a.Name {
			t.Errorf("asked for [%d] %s, opened [%d] %s", a.Index, a, got.Index, got)
		}
		if err := d.Close(); err != nil {
			t.Errorf("%s: close: %v", a, err)
		}
	}
}

// runArgs runs a wgbench command line, returning stdout and the error.
func runArgs(args ...string) (string, error) {
	var out, errOut strings.Builder
	err := run(args, &out, &errOut)
	return out.String(), err
}

// wgbench -h, help and run -h exited 1 with the usage on stderr.
func TestHelpPrintsUsageAndSucceeds(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"--help"}, {"run", "-h"}, {"run", "-suite", "full", "-help"},
		{"compare", "-h"}, {"plot", "-h"}, {"list", "-h"}} {
		out, err := runArgs(args...)
		assert.NoError(t, err, "%q", args)
		assert.Contains(t, out, "usage", "%q", args)
	}
	out, _ := runArgs("run", "-h")
	assert.Contains(t, out, "-count", "run -h lists run's flags")
}

// Go's flag package stops at the first argument, so plot r.json -o out.svg
// never saw -o.
func TestFlagsMayFollowArguments(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "r.json"), filepath.Join(dir, "out.svg")
	require.NoError(t, writeJSON(in, sampleReport(2, 70, true)))
	_, err := runArgs("plot", in, "-o", out)
	require.NoError(t, err)
	assert.FileExists(t, out)
	_, err = runArgs("compare", in, in, "-threshold", "5")
	assert.NoError(t, err)

	// After "--" everything is an argument, even what looks like a flag.
	weird := filepath.Join(dir, "-o.json")
	require.NoError(t, writeJSON(weird, sampleReport(2, 70, true)))
	_, err = runArgs("plot", "-o", out, "--", weird)
	assert.NoError(t, err)
}

// An unknown -format, an extra argument or an unwritable -json path was
// noticed only after the whole suite had run, or not at all.
func TestRunRejectsAMistakeBeforeRunning(t *testing.T) {
	for _, c := range []struct {
		args  []string
		usage bool
		want  string
	}{
		{[]string{"-format", "xml"}, true, `-format "xml": want table or bench`},
		{[]string{"-suite", "smoke", "extra"}, true, `run takes no arguments, not ["extra"]`},
		{[]string{"-suite", "huge"}, true, `unknown suite "huge"`},
		{[]string{"-count", "-1"}, true, "-count -1"},
		{[]string{"-run", "no_such_workload"}, true, `-run "no_such_workload" matches no workload`},
		{[]string{"-run", "("}, true, "-run: error parsing regexp"},
		{[]string{"-backend", "pdp11"}, true, "pdp11"},
		{[]string{"-bogus"}, true, "flag provided but not defined: -bogus"},
		{[]string{"-json", filepath.Join(t.TempDir(), "no", "such", "dir", "r.json")}, false, "cannot write -json"},
		{[]string{"-json", t.TempDir()}, false, "cannot write -json"},
		{[]string{"-memory-history", t.TempDir()}, false, "cannot write -memory-history"},
	} {
		out, err := runArgs(append([]string{"run"}, c.args...)...)
		require.Error(t, err, "%q", c.args)
		assert.Contains(t, err.Error(), c.want, "%q", c.args)
		var ue usageError
		assert.Equal(t, c.usage, errors.As(err, &ue), "%q: a usage error: %v", c.args, err)
		assert.Empty(t, out, "%q: nothing ran", c.args)
	}
}

// -run picks the suite's workloads by name, in the suite's order.
func TestRunPicksWorkloadsByName(t *testing.T) {
	c, err := parseRun([]string{"-suite", "quick", "-run", "_train_|^mlp_|small"}, io.Discard)
	require.NoError(t, err)
	var names []string
	for _, w := range c.workloads {
		names = append(names, w.name)
	}
	want := []string{"small_ops_1k", "mlp_train_step", "cnn_train_step", "cnn_train_step_autocast", "mlp_forward", "mlp_forward_half", "mlp_forward_int8", "transformer_train_step", "transformer_train_step_autocast"}
	if dist.MPIBuiltIn() { // built with -tags mpi
		want = append(want, "ddp_train_step_1", "ddp_train_step_2", "ddp_train_step_4")
	}
	assert.Equal(t, want, names)
}

// -memory-history writes the run's memory history, with a marker at each
// sample, and names one file per adapter when there are several.
func TestRunWritesAMemoryHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.json")
	_, err := runArgs("run", "-suite", "smoke", "-run", "^matmul_256$", "-count", "2", "-memory-history", path)
	require.NoError(t, err)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	h, err := wgpu.ReadHistory(f)
	require.NoError(t, err)
	var marks []string
	for _, e := range h.Events {
		if e.Kind == wgpu.EventMark {
			marks = append(marks, h.Labels[e.Label])
		}
	}
	assert.Equal(t, []string{"matmul_256 sample 1", "matmul_256 sample 2"}, marks)
	assert.Equal(t, "h.json", filepath.Base(historyFile(path, "llvmpipe/vulkan", 1)))
	assert.Equal(t, "h-llvmpipe-vulkan.json", filepath.Base(historyFile(path, "llvmpipe/vulkan", 2)))
}

func TestExitStatus(t *testing.T) {
	assert.Equal(t, 0, exitStatus(nil))
	assert.Equal(t, 2, exitStatus(usagef(usage, "no command")))
	assert.Equal(t, 2, exitStatus(fmt.Errorf("wrapped: %w", usagef(usage, "no command"))))
	assert.Equal(t, 1, exitStatus(fmt.Errorf("%w: 1 workloads worse", errRegression)))
	assert.Equal(t, 1, exitStatus(errors.New("matmul_256 failed its check")))
	_, err := runArgs()
	assert.Equal(t, 2, exitStatus(err))
	_, err = runArgs("bogus")
	assert.Equal(t, 2, exitStatus(err))
}

// list printed two identical "[N] llvmpipe (...)" entries with nothing to
// say which one run uses by default.
func TestListMarksTheDefaultAdapter(t *testing.T) {
	as := wgpu.Adapters()
	if len(as) == 0 {
		t.Skip("no adapter")
	}
	def, err := defaultAdapter(context.Background(), wgpu.Options{})
	require.NoError(t, err)
	out, err := runArgs("list")
	require.NoError(t, err)
	marked := regexp.MustCompile(`(?m)^\*\[(\d+)\] `).FindAllStringSubmatch(out, -1)
	require.Len(t, marked, 1, "one default:\n%s", out)
	assert.Equal(t, strconv.Itoa(def.Index), marked[0][1])
	labels := adapterLabels(as)
	for _, a := range as {
		assert.Contains(t, out, fmt.Sprintf("[%d] %s, labelled %s\n", a.Index, a.Name, labels[a.Index]))
	}
	assert.Contains(t, out, "* the default adapter")
}
