package frame

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Options configure Loop. The zero value runs as fast as it can, forever,
// with no scope and the watchdog on at 30 frames. Loop refuses values
// outside those documented here with an error wrapping
// tensor.ErrArgument.
type Options struct {
	// Frames stops the loop after this many frames; 0 runs until ctx ends
	// or fn fails. It may not be negative.
	Frames int
	// Rate is the target frames per second; 0 (or +Inf) means no pacing.
	// It may not be negative or NaN; a rate so low that a frame's interval
	// passes the longest time.Duration waits that long.
	Rate float64
	// Scoped runs each frame's fn inside tidy.Do, so that what it creates
	// and does not keep is disposed at the end of the frame.
	Scoped bool
	// LeakFrames is N: the watchdog reports when live tensors or live
	// bytes grew in each of N frames in a row. 0 means 30; negative turns
	// the watchdog off. It may be at most MaxSamples-1: the clock keeps
	// N+1 samples.
	LeakFrames int
	// OnLeak receives each report. After a report the watchdog waits N
	// more frames before it reports again.
	OnLeak func(*Leak)
	// StopOnLeak makes Loop return the first report as its error.
	StopOnLeak bool
}

// Loop calls fn once per frame with the frame's number (from 1), then
// ends the frame with Clock.Next, until ctx ends, fn returns an error, or
// opts.Frames frames ran. It returns the clock, for its samples. A nil
// engine or fn, or options out of range, run no frame and return an error.
func Loop(ctx context.Context, e *tensor.Engine, fn func(frame int) error, opts Options) (*Clock, error) {
	if err := usable(e); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, fmt.Errorf("frame: Loop: nil fn: %w", tensor.ErrArgument)
	}
	if err := opts.check(); err != nil {
		return nil, err
	}
	n := opts.LeakFrames
	if n == 0 {
		n = 30
	}
	c := NewClock(e, max(n+1, 2))
	interval := opts.interval()
	quiet := 0 // frames left before the watchdog may report again
	for f := 1; opts.Frames == 0 || f <= opts.Frames; f++ {
		start := time.Now()
		var err error
		if opts.Scoped {
			err = tidy.Do(e, func() error { return fn(f) })
		} else {
			err = fn(f)
		}
		if err != nil {
			return c, err
		}
		if _, err := c.Next(ctx); err != nil {
			return c, err
		}
		if n > 0 {
			if quiet > 0 {
				quiet--
			} else if leak := c.checkLeak(n); leak != nil {
				quiet = n
				if opts.OnLeak != nil {
					opts.OnLeak(leak)
				}
				if opts.StopOnLeak {
					return c, leak
				}
			}
		}
		if interval > 0 {
			if wait := interval - time.Since(start); wait > 0 {
				select {
				case <-ctx.Done():
					return c, ctx.Err()
				case <-time.After(wait):
				}
			}
		}
	}
	return c, nil
}

// check returns an error wrapping tensor.ErrArgument if o holds a value
// out of its documented range.
func (o Options) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("frame: Options."+format+": %w", append(args, tensor.ErrArgument)...)
	}
	switch {
	case o.Frames < 0:
		return bad("Frames %d is negative", o.Frames)
	case o.Rate < 0 || math.IsNaN(o.Rate):
		return bad("Rate %v is negative or NaN", o.Rate)
	case o.LeakFrames > MaxSamples-1:
		return bad("LeakFrames %d passes %d (MaxSamples-1)", o.LeakFrames, MaxSamples-1)
	}
	return nil
}

// interval is the time between frame starts that o.Rate asks for (0: no
// pacing), at most the longest time.Duration.
func (o Options) interval() time.Duration {
	if o.Rate <= 0 {
		return 0
	}
	ns := float64(time.Second) / o.Rate
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}
