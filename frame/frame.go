// Package frame is the tick that drives a device, tf.nextFrame for Go:
// each frame submits pending work, polls the device so that finished
// readbacks settle, and records a memory sample. Loop runs a function every
// frame and watches memory for leaks.
//
// # Limits and errors
//
// A Clock keeps at most MaxSamples samples, so its memory is bounded
// however long it runs, and Options.LeakFrames is at most MaxSamples-1.
// Options out of their documented ranges, a nil Engine or function, and a
// nil or zero Clock give errors wrapping tensor.ErrArgument, never a
// panic.
//
// # Concurrency
//
// A Clock belongs to the goroutine that owns its Engine, as the Engine
// does. Its samples may be read (Samples, Frame, Snapshot) from any
// goroutine.
package frame

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/wgtensor/wgtensor/internal/bytesize"
	"github.com/wgtensor/wgtensor/tensor"
)

// Sample is the state of memory at the end of a frame.
type Sample struct {
	Frame         int
	At            time.Time
	Duration      time.Duration // since the previous frame ended
	LiveTensors   int
	LiveBytes     uint64 // bytes of the tensors' buffers
	ReservedBytes uint64 // what the device's pool holds from the driver
	Pending       int    // readbacks not yet settled
}

// Clock counts frames for one engine and keeps their samples.
type Clock struct {
	e *tensor.Engine

	mu      sync.Mutex // protects the fields below
	frame   int
	last    time.Time
	samples []Sample // the last keep samples
	marks   []uint64 // tensor.LastID() at the end of each kept frame
	keep    int
}

// MaxSamples is the most samples a Clock keeps, which bounds its memory.
const MaxSamples = 1 << 16

// NewClock returns a clock for e that keeps the last keep samples: at
// least 2 and at most MaxSamples, whatever keep says.
func NewClock(e *tensor.Engine, keep int) *Clock {
	return &Clock{e: e, keep: min(max(keep, 2), MaxSamples), last: time.Now()}
}

// errNoEngine is the error of a clock or loop with no engine to drive.
var errNoEngine = fmt.Errorf("frame: nil or zero Clock or Engine (make them with NewClock and tensor.New): %w", tensor.ErrArgument)

// usable returns errNoEngine unless e can compute.
func usable(e *tensor.Engine) error {
	if e.Device() == nil {
		return errNoEngine
	}
	return nil
}

// Next ends the current frame: it dispatches the engine's pending ops and
// submits recorded work, polls the device without blocking so that
// finished readbacks settle, and records a sample. A nil or zero Clock, or
// one of a nil or zero Engine, returns an error wrapping
// tensor.ErrArgument.
func (c *Clock) Next(ctx context.Context) (Sample, error) {
	if c == nil {
		return Sample{}, errNoEngine
	}
	if err := usable(c.e); err != nil {
		return Sample{}, err
	}
	if err := ctx.Err(); err != nil {
		return Sample{}, err
	}
	d := c.e.Device()
	if err := c.e.Flush(); err != nil { // the engine's fused ops too
		return Sample{}, fmt.Errorf("frame: %w", err)
	}
	if err := d.Poll(false); err != nil {
		return Sample{}, fmt.Errorf("frame: %w", err)
	}
	m := c.e.Memory()
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.frame++
	if d.Recording() {
		d.MarkHistory(fmt.Sprintf("frame %d", c.frame))
	}
	s := Sample{Frame: c.frame, At: now, Duration: now.Sub(c.last), LiveTensors: m.Tensors,
		LiveBytes: m.Bytes, ReservedBytes: m.Pool.ReservedBytes, Pending: m.PendingReadbacks}
	c.last = now
	c.samples = append(c.samples, s)
	c.marks = append(c.marks, tensor.LastID())
	if len(c.samples) > c.keep {
		c.samples = c.samples[1:]
		c.marks = c.marks[1:]
	}
	return s, nil
}

// Next is Clock.Next for a caller that keeps no clock: it submits, polls
// and returns e's memory as a sample of frame 0.
func Next(ctx context.Context, e *tensor.Engine) (Sample, error) {
	return NewClock(e, 2).Next(ctx)
}

// Samples returns the kept samples, oldest first.
func (c *Clock) Samples() []Sample {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Sample(nil), c.samples...)
}

// Frame is the number of frames ended so far.
func (c *Clock) Frame() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.frame
}

// bornSince returns the newest id before frame f began (f among the kept
// frames), or false.
func (c *Clock) bornSince(f int) (uint64, bool) {
	for i, s := range c.samples {
		if s.Frame == f-1 {
			return c.marks[i], true
		}
	}
	return 0, false
}

// Snapshot returns the engine's live tensors with their age in frames:
// how many frames ended since the tensor was created (0 for one created in
// the current frame; -1 for one older than the kept samples).
func (c *Clock) Snapshot() tensor.Snapshot {
	if c == nil {
		return (*tensor.Engine)(nil).Snapshot()
	}
	s := c.e.Snapshot()
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range s.Tensors {
		it := &s.Tensors[i]
		it.AgeFrames = 0
		for j := range c.marks {
			if it.ID <= c.marks[j] { // created in or before frame j
				if j == 0 && len(c.marks) == c.keep {
					it.AgeFrames = -1
				} else {
					it.AgeFrames = c.frame - c.samples[j].Frame + 1
				}
				break
			}
		}
	}
	return s
}

// Leak is the watchdog's report: live tensors or bytes grew in each of
// Options.LeakFrames frames in a row, and these sites created the tensors
// born in those frames that are still alive. Error names each site by the
// user's line and the chain of calls that led there.
type Leak struct {
	FromFrame, ToFrame int
	Tensors            [2]int    // live tensors at the start and the end
	Bytes              [2]uint64 // live bytes at the start and the end
	Sites              []tensor.SiteSummary
}

// Error says how memory grew and names the sites, so that a Leak returned
// by Loop (Options.StopOnLeak) reads as the report itself.
func (l *Leak) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "frame: memory grew in every frame from %d to %d: %d → %d tensors, %s → %s",
		l.FromFrame, l.ToFrame, l.Tensors[0], l.Tensors[1], bytesize.Format(l.Bytes[0]), bytesize.Format(l.Bytes[1]))
	for i, s := range l.Sites {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more sites", len(l.Sites)-5)
			break
		}
		fmt.Fprintf(&b, "; %d tensors (%s) still alive from %s", s.Tensors, bytesize.Format(s.Bytes), s.Site.Chain())
	}
	return b.String()
}

// checkLeak reports growth over the last n frames.
func (c *Clock) checkLeak(n int) *Leak {
	c.mu.Lock()
	if len(c.samples) < n+1 {
		c.mu.Unlock()
		return nil
	}
	win := c.samples[len(c.samples)-n-1:]
	growT, growB := true, true
	for i := 1; i < len(win); i++ {
		growT = growT && win[i].LiveTensors > win[i-1].LiveTensors
		growB = growB && win[i].LiveBytes > win[i-1].LiveBytes
	}
	first, last := win[0], win[len(win)-1]
	since, _ := c.bornSince(first.Frame + 1)
	c.mu.Unlock()
	if !growT && !growB {
		return nil
	}
	var born []tensor.TensorInfo
	for _, t := range c.e.LiveTensors() {
		if t.ID > since {
			born = append(born, t)
		}
	}
	return &Leak{FromFrame: first.Frame, ToFrame: last.Frame,
		Tensors: [2]int{first.LiveTensors, last.LiveTensors}, Bytes: [2]uint64{first.LiveBytes, last.LiveBytes},
		Sites: tensor.BySite(born)}
}
