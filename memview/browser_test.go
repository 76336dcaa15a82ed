package memview_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/bytesize"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/memview"
	"github.com/wgtensor/wgtensor/wgpu"
)

// browserTimeout bounds everything a test does in the browser.
const browserTimeout = 3 * time.Minute

// tab is a page open in headless Chromium, closed with its test.
type tab struct {
	t   *testing.T
	ctx context.Context

	mu       sync.Mutex
	problems []string // exceptions thrown, dialogs opened
}

// openPage writes h's viewer page into the test's directory, opens it as
// file:// in a headless Chromium (skipping where there is none, see
// testgpu.Browser) and waits until the page says it is ready.
func openPage(t *testing.T, h *wgpu.History) (*tab, string) {
	t.Helper()
	return openPageAt(t, h, "")
}

// openPageAt is openPage with fragment ("#diff=...") after the page's URL.
func openPageAt(t *testing.T, h *wgpu.History, fragment string) (*tab, string) {
	t.Helper()
	exe := testgpu.Browser(t)
	path := filepath.Join(t.TempDir(), "memory.html")
	require.NoError(t, memview.WriteFile(path, h))

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox, // Chromium refuses to run as root with its sandbox
		chromedp.DisableGPU,
		chromedp.WindowSize(1400, 2000), // tall enough for the whole page of a small history
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, browserTimeout)
	// Cancelling the browser's context closes the browser; cancelling the
	// allocator's kills what is left of it and waits for it.
	t.Cleanup(func() {
		cancelTimeout()
		cancelBrowser()
		cancelAlloc()
	})
	tb := &tab{t: t, ctx: ctx}
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *cdpruntime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			tb.problem(fmt.Sprintf("exception at %d:%d: %s", d.LineNumber+1, d.ColumnNumber+1, msg))
		case *page.EventJavascriptDialogOpening:
			tb.problem("a dialog opened: " + ev.Message)
		}
	}))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+path+fragment)))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool]("window.memview !== undefined && window.memview.ready === true"))
	tb.check()
	require.NoError(t, err, "the page never became ready")
	return tb, path
}

func (tb *tab) problem(s string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.problems = append(tb.problems, s)
}

// check fails the test on any exception thrown or dialog opened so far.
func (tb *tab) check() {
	tb.t.Helper()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	require.Empty(tb.t, tb.problems, "the page misbehaved")
}

// eval evaluates expr in the page and decodes its JSON value into out.
func (tb *tab) eval(expr string, out any) {
	tb.t.Helper()
	raw, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]byte](expr))
	require.NoError(tb.t, err, "evaluating %s", expr)
	require.NoError(tb.t, json.Unmarshal(raw, out), "decoding %s", raw)
}

// rows returns the cells' text of a table body's rows.
func (tb *tab) rows(selector string) [][]string {
	tb.t.Helper()
	var out [][]string
	tb.eval(fmt.Sprintf(`[...document.querySelectorAll(%q)].map((tr) => [...tr.cells].map((td) => td.textContent))`, selector+" tbody tr"), &out)
	return out
}

// screenshot saves the window as a PNG into the test's directory and,
// when WGT_MEMVIEW_SCREENSHOT names a file, there too (the README's). It
// takes the window as it is, with the mouse's tooltip: a screenshot of
// the full page would resize the window first.
func (tb *tab) screenshot() {
	tb.t.Helper()
	png, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	require.NoError(tb.t, err)
	require.True(tb.t, strings.HasPrefix(string(png), "\x89PNG"), "a PNG")
	require.NoError(tb.t, os.WriteFile(filepath.Join(tb.t.TempDir(), "memview.png"), png, 0o644))
	if path := os.Getenv("WGT_MEMVIEW_SCREENSHOT"); path != "" {
		require.NoError(tb.t, os.WriteFile(path, png, 0o644))
		tb.t.Logf("screenshot written to %s", path)
	}
}

type pageTotals struct {
	LiveBuffers   int    `json:"liveBuffers"`
	LiveBytes     uint64 `json:"liveBytes"`
	PooledBuffers int    `json:"pooledBuffers"`
	PooledBytes   uint64 `json:"pooledBytes"`
	ReturnedBytes uint64 `json:"returnedBytes"`
	ReservedBytes uint64 `json:"reservedBytes"`
}

func TestViewerInChromium(t *testing.T) {
	d := testgpu.Open(t)
	w := record(t, d)
	x := expect{w.h}
	tb, _ := openPage(t, w.h)
	step3, step9 := x.mark(t, "step 3"), x.mark(t, "step 9")
	n := len(w.h.Events)

	t.Run("totals equal the replay's at every event", func(t *testing.T) {
		for i := -1; i < n; i++ {
			want := x.totals(t, i)
			var got pageTotals
			tb.eval(fmt.Sprintf("memview.totalsAt(%d)", i), &got)
			require.Equal(t, pageTotals{want.LiveBuffers, want.LiveBytes, want.PooledBuffers, want.PooledBytes, want.ReturnedBytes, want.ReservedBytes()}, got, "after event %d", i)
		}
		for _, i := range []int{-1, step3, step9, n - 1} {
			var got []catTotal
			tb.eval(fmt.Sprintf("memview.categoriesAt(%d)", i), &got)
			require.Equal(t, x.categories(i), got, "categories after event %d", i)
		}
	})

	t.Run("a marker shows its instant", func(t *testing.T) {
		tb.eval(fmt.Sprintf(`document.querySelector('.marker[data-event="%d"]').click(), true`, step9), new(bool))
		var when string
		tb.eval(`document.getElementById("instant-when").textContent`, &when)
		require.Contains(t, when, "step 9")

		want := x.categories(step9)
		require.GreaterOrEqual(t, len(want), 4, "parameters, activations, the xss category, user, scratch...")
		var got []catTotal
		for _, r := range tb.rows("#categories") {
			var c catTotal
			c.Category = r[0]
			fmt.Sscan(strings.ReplaceAll(r[1], ",", ""), &c.Buffers)
			require.Len(t, r, 3)
			got = append(got, c)
			require.Equal(t, bytesize.Format(want[len(got)-1].Bytes), r[2], "the bytes shown for %s", r[0])
		}
		var exact []uint64
		tb.eval(`[...document.querySelectorAll("#categories tbody td[data-bytes]")].map((td) => +td.dataset.bytes)`, &exact)
		for i := range got {
			got[i].Bytes = exact[i]
		}
		require.Equal(t, want, got)

		live := x.live(step9)
		require.Len(t, tb.rows("#buffers"), len(live), "one row per live buffer")
		var live0 struct {
			LiveBytes string `json:"live"`
		}
		tb.eval(`({live: document.getElementById("instant-live").dataset.bytes})`, &live0)
		require.Equal(t, fmt.Sprint(x.totals(t, step9).LiveBytes), live0.LiveBytes)
	})

	t.Run("the buffer table sorts", func(t *testing.T) {
		sorted := func(key string) []uint64 {
			t.Helper()
			var v []uint64
			tb.eval(fmt.Sprintf(`document.querySelector('#buffers th[data-key="%s"]').click(),
				[...document.querySelectorAll("#buffers tbody tr")].map((tr) => +tr.cells[1].dataset.bytes)`, key), &v)
			require.Greater(t, len(v), 2)
			return v
		}
		// Bytes: largest first at the start, so smallest first after a
		// click, and largest first again after another.
		require.True(t, slices.IsSorted(sorted("bytes")))
		desc := sorted("bytes")
		require.True(t, slices.IsSortedFunc(desc, func(a, b uint64) int { return cmp.Compare(b, a) }), "%v", desc)
		var ids []int
		tb.eval(`document.querySelector('#buffers th[data-key="buffer"]').click(),
			[...document.querySelectorAll("#buffers tbody tr")].map((tr) => +tr.dataset.buffer)`, &ids)
		require.True(t, slices.IsSortedFunc(ids, func(a, b int) int { return cmp.Compare(b, a) }), "numbers sort largest first: %v", ids)
		tb.eval(`document.querySelector('#buffers th[data-key="bytes"]').click(), true`, new(bool))
	})

	t.Run("the diff of two marks names the planted leak first", func(t *testing.T) {
		tb.eval(fmt.Sprintf(`(() => {
			const from = document.getElementById("diff-from"), to = document.getElementById("diff-to");
			from.value = "%d"; from.dispatchEvent(new Event("change"));
			to.value = "%d"; to.dispatchEvent(new Event("change"));
			return true;
		})()`, step3, step9), new(bool))
		want := x.diff(step3, step9)
		rows := tb.rows("#diff-sites")
		require.Len(t, rows, len(want))
		require.Contains(t, rows[0][0], w.leakLine, "the top row is the leak's line")
		require.Contains(t, rows[0][0], "memview_test.leakyStep")
		for i, r := range rows {
			require.Equal(t, want[i].Site, r[0])
			require.Equal(t, fmt.Sprint(want[i].Buffers), r[1])
			require.Equal(t, bytesize.Format(want[i].Bytes), r[2])
		}
		var api []diffRow
		tb.eval(`memview.diff("step 3", "step 9")`, &api)
		require.Equal(t, want, api)
		var summary string
		tb.eval(`document.getElementById("diff-summary").textContent`, &summary)
		require.Contains(t, summary, "step 3")
		require.Contains(t, summary, "step 9")
	})

	t.Run("the diff of two clicks", func(t *testing.T) {
		// In event order every event of this short history has columns of
		// its own, so a click at an event's place picks that very event.
		tb.eval(`document.querySelector('input[name="axis"][value="events"]').click(), true`, new(bool))
		defer tb.eval(`document.querySelector('input[name="axis"][value="time"]').click(), true`, new(bool))
		click := func(mark string, mods ...chromedp.Modifier) {
			t.Helper()
			var at struct{ X, Y float64 }
			tb.eval(fmt.Sprintf(`memview.point(%q, 0)`, mark), &at)
			_, err := chromedp.Run(tb.ctx, chromedp.MouseClickXY(at.X, at.Y-5, chromedp.ButtonModifiers(mods...)))
			require.NoError(t, err)
		}
		click("step 2", chromedp.ModifierShift) // from
		click("step 8")                         // the instant, and to
		var got struct {
			From, To int
			When     string
		}
		tb.eval(`({from: +document.getElementById("diff-from").value, to: +document.getElementById("diff-to").value,
			when: document.getElementById("instant-when").textContent})`, &got)
		require.Equal(t, x.mark(t, "step 2"), got.From)
		require.Equal(t, x.mark(t, "step 8"), got.To)
		require.Contains(t, got.When, "step 8")
		want := x.diff(got.From, got.To)
		rows := tb.rows("#diff-sites")
		require.Len(t, rows, len(want))
		require.Equal(t, w.leakLine+" (memview_test.leakyStep)", rows[0][0])
		require.Equal(t, bytesize.Format(6*64<<10), rows[0][2])
	})

	t.Run("markers and legends", func(t *testing.T) {
		var kinds map[string]int
		tb.eval(`[...document.querySelectorAll("#markers .marker")].reduce((m, e) => (m[e.dataset.kind] = (m[e.dataset.kind] || 0) + 1, m), {})`, &kinds)
		require.Equal(t, 1, kinds["oom"], "the OOM marker")
		require.Equal(t, 12, kinds["mark"])
		require.Equal(t, 2, kinds["limit"], "set and unset")
		require.Equal(t, 2, kinds["trim"], "Trim and the OOM retry's")
		require.Equal(t, 1, kinds["oom_retry"])
		var oomTitle string
		tb.eval(`document.querySelector(".marker-oom").title`, &oomTitle)
		require.Contains(t, oomTitle, "out of memory: 1.00 MiB asked (memory limit)")

		var legend []string
		tb.eval(`[...document.querySelectorAll("#legend-live .item")].map((e) => e.textContent)`, &legend)
		require.Subset(t, legend, []string{"parameter", "activation", "gradient", "buffer", "staging", "scratch", "user", xss})
		var markerLegend string
		tb.eval(`document.getElementById("legend-markers").textContent`, &markerLegend)
		require.Contains(t, markerLegend, "out of memory (1)")
		var pool string
		tb.eval(`document.getElementById("legend-pool").textContent`, &pool)
		require.Contains(t, pool, "reserved")
		require.Contains(t, pool, "given back to the driver")

		var facts map[string]string
		tb.eval(`Object.fromEntries([...document.querySelectorAll("#facts dd[id]")].map((e) => [e.id, e.textContent]))`, &facts)
		require.Equal(t, "requested", facts["fact-reason"])
		require.Equal(t, fmt.Sprintf("%d (ring of %d)", n, wgpu.DefaultHistoryEvents), strings.ReplaceAll(facts["fact-events"], ",", ""))
		require.Equal(t, "0", facts["fact-dropped"])
	})

	t.Run("strings from user code are text", func(t *testing.T) {
		var got struct {
			Imgs, Scripts int
			Option        bool
			Legend        string
			Body          string
		}
		tb.eval(fmt.Sprintf(`({
			imgs: document.querySelectorAll("img").length,
			scripts: document.querySelectorAll("script").length,
			option: [...document.querySelectorAll("#diff-from option")].some((o) => o.textContent.includes(%q)),
			legend: document.querySelector("#legend-live .item[data-category^='<img']").textContent,
			body: document.body.innerText,
		})`, xss), &got)
		require.Zero(t, got.Imgs, "no element injected")
		require.Equal(t, 2, got.Scripts)
		require.True(t, got.Option, "the mark's label is an option's text")
		require.Equal(t, xss, got.Legend)
		require.Contains(t, got.Body, xss)
		tb.check()
	})

	t.Run("a click on the chart picks an instant", func(t *testing.T) {
		var box struct{ X, Y, W, H float64 }
		tb.eval(`(() => { const r = document.getElementById("chart-live").getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; })()`, &box)
		_, err := chromedp.Run(tb.ctx, chromedp.MouseClickXY(box.X+box.W-12.5, box.Y+box.H/2))
		require.NoError(t, err)
		var when string
		tb.eval(`document.getElementById("instant-when").textContent`, &when)
		require.Contains(t, strings.ReplaceAll(when, ",", ""), fmt.Sprintf("event %d of %d", n-1, n), "the right edge: the last event")
	})

	t.Run("hover names the allocating site", func(t *testing.T) {
		// The page as the README shows it: "step 9" against "step 3", and
		// the mouse in the middle of step 9's activations, which are the
		// leak's buffers. In event order, so that step 9's column shows
		// step 9 alone.
		var at struct{ X, Y float64 }
		tb.eval(`(() => {
			document.querySelector('input[name="axis"][value="events"]').click();
			memview.select("step 9");
			memview.compare("step 3", "step 9");
			const cats = memview.categoriesAt("step 9"), order = memview.categories();
			let below = 0;
			for (const name of order) {
				const c = cats.find((c) => c.category === name);
				if (!c) continue;
				if (name === "activation") return memview.point("step 9", below + c.bytes / 2);
				below += c.bytes;
			}
		})()`, &at)
		_, err := chromedp.Run(tb.ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at.X, at.Y))
		require.NoError(t, err)
		tip, err := chromedp.Run(tb.ctx, chromedp.Poll[string](`(() => { const t = document.getElementById("tip"); return !t.hidden && t.textContent; })()`))
		require.NoError(t, err)
		require.Contains(t, tip, "activation: 9 buffers, 576.00 KiB")
		require.Contains(t, tip, "allocated at "+w.leakLine+" (memview_test.leakyStep)")
		require.Contains(t, tip, "mark “step 9”")
	})

	tb.screenshot()
	tb.check()
}

func TestViewerSaysHowManyEventsWereDropped(t *testing.T) {
	d := testgpu.Open(t)
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{Events: 20}))
	var kept []*wgpu.Buffer
	for i := range 30 {
		b, err := d.NewBuffer(uint64(1+i)<<10, wgpu.UsageStorage)
		require.NoError(t, err)
		kept = append(kept, b)
		if i%2 == 1 {
			require.NoError(t, kept[i-1].Release())
		}
	}
	h, err := d.History()
	require.NoError(t, err)
	for i := 1; i < len(kept); i += 2 {
		require.NoError(t, kept[i].Release())
	}
	require.NotZero(t, h.Dropped)
	x := expect{h}
	tb, _ := openPage(t, h)

	var dropped string
	tb.eval(`(() => { const p = document.getElementById("dropped"); return p.hidden ? "" : p.textContent; })()`, &dropped)
	require.Contains(t, dropped, fmt.Sprintf("%d oldest events were dropped", h.Dropped))
	// The base is what the dropped events left: the page starts from it.
	for i := -1; i < len(h.Events); i++ {
		want := x.totals(t, i)
		var got pageTotals
		tb.eval(fmt.Sprintf("memview.totalsAt(%d)", i), &got)
		require.Equal(t, pageTotals{want.LiveBuffers, want.LiveBytes, want.PooledBuffers, want.PooledBytes, want.ReturnedBytes, want.ReservedBytes()}, got, "after event %d", i)
		var cats []catTotal
		tb.eval(fmt.Sprintf("memview.categoriesAt(%d)", i), &cats)
		require.Equal(t, x.categories(i), cats, "categories after event %d", i)
	}
	tb.check()
}

// million builds a history of at least n events from a real one: the
// steady part of a training loop recorded on d (two buffers handed out
// from the pool, released, a mark), repeated with fresh buffer IDs and
// later times, so that it replays as the original does.
func million(t *testing.T, d *wgpu.Device, n int) *wgpu.History {
	t.Helper()
	param, err := d.NewBuffer(1<<20, wgpu.UsageStorage)
	require.NoError(t, err)
	defer param.Release()
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{}))
	for step := range 3 {
		act, err := d.NewBuffer(256<<10, wgpu.UsageStorage)
		require.NoError(t, err)
		act.Describe(uint64(step), wgpu.BufferTag{Category: "activation", DType: "float32", Shape: "[256 256]"})
		rb, err := d.NewBuffer(4096, wgpu.UsageReadback)
		require.NoError(t, err)
		require.NoError(t, act.Release())
		require.NoError(t, rb.Release())
		d.MarkHistory(fmt.Sprintf("step %d", step))
	}
	h, err := d.History()
	require.NoError(t, err)

	// The last step is the pattern: reuse, reuse, release, release, mark.
	chunk := h.Events[len(h.Events)-5:]
	for i, k := range []wgpu.EventKind{wgpu.EventReuse, wgpu.EventReuse, wgpu.EventRelease, wgpu.EventRelease, wgpu.EventMark} {
		require.Equal(t, k, chunk[i].Kind, "the steady step's events")
	}
	var maxID uint64
	for _, e := range h.Events {
		maxID = max(maxID, e.Buffer)
	}
	dur := chunk[4].Time - h.Events[len(h.Events)-6].Time + time.Microsecond
	out := *h
	out.Events = slices.Clone(h.Events)
	out.Labels = slices.Clone(h.Labels)
	for k := 1; len(out.Events) < n; k++ {
		for _, e := range chunk {
			if e.Buffer != 0 {
				e.Buffer += uint64(k) * maxID
			}
			e.Time += time.Duration(k) * dur
			if e.Kind == wgpu.EventMark {
				e.Label = int32(len(out.Labels))
				out.Labels = append(out.Labels, fmt.Sprintf("step %d", 3+k))
			}
			out.Events = append(out.Events, e)
		}
	}
	out.Taken = out.Events[len(out.Events)-1].Time + time.Millisecond
	out.Capacity = len(out.Events)
	require.NoError(t, out.Check())
	return &out
}

// TestViewerRendersAMillionEvents opens a page of 10^6 events and logs how
// long it took to render. It asserts only a generous bound, 60 s, which a
// loaded 2-core machine meets many times over; -short skips it.
func TestViewerRendersAMillionEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a page of 10^6 events")
	}
	d := testgpu.Open(t)
	h := million(t, d, 1_000_000)
	start := time.Now()
	tb, path := openPage(t, h)
	took := time.Since(start)
	info, err := os.Stat(path)
	require.NoError(t, err)
	var script struct {
		Ms      float64        `json:"renderMs"`
		Timings map[string]int `json:"timings"`
	}
	tb.eval("({renderMs: memview.renderMs, timings: memview.timings})", &script)
	t.Logf("%d events, a page of %s: ready %v after it was written (the script took %.0f ms: %v)",
		len(h.Events), bytesize.Format(uint64(info.Size())), took.Round(time.Millisecond), script.Ms, script.Timings)
	require.Less(t, took, time.Minute)

	var got struct {
		Events  int `json:"events"`
		Markers int `json:"markers"`
		Options int `json:"options"`
	}
	tb.eval(`({events: memview.events, markers: document.querySelectorAll("#markers .marker").length, options: document.querySelectorAll("#diff-from option").length})`, &got)
	require.Equal(t, len(h.Events), got.Events)
	require.NotZero(t, got.Markers)
	require.LessOrEqual(t, got.Markers, 2000, "one marker per kind and pixel column past 2000")
	require.LessOrEqual(t, got.Options, 2003)
	x := expect{h}
	last := len(h.Events) - 1
	want := x.totals(t, last)
	var tot pageTotals
	tb.eval(fmt.Sprintf("memview.totalsAt(%d)", last), &tot)
	require.Equal(t, pageTotals{want.LiveBuffers, want.LiveBytes, want.PooledBuffers, want.PooledBytes, want.ReturnedBytes, want.ReservedBytes()}, tot)
	tb.check()
}

func TestViewerOfAnEmptyHistory(t *testing.T) {
	d := testgpu.Open(t)
	require.NoError(t, d.RecordHistory(wgpu.HistoryOptions{Events: 10}))
	h, err := d.History()
	require.NoError(t, err)
	require.Empty(t, h.Events)
	tb, _ := openPage(t, h)
	var got struct {
		Events  string `json:"events"`
		Rows    int    `json:"rows"`
		Options int    `json:"options"`
		Summary string `json:"summary"`
	}
	tb.eval(`({events: document.getElementById("fact-events").textContent, rows: document.querySelectorAll("#buffers tbody tr").length,
		options: document.querySelectorAll("#diff-to option").length, summary: document.getElementById("diff-summary").textContent})`, &got)
	require.Equal(t, "0 (ring of 10)", got.Events)
	require.Zero(t, got.Rows)
	require.Equal(t, 1, got.Options, "the start alone")
	require.Contains(t, got.Summary, "Nothing more is live")
	tb.check()
}

// A link after the page's # opens the diff of two marks and an instant.
func TestViewerOpensTheViewsALinkNames(t *testing.T) {
	d := testgpu.Open(t)
	w := record(t, d)
	x := expect{w.h}
	step3, step9 := x.mark(t, "step 3"), x.mark(t, "step 9")
	tb, _ := openPageAt(t, w.h, "#at=step%203&diff=step%203..step%209&bogus&diff=no%20such%20mark..2")
	var got struct {
		From, To int
		When     string
	}
	tb.eval(`({from: +document.getElementById("diff-from").value, to: +document.getElementById("diff-to").value,
		when: document.getElementById("instant-when").textContent})`, &got)
	require.Equal(t, step3, got.From)
	require.Equal(t, step9, got.To)
	require.Contains(t, got.When, "step 3")
	rows := tb.rows("#diff-sites")
	require.NotEmpty(t, rows)
	require.Contains(t, rows[0][0], w.leakLine)
	require.Equal(t, x.diff(step3, step9)[0].Site, rows[0][0])
	tb.check()
}
