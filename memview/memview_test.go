package memview_test

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/callsite"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/memview"
	"github.com/wgtensor/wgtensor/wgpu"
)

// xss is a string user code might put in a label or a tag; the page must
// show it as text.
const xss = `<img src=x onerror=alert(1)>`

// workload is a history recorded on a real device as a training loop
// would make it, with what each view must find in it.
type workload struct {
	h        *wgpu.History
	leakLine string // the planted leak's "memview/file.go:line"
}

// leakyStep is the planted leak: every step it allocates a buffer that it
// keeps, so that only the test's cleanup releases them.
func leakyStep(t *testing.T, d *wgpu.Device, kept *[]*wgpu.Buffer) string {
	t.Helper()
	_, file, line, _ := runtime.Caller(0)
	b, err := d.NewBuffer(64<<10, wgpu.UsageStorage) // the leak's line: line+1
	require.NoError(t, err)
	b.Describe(0, wgpu.BufferTag{Category: "activation", DType: "float32", Shape: "[64 256]", Scope: "model/cache"})
	*kept = append(*kept, b)
	return fmt.Sprintf("%s/%s:%d", filepath.Base(filepath.Dir(file)), filepath.Base(file), line+1)
}

// record runs the workload on d: parameters kept throughout, activations,
// gradients and staging made and released every step, the planted leak,
// a buffer kept from step 5 on, a trim, marks "step 1" to "step 10", a
// mark and a tag that try to inject HTML, and an out-of-memory error
// under a memory limit. Everything is released before it returns.
func record(t *testing.T, d *wgpu.Device) workload {
	t.Helper()
	var w workload
	var kept []*wgpu.Buffer
	defer func() {
		for _, b := range kept {
			require.NoError(t, b.Release())
		}
	}()
	newBuf := func(n uint64, u wgpu.Usage, tensor uint64, tag wgpu.BufferTag) *wgpu.Buffer {
		t.Helper()
		b, err := d.NewBuffer(n, u)
		require.NoError(t, err)
		if tag != (wgpu.BufferTag{}) {
			b.Describe(tensor, tag)
		}
		return b
	}
	before := newBuf(8<<10, wgpu.UsageStorage, 0, wgpu.BufferTag{}) // live before recording: in the base
	kept = append(kept, before)
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{}))
	for i := range 2 {
		kept = append(kept, newBuf(256<<10, wgpu.UsageStorage, uint64(1+i), wgpu.BufferTag{Category: "parameter", DType: "float32", Shape: "[256 256]", Scope: "model/linear"}))
	}
	kept = append(kept, newBuf(4<<10, wgpu.UsageStorage, 3, wgpu.BufferTag{Category: xss, DType: "u8", Shape: "<script>alert(1)</script>", Scope: "a&b"}))
	for step := 1; step <= 10; step++ {
		act := newBuf(128<<10, wgpu.UsageStorage, uint64(10*step), wgpu.BufferTag{Category: "activation", DType: "float32", Shape: "[128 256]", Scope: "model/step"})
		grad := newBuf(32<<10, wgpu.UsageStorage, uint64(10*step+1), wgpu.BufferTag{Category: "gradient", DType: "float32", Shape: "[32 256]"})
		w.leakLine = leakyStep(t, d, &kept)
		rb := newBuf(4096, wgpu.UsageReadback, 0, wgpu.BufferTag{})
		un := newBuf(256, wgpu.UsageUniform, 0, wgpu.BufferTag{})
		scratch := newBuf(1000, wgpu.UsageStorage, 0, wgpu.BufferTag{})
		for _, b := range []*wgpu.Buffer{act, grad, rb, un, scratch} {
			require.NoError(t, b.Release())
		}
		if step == 5 {
			// Kept from here on, and described after another buffer came:
			// an EventTag of its own.
			stats, err := d.NewBuffer(16<<10, wgpu.UsageStorage)
			require.NoError(t, err)
			kept = append(kept, stats)
			kept = append(kept, newBuf(512, wgpu.UsageUniform, 0, wgpu.BufferTag{}))
			stats.Describe(99, wgpu.BufferTag{Category: "buffer", DType: "float32", Shape: "[4096]", Scope: "model/norm"})
		}
		d.MarkHistory(fmt.Sprintf("step %d", step))
		if step == 6 {
			require.NoError(t, d.Pool().Trim())
		}
	}
	d.MarkHistory(xss)
	// An out-of-memory error: past a limit that leaves 64 KiB.
	d.Pool().SetMemoryLimit(d.Pool().Stats().LiveBytes + 64<<10)
	_, err := d.NewBuffer(1<<20, wgpu.UsageStorage)
	require.ErrorIs(t, err, wgpu.ErrOutOfMemory)
	d.Pool().SetMemoryLimit(0)
	d.MarkHistory("end")
	w.h, err = d.History()
	require.NoError(t, err)
	return w
}

// expect computes the figures a view must show from the history's events,
// in Go and apart from the page's script.
type expect struct{ h *wgpu.History }

type catTotal struct {
	Category string `json:"category"`
	Buffers  int    `json:"buffers"`
	Bytes    uint64 `json:"bytes"`
}

type liveBuf struct {
	bytes  uint64
	usage  wgpu.Usage
	site   int32
	tag    int32
	handed int // the event that handed it out; -1 for the base
}

// mark returns the index of the first mark labelled label.
func (x expect) mark(t *testing.T, label string) int {
	t.Helper()
	for i, e := range x.h.Events {
		if e.Kind == wgpu.EventMark && x.h.Labels[e.Label] == label {
			return i
		}
	}
	t.Fatalf("no mark %q", label)
	return 0
}

// live returns the buffers live after event i (-1: the base).
func (x expect) live(i int) map[uint64]liveBuf {
	live := map[uint64]liveBuf{}
	for _, b := range x.h.Base.Live {
		live[b.Buffer] = liveBuf{bytes: b.Bytes, usage: b.Usage, site: b.Site, tag: b.Tag, handed: -1}
	}
	for j, e := range x.h.Events[:i+1] {
		switch e.Kind {
		case wgpu.EventAlloc, wgpu.EventReuse:
			live[e.Buffer] = liveBuf{bytes: e.Bytes, usage: e.Usage, site: e.Site, tag: e.Tag, handed: j}
		case wgpu.EventRelease, wgpu.EventFree:
			delete(live, e.Buffer)
		case wgpu.EventTag:
			b := live[e.Buffer]
			b.tag = e.Tag
			live[e.Buffer] = b
		case wgpu.EventClose:
			clear(live)
		}
	}
	return live
}

// category is a buffer's category: its tag's, else its usage's.
func (x expect) category(b liveBuf) string {
	if b.tag >= 0 && x.h.Tags[b.tag].Category != "" {
		return x.h.Tags[b.tag].Category
	}
	switch b.usage {
	case wgpu.UsageReadback, wgpu.UsageUpload:
		return "staging"
	case wgpu.UsageUniform:
		return "scratch"
	}
	return "user"
}

// categories returns the totals per category after event i, largest
// first, as the page orders them.
func (x expect) categories(i int) []catTotal {
	m := map[string]*catTotal{}
	for _, b := range x.live(i) {
		c := x.category(b)
		if m[c] == nil {
			m[c] = &catTotal{Category: c}
		}
		m[c].Buffers++
		m[c].Bytes += b.bytes
	}
	var out []catTotal
	for _, v := range m {
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b catTotal) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Category, b.Category))
	})
	return out
}

// totals returns History.Replay's totals after event i.
func (x expect) totals(t *testing.T, i int) wgpu.HistoryTotals {
	t.Helper()
	if i < 0 {
		return x.h.Base.Totals
	}
	var at wgpu.HistoryTotals
	_, err := x.h.Replay(func(j int, tot wgpu.HistoryTotals) {
		if j == i {
			at = tot
		}
	})
	require.NoError(t, err)
	return at
}

type diffRow struct {
	Site    string `json:"site"`
	Buffers int    `json:"buffers"`
	Bytes   uint64 `json:"bytes"`
}

// diff returns, by the user's line, how much more is live after event b
// than after event a, where the bytes are more, as the page computes it,
// and checks that wgpu's History.Growth says the same.
func (x expect) diff(a, b int) []diffRow {
	m := map[string]*diffRow{}
	bytes := map[string]int64{}
	count := func(i, sign int) {
		for _, buf := range x.live(i) {
			site := x.siteName(buf.site)
			if m[site] == nil {
				m[site] = &diffRow{Site: site}
			}
			m[site].Buffers += sign
			bytes[site] += int64(sign) * int64(buf.bytes)
		}
	}
	count(b, 1)
	count(a, -1)
	var out []diffRow
	for site, v := range m {
		if bytes[site] > 0 {
			v.Bytes = uint64(bytes[site])
			out = append(out, *v)
		}
	}
	slices.SortFunc(out, func(a, b diffRow) int { return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Site, b.Site)) })
	growth, err := x.h.Growth(a, b)
	if err != nil {
		panic(err)
	}
	if len(growth) != len(out) {
		panic(fmt.Sprintf("History.Growth has %d lines, the test's replay %d", len(growth), len(out)))
	}
	for i, g := range growth {
		if g.Site != out[i].Site || g.Buffers != out[i].Buffers || g.Bytes != out[i].Bytes {
			panic(fmt.Sprintf("History.Growth's line %d is %+v, the test's replay %+v", i, g, out[i]))
		}
	}
	return out
}

// siteName is a site's user frame as "dir/file.go:line (pkg.Func)".
func (x expect) siteName(s int32) string {
	if s < 0 || len(x.h.Sites[s].Frames) == 0 {
		return "unknown"
	}
	f := x.h.Sites[s].Frames[x.h.Sites[s].User]
	return fmt.Sprintf("%s/%s:%d (%s)", filepath.Base(filepath.Dir(f.File)), filepath.Base(f.File), f.Line, callsite.FuncName(f.Func))
}

func TestWorkloadHistoryHasWhatTheViewsNeed(t *testing.T) {
	d := testgpu.Open(t)
	w := record(t, d)
	x := expect{w.h}
	kinds := map[wgpu.EventKind]int{}
	for _, e := range w.h.Events {
		kinds[e.Kind]++
	}
	for _, k := range []wgpu.EventKind{wgpu.EventAlloc, wgpu.EventReuse, wgpu.EventRelease, wgpu.EventTrim, wgpu.EventReturn,
		wgpu.EventTag, wgpu.EventMark, wgpu.EventLimit, wgpu.EventOOMRetry, wgpu.EventOOM} {
		require.NotZero(t, kinds[k], "no %s event", k)
	}
	require.Equal(t, 1, w.h.Base.Totals.LiveBuffers)
	rows := x.diff(x.mark(t, "step 3"), x.mark(t, "step 9"))
	require.Equal(t, diffRow{Site: w.leakLine + " (memview_test.leakyStep)", Buffers: 6, Bytes: 6 * 64 << 10}, rows[0])
	require.Len(t, rows, 3, "the leak, the buffer kept from step 5 and its uniform: %v", rows)
}

func TestRenderRefusesBadDumps(t *testing.T) {
	d := testgpu.Open(t)
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{}))
	b, err := d.NewBuffer(4096, wgpu.UsageStorage)
	require.NoError(t, err)
	b.Describe(7, wgpu.BufferTag{Category: "user"})
	require.NoError(t, b.Release())
	h, err := d.History()
	require.NoError(t, err)
	var dump bytes.Buffer
	_, err = h.WriteTo(&dump)
	require.NoError(t, err)
	good := dump.String()

	var page bytes.Buffer
	require.NoError(t, memview.Render(&page, strings.NewReader(good)))
	require.Contains(t, page.String(), `id="memview-data"`)

	for name, c := range map[string]struct{ dump, want string }{
		"truncated": {good[:len(good)*2/3], "truncated"},
		"empty":     {"", "truncated"},
		"not json":  {"<html>", "not JSON"},
		"newer":     {strings.Replace(good, `"version":1`, `"version":2`, 1), "newer wgtensor"},
		"edited":    {strings.Replace(good, `"category":"user"`, `"category":"gradient"`, 1), "checksum"},
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			err := memview.Render(&out, strings.NewReader(c.dump))
			require.ErrorIs(t, err, wgpu.ErrInvalidArgument)
			require.ErrorContains(t, err, c.want)
			require.Zero(t, out.Len(), "nothing written for a bad dump")
		})
	}
}

func TestWriteRefusesAnInconsistentHistory(t *testing.T) {
	d := testgpu.Open(t)
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{}))
	b, err := d.NewBuffer(4096, wgpu.UsageStorage)
	require.NoError(t, err)
	require.NoError(t, b.Release())
	h, err := d.History()
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, memview.Write(&out, h))

	released := *h
	released.Events = h.Events[1:] // a release of nothing handed out
	require.ErrorContains(t, memview.Write(&out, &released), "released while not live")
	badSite := *h
	badSite.Events = slices.Clone(h.Events)
	badSite.Events[0].Site = int32(len(h.Sites))
	require.ErrorContains(t, memview.Write(&out, &badSite), "out of range")
	require.Error(t, memview.Write(&out, nil))
}

func TestPageEscapesStringsAndFetchesNothing(t *testing.T) {
	d := testgpu.Open(t)
	w := record(t, d)
	var out bytes.Buffer
	require.NoError(t, memview.Write(&out, w.h))
	page := out.String()

	// The data: strings from user code, with <, > and & escaped, so that
	// none of them can end the script element or open another.
	require.NotContains(t, page, "<img")
	require.NotContains(t, page, "alert(1)</script>")
	require.Contains(t, page, `\u003cimg src=x onerror=alert(1)\u003e`)
	require.Contains(t, page, `a\u0026b`)
	require.Equal(t, 2, strings.Count(page, "<script"), "the data and the script, no other")
	require.Equal(t, 2, strings.Count(page, "</script>"))
	require.Equal(t, 1, strings.Count(page, "</style>"))
	open := `<script type="application/json" id="memview-data">`
	start := strings.Index(page, open) + len(open)
	end := start + strings.Index(page[start:], "</script>")
	data, rest := page[start:end], page[:start]+page[end:]
	require.NotContains(t, data, "<")
	require.NotContains(t, data, ">")

	// Nothing fetched: no URL, no external source, no import, no link.
	for _, bad := range []string{"http://", "https://", "@import", "<link", "url(", "<iframe", "<object", "<embed", "fetch(", "XMLHttpRequest", "import("} {
		require.NotContains(t, page, bad)
	}
	// Outside the data (where the xss string's "src=" is JSON text), no
	// attribute names a source.
	for _, m := range regexp.MustCompile(`(?i)\b(src|href|action|srcset)\s*=`).FindAllString(rest, -1) {
		require.Failf(t, "an attribute names a source", "%s", m)
	}
	// The page's script never turns data into HTML.
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
		require.NotContains(t, rest, bad)
	}
}

func TestWriteFileReplacesThePageWhole(t *testing.T) {
	d := testgpu.Open(t)
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{}))
	d.MarkHistory("only a mark")
	h, err := d.History()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "memory.html")
	require.NoError(t, os.WriteFile(path, []byte("old and longer than nothing"), 0o644))
	require.NoError(t, memview.WriteFile(path, h))
	page, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(page), "<!DOCTYPE html>"))
	require.Contains(t, string(page), "only a mark")
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left behind")

	require.Error(t, memview.WriteFile(filepath.Join(t.TempDir(), "no", "such", "dir.html"), h))
}
