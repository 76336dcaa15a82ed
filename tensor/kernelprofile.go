package tensor

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wgtensor/wgtensor/internal/bytesize"
	"github.com/wgtensor/wgtensor/wgpu"
)

// KernelProfile is what Engine.Profile saw: per kernel, how often it ran,
// for how long and how many bytes it bound; every dispatch on a timeline;
// and the memory the function took. Like tf.profile and torch.profiler.
type KernelProfile struct {
	// Kernels has one entry per kernel that ran (by name and key), the
	// longest total time first.
	Kernels []KernelStats
	// Dispatches lists every dispatch in the order it was recorded, as
	// the trace shows them.
	Dispatches []wgpu.DispatchTiming
	// Source says how the times were measured.
	Source wgpu.TimingSource
	// NewBytes is the capacity of the buffers handed out to tensors (and
	// other buffers that are not the runtime's own) while the function
	// ran; PeakBytes the most such capacity live at once, counting what
	// was live before. Both count bytes as Memory and the pool do.
	NewBytes, PeakBytes uint64
	// Elapsed is the wall time the profiled function took, with the
	// profile's own waits.
	Elapsed time.Duration
}

// KernelStats sums the dispatches of one kernel.
type KernelStats struct {
	// Name is the kernel's name. A fused elementwise program is named by
	// its ops, joined with "+" ("mul+add+relu"), and so is a matrix
	// product with the ops that follow it as its epilogue
	// ("matmul+add+gelu").
	Name string
	// Key is the kernel's cache key: kernels of one name may have several
	// (a matmul per tile shape, a program per fused chain).
	Key string
	// Ops lists the ops of an elementwise program, or of a product and its
	// epilogue ("matmul" first), in the order it computes them; nil for
	// other kernels.
	Ops     []string
	Calls   int
	Time    time.Duration // the sum of its dispatches' durations
	Read    uint64        // bytes bound read-only, summed over its dispatches
	Written uint64        // bytes bound read-write, summed over its dispatches
}

// Fused reports whether s fuses several ops: an elementwise program of
// more than one, or a product with an epilogue.
func (s KernelStats) Fused() bool { return len(s.Ops) > 1 }

// elementwiseKeyPrefix starts the key of every elementwise program
// (kernels.Elementwise.Key), whose name is its ops joined with "+".
const elementwiseKeyPrefix = "elementwise/"

// Profile runs fn and reports every kernel dispatched on e's device while
// it ran. Elementwise ops that fn leaves pending are dispatched before
// Profile returns, and those pending before it are dispatched before fn
// runs, so the profile holds fn's work and only it. Fusion stays as it is:
// fused programs are profiled as the kernels they are, named by their ops.
//
// The device times each dispatch (wgpu.Timer): with the GPU's timestamp
// queries where the adapter offers them, else by submitting every
// dispatch on its own and waiting for it, which makes fn run slower than
// it would unprofiled; Source says which. Dispatches that other engines
// on the same device record meanwhile are in the profile too. One profile
// (or wgpu.Timer) runs on a device at a time: Profile called while another
// runs, including from inside fn, returns an error wrapping
// wgpu.ErrInvalidArgument and does not call fn.
//
// If fn fails, Profile returns fn's error along with the profile of what
// ran; a panic in fn stops the profile and propagates. ctx bounds the wait
// for fn's work to finish. Profile is called like an op: from the
// goroutine that uses e.
func (e *Engine) Profile(ctx context.Context, fn func() error) (*KernelProfile, error) {
	const op = "profile"
	if err := e.usable(op); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, opErr(op, nil, ErrArgument, "no function to profile")
	}
	if err := e.Flush(); err != nil {
		return nil, &OpError{Op: op, Detail: "dispatching the work before the profile", Err: err}
	}
	tm, err := e.dev.StartTiming()
	if err != nil {
		return nil, &OpError{Op: op, Err: err}
	}
	stopped := false
	defer func() {
		if !stopped { // fn panicked
			_, _ = tm.Stop(context.Background())
		}
	}()
	fnErr := fn()
	flushErr := e.Flush()
	rep, stopErr := tm.Stop(ctx)
	stopped = true
	p := newKernelProfile(rep)
	if flushErr != nil || stopErr != nil {
		return p, errors.Join(fnErr, &OpError{Op: op, Err: errors.Join(flushErr, stopErr)})
	}
	return p, fnErr
}

// newKernelProfile sums a timing report by kernel.
func newKernelProfile(rep wgpu.TimingReport) *KernelProfile {
	p := &KernelProfile{Dispatches: rep.Dispatches, Source: rep.Source, NewBytes: rep.NewBytes, PeakBytes: rep.PeakBytes, Elapsed: rep.Elapsed}
	index := make(map[[2]string]int)
	for _, d := range rep.Dispatches {
		id := [2]string{d.Kernel, d.Key}
		i, ok := index[id]
		if !ok {
			i = len(p.Kernels)
			index[id] = i
			p.Kernels = append(p.Kernels, KernelStats{Name: d.Kernel, Key: d.Key, Ops: opsOf(d.Kernel, d.Key)})
		}
		s := &p.Kernels[i]
		s.Calls++
		s.Time += d.Duration
		s.Read += d.Read
		s.Written += d.Written
	}
	slices.SortStableFunc(p.Kernels, func(a, b KernelStats) int {
		return cmp.Or(cmp.Compare(b.Time, a.Time), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Key, b.Key))
	})
	return p
}

// opsOf returns the ops of an elementwise program or of a product with an
// epilogue (whose key names its program's), nil for another kernel.
func opsOf(name, key string) []string {
	if !strings.HasPrefix(key, elementwiseKeyPrefix) && !strings.Contains(key, "+"+elementwiseKeyPrefix) {
		return nil
	}
	return strings.Split(name, "+")
}

// Total sums the kernels named name, whatever their keys; its Key is ""
// unless one key ran. Calls is 0 if none ran.
func (p *KernelProfile) Total(name string) KernelStats {
	t := KernelStats{Name: name}
	if p == nil {
		return t
	}
	keys := 0
	for _, s := range p.Kernels {
		if s.Name != name {
			continue
		}
		keys++
		t.Key, t.Ops = s.Key, s.Ops
		t.Calls += s.Calls
		t.Time += s.Time
		t.Read += s.Read
		t.Written += s.Written
	}
	if keys > 1 {
		t.Key = ""
	}
	return t
}

// Time returns the summed time of every dispatch.
func (p *KernelProfile) Time() time.Duration {
	var t time.Duration
	if p != nil {
		for _, s := range p.Kernels {
			t += s.Time
		}
	}
	return t
}

// WriteTable writes the profile as a table, one row per kernel, the
// longest total time first, under a line that says how the times were
// measured and what memory the function took.
func (p *KernelProfile) WriteTable(w io.Writer) error {
	if p == nil {
		return opErr("write profile table", nil, ErrArgument, "nil profile")
	}
	total := p.Time()
	head := fmt.Sprintf("kernel profile: %d dispatches of %d kernels took %v (%s); the function took %v; new %s, peak %s\n",
		len(p.Dispatches), len(p.Kernels), total.Round(time.Microsecond), p.Source, p.Elapsed.Round(time.Microsecond),
		bytesize.Format(p.NewBytes), bytesize.Format(p.PeakBytes))
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "time\t%%\tcalls\tper call\tread\twritten\t\tkernel\n")
	for _, s := range p.Kernels {
		share := 0.0
		if total > 0 {
			share = 100 * float64(s.Time) / float64(total)
		}
		fmt.Fprintf(tw, "%v\t%.1f%%\t%d\t%v\t%s\t%s\t\t%s\n",
			s.Time.Round(time.Microsecond), share, s.Calls, (s.Time / time.Duration(s.Calls)).Round(time.Microsecond),
			bytesize.Format(s.Read), bytesize.Format(s.Written), s.label())
	}
	return tw.Flush()
}

// label names a kernel in the table: its name, whether it fuses ops, and
// its key where the key says more than the name.
func (s KernelStats) label() string {
	l := s.Name
	if s.Fused() {
		l += fmt.Sprintf(" (fused, %d ops)", len(s.Ops))
	}
	if s.Key != s.Name {
		l += "  " + s.Key
	}
	return l
}

// traceEvent is one event of the Chrome trace-event format, which Perfetto
// and chrome://tracing open.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`            // µs
	Dur  float64        `json:"dur,omitempty"` // µs
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// WriteTrace writes the dispatches as a Chrome trace-event JSON file: one
// complete event ("ph": "X") per dispatch on one track, its start and
// duration in microseconds since the profile began, with its key,
// workgroups, bytes and timing source as arguments. ui.perfetto.dev and
// chrome://tracing open it.
func (p *KernelProfile) WriteTrace(w io.Writer) error {
	if p == nil {
		return opErr("write profile trace", nil, ErrArgument, "nil profile")
	}
	events := make([]traceEvent, 0, len(p.Dispatches)+2)
	events = append(events,
		traceEvent{Name: "process_name", Ph: "M", Pid: 1, Args: map[string]any{"name": "wgtensor"}},
		traceEvent{Name: "thread_name", Ph: "M", Pid: 1, Tid: 1, Args: map[string]any{"name": "kernels (" + p.Source.String() + ")"}})
	for _, d := range p.Dispatches {
		args := map[string]any{"key": d.Key, "workgroups": d.Groups, "read_bytes": d.Read, "written_bytes": d.Written, "source": d.Source.String()}
		if ops := opsOf(d.Kernel, d.Key); len(ops) > 1 {
			args["fused_ops"] = ops
		}
		events = append(events, traceEvent{Name: d.Kernel, Cat: "kernel", Ph: "X",
			Ts: micros(d.Start), Dur: max(micros(d.Duration), 0.001), Pid: 1, Tid: 1, Args: args})
	}
	return json.NewEncoder(w).Encode(struct {
		TraceEvents     []traceEvent `json:"traceEvents"`
		DisplayTimeUnit string       `json:"displayTimeUnit"`
	}{events, "ns"})
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
