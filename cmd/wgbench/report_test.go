package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"

	"github.com/wgtensor/wgtensor/wgpu"
)

// samplesAround returns n samples spread ±2% around center.
func samplesAround(center float64, n int) []Sample {
	s := make([]Sample, n)
	for i := range s {
		v := center * (1 + 0.04*(float64(i)/float64(n-1)-0.5))
		s[i] = Sample{Value: v, NsPerOp: 1e9 / v}
	}
	return s
}

// result returns a result of samples, as run makes it.
func result(adapter, workload, unit string, samples []Sample) Result {
	rs := make([]Result, len(samples))
	for i, s := range samples {
		rs[i] = Result{Value: s.Value, Unit: unit, NsPerOp: s.NsPerOp, Extra: s.Extra, Ok: true, Check: "fine"}
	}
	r := summarize(rs)
	r.Adapter, r.Workload = adapter, workload
	return r
}

func sampleReport(gflops, us float64, ok bool) Report {
	rep := Report{Date: "2026-11-22T00:00:00Z", Machine: "host, linux/amd64, 2 CPUs, go1.26.8", GOOS: "linux", GOARCH: "amd64",
		CPU: "Some CPU @ 2.0GHz", Suite: "quick",
		Results: []Result{
			result("llvmpipe/vulkan", "matmul_256", "GFLOP/s", samplesAround(gflops, 7)),
			result("llvmpipe/gl", "matmul_256", "GFLOP/s", samplesAround(gflops/2, 7)),
			result("llvmpipe/vulkan", "small_ops_1k", "µs/op", samplesAround(us, 7)),
		}}
	rep.Results[0].Ok = ok
	rep.Results[0].Kernel, rep.Results[0].Ops = "vec4", 238
	return rep
}

func TestTableHasAColumnPerAdapter(t *testing.T) {
	var b strings.Builder
	writeTable(&b, sampleReport(2, 70, true))
	lines := strings.Split(b.String(), "\n")
	assert.Contains(t, lines[0], "llvmpipe/vulkan")
	assert.Contains(t, lines[0], "llvmpipe/gl")
	assert.Contains(t, lines[1], "2.00 GFLOP/s ±")
	assert.Contains(t, lines[1], "1.00 GFLOP/s ±")
	assert.Contains(t, lines[2], "-", "a workload not run on an adapter")
	assert.Contains(t, b.String(), "(medians; ± the 95% confidence interval")
}

// The table printed 1e+03 correct, 3 µs/op next to 3.03 and Go maps such
// as map[k:238 kernel:vec4].
func TestTableNumbersAreForPeople(t *testing.T) {
	rep := Report{Results: []Result{
		result("a/vulkan", "async_dispose_leak", "correct", []Sample{{Value: 1000, Extra: Metrics{bytesMetric("live_before", 65536)}}}),
		result("a/vulkan", "small_ops_1k", "µs/op", []Sample{{Value: 3, NsPerOp: 3000}}),
		result("a/vulkan", "readback_4KB", "µs", []Sample{{Value: 3.03, NsPerOp: 3030}}),
		result("a/vulkan", "churn_10k", "ms/iter", []Sample{{Value: 0.2894, NsPerOp: 289400,
			Extra: Metrics{bytesMetric("peak_reserved", 7155712), bytesMetric("reserved_after_trim", 0)}}}),
	}}
	rep.Results[0].Ops = 1000
	var b strings.Builder
	writeTable(&b, rep)
	out := b.String()
	assert.Contains(t, out, "1000 correct")
	assert.Contains(t, out, "3.00 µs/op")
	assert.Contains(t, out, "3.03 µs")
	assert.Contains(t, out, "0.289 ms/iter")
	assert.NotRegexp(t, `e\+|map\[`, out)
	assert.NotContains(t, out, "±", "one sample each: no interval")
	assert.Regexp(t, `(?m)^workload +adapter +ops/sample +live_before$`, out, "extras in labelled columns")
	assert.Regexp(t, `(?m)^async_dispose_leak +a/vulkan +1000 +64.00 KiB$`, out)
	assert.Regexp(t, `(?m)^workload +adapter +peak_reserved +reserved_after_trim$`, out)
	assert.Regexp(t, `(?m)^churn_10k +a/vulkan +6.82 MiB +0 B$`, out)
}

func TestFormatNumber(t *testing.T) {
	for v, want := range map[float64]string{1000: "1000", 123456: "123456", 18.94: "18.9", 3: "3.00", 0.2894: "0.289", 0: "0", 0.00012345: "0.000123", -2.5: "-2.50"} {
		assert.Equal(t, want, formatNumber(v), "%v", v)
	}
}

// A count of tensors read "6.00 tensors".
func TestFormatMetricWritesCountsWhole(t *testing.T) {
	assert.Equal(t, "6 tensors", formatMetric(6, "tensors"))
	assert.Equal(t, "1234 tensors", formatMetric(1234, "tensors"))
	assert.Equal(t, "2.50 ms", formatMetric(2.5, "ms"))
	assert.Equal(t, "64.00 KiB", formatMetric(65536, "B"))
}

// walkJSON calls f with every object key of v, and with every value
// under a key.
func walkJSON(v any, f func(key string, value any)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			f(k, x)
			walkJSON(x, f)
		}
	case []any:
		for _, x := range v {
			walkJSON(x, f)
		}
	}
}

// The JSON had CamelCase adapter fields beside snake_case results, and
// extras as strings ("k": "238").
func TestJSONHasOneNamingStyleAndNumbersAsNumbers(t *testing.T) {
	rep := sampleReport(2, 70, true)
	rep.Adapters = []Adapter{adapterOf(wgpu.AdapterInfo{Name: "llvmpipe (LLVM 15)", Backend: wgpu.BackendVulkan, Type: wgpu.AdapterCPU,
		Limits: wgpu.Limits{MaxBufferSize: 1 << 31}}, "llvmpipe/vulkan")}
	rep.Results[2].Extra = Metrics{bytesMetric("peak_reserved", 7155712)}
	path := filepath.Join(t.TempDir(), "r.json")
	require.NoError(t, writeJSON(path, rep))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal(b, &v))
	snake := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	keys := map[string]bool{}
	walkJSON(v, func(k string, x any) {
		keys[k] = true
		assert.Regexp(t, snake, k)
		if k == "value" || k == "ns_per_op" || k == "ops" || strings.HasPrefix(k, "max_") {
			assert.IsType(t, 0.0, x, "%s is a number", k)
		}
	})
	for _, k := range []string{"max_buffer_size", "vendor_id", "samples", "ns_per_op", "extra", "goos", "goarch"} {
		assert.True(t, keys[k], "%s in the JSON", k)
	}
	back, err := readReport(path)
	require.NoError(t, err)
	assert.Equal(t, rep, back, "what was written reads back")
}

// Result files written before samples had fields still read.
func TestReadsResultsOfEarlierVersions(t *testing.T) {
	rep, err := readReport("../../bench/results/2026-11-22-full-vulkan-gl-xeon2.json")
	require.NoError(t, err)
	require.NotEmpty(t, rep.Results)
	r := rep.Results[0]
	assert.Len(t, r.values(), 5)
	assert.Contains(t, r.values(), r.Value)
}

func TestSummarizeReportsTheMedianSample(t *testing.T) {
	rs := []Result{{Value: 3, Unit: "GB/s", Ok: true, Check: "sample 3"}, {Value: 1, Unit: "GB/s", Check: "sample 1"},
		{Value: 2, Unit: "GB/s", Ok: true, Check: "sample 2"}}
	r := summarize(rs)
	assert.Equal(t, 2.0, r.Value, "the median")
	assert.Equal(t, []float64{3, 1, 2}, r.values(), "every sample, in the order taken")
	assert.False(t, r.Ok, "a wrong sample makes the result wrong")
	assert.Equal(t, "sample 1", r.Check)
}

// -format bench printed one line per result (benchstat: ± ∞ on every
// row), "goos: linux/amd64", and counts as ns/op.
func TestBenchFormatHasEverySampleAndBenchstatReadsIt(t *testing.T) {
	rep := sampleReport(2, 70, true)
	rep.Results = append(rep.Results, result("llvmpipe/vulkan", "async_dispose_leak", "correct",
		[]Sample{{Value: 1000, Extra: Metrics{bytesMetric("live_after", 65536)}}, {Value: 1000, Extra: Metrics{bytesMetric("live_after", 65536)}}}))
	rep.Results[3].Ops = 1000
	var b strings.Builder
	writeBench(&b, rep)
	out := b.String()
	assert.Contains(t, out, "goos: linux\ngoarch: amd64\n")
	assert.Contains(t, out, "cpu: Some CPU @ 2.0GHz\n")
	assert.Contains(t, out, "Unit GFLOP/s better=higher\n")
	assert.Contains(t, out, "Unit live_after-B better=lower\n")
	assert.Regexp(t, `(?m)^Benchmarkmatmul_256/adapter=llvmpipe-vulkan 238 \d+(\.\d+)? ns/op 1\.96 GFLOP/s$`, out)
	assert.Regexp(t, `(?m)^Benchmarksmall_ops_1k/adapter=llvmpipe-vulkan 1 \d+(\.\d+)? ns/op$`, out, "a time is ns/op only")
	assert.Regexp(t, `(?m)^Benchmarkasync_dispose_leak/adapter=llvmpipe-vulkan 1000 1000 correct 65536 live_after-B$`, out, "a count is no ns/op")

	// benchstat's reader takes it, every line a sample, with intervals.
	samples := map[string][]float64{}
	rd := benchfmt.NewReader(strings.NewReader(out), "bench.txt")
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		case *benchfmt.Result:
			for _, v := range rec.Values {
				k := string(rec.Name) + " " + v.Unit
				samples[k] = append(samples[k], v.Value)
			}
		}
	}
	require.NoError(t, rd.Err())
	m := samples["matmul_256/adapter=llvmpipe-vulkan GFLOP/s"]
	require.Len(t, m, 7)
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(m, &benchmath.DefaultThresholds), 0.95)
	assert.False(t, math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0), "a confidence interval: %+v", s)
	assert.Len(t, samples["small_ops_1k/adapter=llvmpipe-vulkan sec/op"], 7)
	assert.Len(t, samples["async_dispose_leak/adapter=llvmpipe-vulkan correct"], 2)
	assert.Empty(t, samples["async_dispose_leak/adapter=llvmpipe-vulkan sec/op"])
}

func TestAdapterLabelsTellIdenticalAdaptersApart(t *testing.T) {
	gpu := wgpu.AdapterInfo{Name: "Radeon RX 7600 (RADV NAVI33)", Backend: wgpu.BackendVulkan}
	second := gpu
	second.Index = 1
	cpu := wgpu.AdapterInfo{Index: 2, Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Backend: wgpu.BackendVulkan}
	assert.Equal(t, map[int]string{0: "Radeon RX 7600/vulkan#0", 1: "Radeon RX 7600/vulkan#1", 2: "llvmpipe/vulkan"},
		adapterLabels([]wgpu.AdapterInfo{gpu, second, cpu}))
}
