package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/tensor"
)

func sampleReport(gflops, us float64, ok bool) Report {
	return Report{Date: "2026-11-22T00:00:00Z", Machine: "host, linux/amd64, 2 CPUs, go1.26.8", CPU: "Some CPU @ 2.0GHz", Suite: "quick",
		Results: []Result{
			{Adapter: "llvmpipe/vulkan", Workload: "matmul_256", Value: gflops, Unit: "GFLOP/s", NsPerOp: 1e6, Ok: ok},
			{Adapter: "llvmpipe/gl", Workload: "matmul_256", Value: gflops / 2, Unit: "GFLOP/s", NsPerOp: 2e6, Ok: true},
			{Adapter: "llvmpipe/vulkan", Workload: "small_ops_1k", Value: us, Unit: "µs/op", NsPerOp: us * 1e3, Ok: true},
		}}
}

func TestTableHasAColumnPerAdapter(t *testing.T) {
	var b strings.Builder
	writeTable(&b, sampleReport(2, 70, true))
	lines := strings.Split(b.String(), "\n")
	assert.Contains(t, lines[0], "llvmpipe/vulkan")
	assert.Contains(t, lines[0], "llvmpipe/gl")
	assert.Contains(t, lines[1], "2 GFLOP/s")
	assert.Contains(t, lines[1], "1 GFLOP/s")
	assert.Contains(t, lines[2], "-", "a workload not run on an adapter")
}

func TestBenchFormatIsReadByBenchstat(t *testing.T) {
	var b strings.Builder
	writeBench(&b, sampleReport(2, 70, true))
	assert.Contains(t, b.String(), "Benchmarkmatmul_256/adapter=llvmpipe-vulkan 1 1000000 ns/op 2 GFLOP/s\n")
	assert.Contains(t, b.String(), "Benchmarksmall_ops_1k/adapter=llvmpipe-vulkan 1 70000 ns/op 70 us/op\n")
	assert.Contains(t, b.String(), "goos: linux/amd64\n")
	assert.Contains(t, b.String(), "cpu: Some CPU @ 2.0GHz\n")
}

func TestMeasureReportsTheMedianSample(t *testing.T) {
	values := []float64{3, 1, 2}
	i := 0
	w := workload{name: "w", run: func(context.Context, *tensor.Engine) (Result, error) {
		v := values[i]
		i++
		return Result{Value: v, Unit: "GB/s", Ok: v != 1, Check: fmt.Sprintf("sample %v", v)}, nil
	}}
	r, err := measure(context.Background(), nil, w, 3)
	require.NoError(t, err)
	assert.Equal(t, 2.0, r.Value, "the median")
	assert.Equal(t, []float64{3, 1, 2}, r.Samples, "every sample, in the order taken")
	assert.False(t, r.Ok, "a wrong sample makes the result wrong")
	assert.Equal(t, "sample 1", r.Check)

	i = 0
	w.once = true
	r, err = measure(context.Background(), nil, w, 5)
	require.NoError(t, err)
	assert.Equal(t, 1, i, "a workload defined by its iteration count runs once")
	assert.Nil(t, r.Samples)

	w.run = func(context.Context, *tensor.Engine) (Result, error) { return Result{}, errors.New("no device") }
	_, err = measure(context.Background(), nil, w, 3)
	assert.EqualError(t, err, "no device")
}

func TestCompareMarksRegressions(t *testing.T) {
	dir := t.TempDir()
	old, cur := filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")
	require.NoError(t, writeJSON(old, sampleReport(2, 70, true)))
	require.NoError(t, writeJSON(cur, sampleReport(1, 100, true)))
	var b strings.Builder
	require.NoError(t, compare(old, cur, &b))
	assert.Regexp(t, `matmul_256 +llvmpipe/vulkan .* 0\.50× +REGRESSION`, b.String(), "half the GFLOP/s")
	assert.Regexp(t, `small_ops_1k .* 1\.43× +REGRESSION`, b.String(), "µs per op went up")
	assert.Contains(t, b.String(), "3 regressions")
}

func TestPlotWritesSVGAndPNG(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "r.json")
	require.NoError(t, writeJSON(in, sampleReport(2, 70, true)))
	require.NoError(t, plot(in, filepath.Join(dir, "r.svg")))
	svg, err := os.ReadFile(filepath.Join(dir, "r.svg"))
	require.NoError(t, err)
	assert.Contains(t, string(svg), "matmul_256 (GFLOP/s)")
	assert.Contains(t, string(svg), "llvmpipe/gl")
	require.NoError(t, plot(in, filepath.Join(dir, "r.png")))
	png, err := os.ReadFile(filepath.Join(dir, "r.png"))
	require.NoError(t, err)
	assert.Equal(t, "\x89PNG", string(png[:4]))
	assert.Error(t, plot(in, filepath.Join(dir, "r.gif")))
}
