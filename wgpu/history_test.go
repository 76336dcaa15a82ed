package wgpu_test

import (
	"bytes"
	"cmp"
	"iter"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// checkTotals asserts that the history's replay, event by event, equals
// the pool's figures taken after each step of the workload.
type totalsLog struct {
	at    []int // the number of events recorded when the sample was taken
	stats []wgpu.PoolStats
}

func (l *totalsLog) sample(t *testing.T, d *wgpu.Device) {
	t.Helper()
	h, err := d.History()
	require.NoError(t, err)
	l.at = append(l.at, len(h.Events)+int(h.Dropped))
	l.stats = append(l.stats, d.Pool().Stats())
}

func (l *totalsLog) check(t *testing.T, h *wgpu.History) {
	t.Helper()
	want := map[int]wgpu.PoolStats{}
	for i, n := range l.at {
		want[n-int(h.Dropped)-1] = l.stats[i] // the totals after event n-1
	}
	checked := 0
	_, err := h.Replay(func(i int, tot wgpu.HistoryTotals) {
		s, ok := want[i]
		if !ok {
			return
		}
		checked++
		require.Equal(t, s.LiveBuffers, tot.LiveBuffers, "live buffers after event %d", i)
		require.Equal(t, s.LiveBytes, tot.LiveBytes, "live bytes after event %d", i)
		require.Equal(t, s.PooledBuffers, tot.PooledBuffers, "pooled buffers after event %d", i)
		require.Equal(t, s.PooledBytes, tot.PooledBytes, "pooled bytes after event %d", i)
		require.Equal(t, s.ReservedBytes, tot.ReservedBytes(), "reserved bytes after event %d", i)
	})
	require.NoError(t, err)
	require.NotZero(t, checked)
	require.NoError(t, h.Check())
}

// churn hands out and releases buffers of random sizes and usages,
// trimming now and then, sampling the pool's figures after every step.
func churn(t *testing.T, d *wgpu.Device, steps int, log *totalsLog) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var live []*wgpu.Buffer
	usages := []wgpu.Usage{wgpu.UsageStorage, wgpu.UsageReadback, wgpu.UsageUniform}
	for i := range steps {
		switch r := rng.IntN(10); {
		case r < 5 || len(live) == 0:
			b, err := d.NewBuffer(uint64(1+rng.IntN(100_000)), usages[rng.IntN(len(usages))])
			require.NoError(t, err)
			b.Describe(uint64(i), wgpu.BufferTag{Category: "test", DType: "float32", Shape: "[3]"})
			live = append(live, b)
		case r < 9:
			j := rng.IntN(len(live))
			require.NoError(t, live[j].Release())
			live = append(live[:j], live[j+1:]...)
		default:
			require.NoError(t, d.Pool().Trim())
		}
		if i%7 == 0 {
			d.MarkHistory("step")
		}
		log.sample(t, d)
	}
	for _, b := range live {
		require.NoError(t, b.Release())
	}
	log.sample(t, d)
}

func TestHistoryReplaysToThePoolsFiguresAtEveryStep(t *testing.T) {
	d := testgpu.Open(t)
	keep, err := d.NewBuffer(1000, wgpu.UsageStorage) // live before recording: the base
	require.NoError(t, err)
	defer keep.Release()
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{}))
	var log totalsLog
	churn(t, d, 300, &log)
	h, err := d.History()
	require.NoError(t, err)
	require.Equal(t, 1, h.Base.Totals.LiveBuffers)
	require.Zero(t, h.Dropped)
	log.check(t, h)

	var buf bytes.Buffer
	_, err = h.WriteTo(&buf)
	require.NoError(t, err)
	back, err := wgpu.ReadHistory(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	require.Equal(t, h.Events, back.Events)
	require.Equal(t, h.Base, back.Base)
	require.Equal(t, h.Tags, back.Tags)
	require.Equal(t, h.Labels, back.Labels)
	require.Equal(t, h.Pool, back.Pool)
	require.Equal(t, h.Sites, back.Sites)
	require.True(t, h.Started.Equal(back.Started))
	site := h.Sites[h.Events[0].Site]
	require.Contains(t, site.Frames[site.User].File, "history_test.go")

	// LiveEach's one replay gives what Live gives at every event from
	// the first asked.
	first, seen := len(h.Events)/3, 0
	require.NoError(t, h.LiveEach(first, func(i int, live iter.Seq[wgpu.HistoryBuffer]) {
		want, err := h.Live(i)
		require.NoError(t, err)
		got := slices.SortedFunc(live, func(a, b wgpu.HistoryBuffer) int { return cmp.Compare(a.Buffer, b.Buffer) })
		require.Equal(t, want, got, "event %d", i)
		seen++
	}))
	require.Equal(t, len(h.Events)-first, seen)
}

func TestHistoryRingDropsTheOldestAndKeepsItsState(t *testing.T) {
	d := testgpu.Open(t)
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{Events: 50}))
	var log totalsLog
	churn(t, d, 200, &log)
	h, err := d.History()
	require.NoError(t, err)
	require.Len(t, h.Events, 50)
	require.NotZero(t, h.Dropped)
	log.check(t, h)
}

func TestHistoryRecordsTrimsLimitsOOMAndClose(t *testing.T) {
	dir := t.TempDir()
	oomPath := filepath.Join(dir, "oom.json")
	d := testgpu.OpenWith(t, testgpu.DefaultOptions())
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{OnOOM: oomPath}))
	held, err := d.NewBuffer(512<<10, wgpu.UsageStorage)
	require.NoError(t, err)
	defer held.Release()
	b, err := d.NewBuffer(512<<10, wgpu.UsageStorage)
	require.NoError(t, err)
	require.NoError(t, b.Release())
	d.Pool().SetMemoryLimit(1 << 20)
	defer d.Pool().SetMemoryLimit(0)
	// Past the limit with what is pooled: trimmed, then past it with what
	// is live.
	_, err = d.NewBuffer(768<<10, wgpu.UsageStorage)
	require.ErrorIs(t, err, wgpu.ErrOutOfMemory)
	require.Contains(t, err.Error(), "memory history written to "+oomPath)

	f, err := os.Open(oomPath)
	require.NoError(t, err)
	defer f.Close()
	h, err := wgpu.ReadHistory(f)
	require.NoError(t, err)
	require.Equal(t, "out of memory", h.Reason)
	var kinds []string
	for _, e := range h.Events {
		kinds = append(kinds, e.Kind.String())
	}
	require.Equal(t, []string{"alloc", "alloc", "release", "limit", "oom_retry", "trim", "return", "oom"}, kinds)
	require.Equal(t, uint64(1<<20), h.Events[3].Bytes)
	require.Equal(t, uint64(768<<10), h.Events[7].Bytes)
	require.Equal(t, "memory limit", h.Labels[h.Events[7].Label])
}

func TestHistoryOfAClosedDeviceEndsWithItsClose(t *testing.T) {
	d := testgpu.OpenUnchecked(t, testgpu.DefaultOptions())
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{}))
	b, err := d.NewBuffer(4096, wgpu.UsageStorage)
	require.NoError(t, err)
	require.NoError(t, b.Release())
	_, err = d.NewBuffer(4096, wgpu.UsageStorage) // the same memory, reused; leaked, and reported by Close
	require.NoError(t, err)
	require.ErrorIs(t, d.Close(), wgpu.ErrLeaked)
	h, err := d.History()
	require.NoError(t, err)
	require.Equal(t, wgpu.EventClose, h.Events[len(h.Events)-1].Kind)
	tot, err := h.Replay(nil)
	require.NoError(t, err)
	require.Equal(t, uint64(4096), tot.ReturnedBytes)
	require.NoError(t, h.Check())
	require.False(t, d.Recording())
}

func TestHistoryDumpOnDeviceLoss(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lost.json")
	d := testgpu.OpenUnchecked(t, testgpu.DefaultOptions())
	defer d.Close()
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{OnLoss: path}))
	b, err := d.NewBuffer(4096, wgpu.UsageStorage)
	require.NoError(t, err)
	d.InjectLoss("planted loss")
	require.NoError(t, b.Release())
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	h, err := wgpu.ReadHistory(f)
	require.NoError(t, err)
	last := h.Events[len(h.Events)-1]
	require.Equal(t, wgpu.EventLost, last.Kind)
	require.Equal(t, "planted loss", h.Labels[last.Label])
}

func TestReadHistoryRefusesBadDumps(t *testing.T) {
	d := testgpu.Open(t)
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{}))
	b, err := d.NewBuffer(4096, wgpu.UsageStorage)
	require.NoError(t, err)
	b.Describe(7, wgpu.BufferTag{Category: "user", Shape: "<script>alert(1)</script>"})
	require.NoError(t, b.Release())
	h, err := d.History()
	require.NoError(t, err)
	var buf bytes.Buffer
	_, err = h.WriteTo(&buf)
	require.NoError(t, err)
	good := buf.String()
	require.NotContains(t, good, "<script>", "strings are escaped in the dump")

	for name, c := range map[string]struct {
		dump, want string
	}{
		"truncated": {good[:len(good)/2], "truncated"},
		"empty":     {"", "truncated"},
		"not json":  {"hello", "not JSON"},
		"other":     {`{"format":"something else","version":1}`, "not a memory history"},
		"newer":     {strings.Replace(good, `"version":1`, `"version":2`, 1), "newer wgtensor"},
		"edited":    {strings.Replace(good, `"category":"user"`, `"category":"usr"`, 1), "checksum"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := wgpu.ReadHistory(strings.NewReader(c.dump))
			require.ErrorIs(t, err, wgpu.ErrInvalidArgument)
			require.ErrorContains(t, err, c.want)
		})
	}

	// A consistent checksum over inconsistent events: a release that
	// follows no hand-out.
	h.Events = h.Events[1:]
	buf.Reset()
	_, err = h.WriteTo(&buf)
	require.NoError(t, err)
	_, err = wgpu.ReadHistory(&buf)
	require.ErrorContains(t, err, "released while not live")
}

func TestHistoryIsOffByDefaultAndNeedsRecording(t *testing.T) {
	d := testgpu.Open(t)
	require.False(t, d.Recording())
	_, err := d.History()
	require.ErrorIs(t, err, wgpu.ErrInvalidArgument)
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{}))
	require.True(t, d.Recording())
	d.StopHistory()
	require.False(t, d.Recording())
	b, err := d.NewBuffer(64, wgpu.UsageStorage) // not recorded
	require.NoError(t, err)
	require.NoError(t, b.Release())
	h, err := d.History()
	require.NoError(t, err)
	require.Empty(t, h.Events)
	require.NoError(t, h.Check(), "the figures are the stop's")
	require.Error(t, d.RecordHistory(wgpu.HistoryOptions{Events: -1}))
}

func BenchmarkNewBufferRelease(b *testing.B) {
	for _, rec := range []bool{false, true} {
		name := "history=off"
		if rec {
			name = "history=on"
		}
		b.Run(name, func(b *testing.B) {
			d := testgpu.Open(b)
			if rec {
				require.NoError(b, d.RecordHistory(wgpu.HistoryOptions{Events: 1 << 16}))
			}
			for b.Loop() {
				buf, err := d.NewBuffer(4096, wgpu.UsageStorage)
				if err != nil {
					b.Fatal(err)
				}
				buf.Describe(1, wgpu.BufferTag{Category: "activation", DType: "float32", Shape: "[1024]"})
				buf.Release()
			}
		})
	}
}

func TestHistoryOfAMillionEventsRoundTrips(t *testing.T) {
	if testing.Short() {
		t.Skip("records a million events")
	}
	d := testgpu.Open(t)
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{Events: 1 << 20}))
	var held []*wgpu.Buffer
	for i := range 1 << 19 {
		b, err := d.NewBuffer(uint64(256*(1+i%64)), wgpu.UsageStorage)
		require.NoError(t, err)
		b.Describe(uint64(i), wgpu.BufferTag{Category: "activation", DType: "float32", Shape: "[64]"})
		held = append(held, b)
		if len(held) == 32 {
			for _, b := range held {
				require.NoError(t, b.Release())
			}
			held = held[:0]
		}
	}
	for _, b := range held {
		require.NoError(t, b.Release())
	}
	start := time.Now()
	h, err := d.History()
	require.NoError(t, err)
	var buf bytes.Buffer
	_, err = h.WriteTo(&buf)
	require.NoError(t, err)
	written := time.Since(start)
	start = time.Now()
	back, err := wgpu.ReadHistory(&buf)
	require.NoError(t, err)
	t.Logf("%d events (%d dropped): %.1f MB written in %v, read and checked in %v", len(h.Events), h.Dropped, float64(buf.Cap())/1e6, written, time.Since(start))
	require.Equal(t, len(h.Events), len(back.Events))
}

// plantLeak hands out a buffer nobody releases until the end.
func plantLeak(t *testing.T, d *wgpu.Device, leaked *[]*wgpu.Buffer) {
	b, err := d.NewBuffer(8192, wgpu.UsageStorage) // the leak's line
	require.NoError(t, err)
	*leaked = append(*leaked, b)
}

// Growth between two marks of a loop names the line that leaks, first.
func TestHistoryGrowthFindsAPlantedLeak(t *testing.T) {
	d := testgpu.Open(t)
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{}))
	var leaked []*wgpu.Buffer
	defer func() {
		for _, b := range leaked {
			b.Release()
		}
	}()
	for step := range 10 {
		d.MarkHistory("step")
		tmp, err := d.NewBuffer(65536, wgpu.UsageStorage) // freed each step: no growth
		require.NoError(t, err)
		plantLeak(t, d, &leaked)
		require.NoError(t, tmp.Release())
		_ = step
	}
	h, err := d.History()
	require.NoError(t, err)
	marks := h.Marks("step")
	require.Len(t, marks, 10)
	g, err := h.Growth(marks[2], marks[9])
	require.NoError(t, err)
	require.Len(t, g, 1)
	require.Equal(t, 7, g[0].Buffers)
	require.Equal(t, uint64(7*8192), g[0].Bytes)
	require.Contains(t, g[0].Site, "wgpu/history_test.go:")
	require.Contains(t, g[0].Site, "plantLeak")
	_, err = h.Growth(marks[9], marks[2])
	require.Error(t, err)
	require.Equal(t, "unknown", wgpu.HistorySite{}.String())
}

// HistoryOptions.Events and DefaultHistoryEvents give an event's host
// memory: keep them true.
func TestHistoryEventIsTheSizeItsDocSays(t *testing.T) {
	require.Equal(t, uintptr(56), unsafe.Sizeof(wgpu.HistoryEvent{}))
}
