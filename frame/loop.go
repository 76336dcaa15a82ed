package frame

import (
	"context"
	"time"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Options configure Loop. The zero value runs as fast as it can, forever,
// with no scope and the watchdog on at 30 frames.
type Options struct {
	// Frames stops the loop after this many frames; 0 runs until ctx ends
	// or fn fails.
	Frames int
	// Rate is the target frames per second; 0 means no pacing.
	Rate float64
	// Scoped runs each frame's fn inside tidy.Do, so that what it creates
	// and does not keep is disposed at the end of the frame.
	Scoped bool
	// LeakFrames is N: the watchdog reports when live tensors or live
	// bytes grew in each of N frames in a row. 0 means 30; negative turns
	// the watchdog off.
	LeakFrames int
	// OnLeak receives each report. After a report the watchdog waits N
	// more frames before it reports again.
	OnLeak func(*Leak)
	// StopOnLeak makes Loop return the first report as its error.
	StopOnLeak bool
}

// Loop calls fn once per frame with the frame's number (from 1), then
// ends the frame with Clock.Next, until ctx ends, fn returns an error, or
// opts.Frames frames ran. It returns the clock, for its samples.
func Loop(ctx context.Context, e *tensor.Engine, fn func(frame int) error, opts Options) (*Clock, error) {
	n := opts.LeakFrames
	if n == 0 {
		n = 30
	}
	c := NewClock(e, max(n+1, 2))
	var interval time.Duration
	if opts.Rate > 0 {
		interval = time.Duration(float64(time.Second) / opts.Rate)
	}
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
