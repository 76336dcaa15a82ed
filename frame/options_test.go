package frame_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/frame"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// TestLoopOptionsAtTheirLimits: issue 10 item 6. Every Options value is
// either run as documented or refused with an error; LeakFrames of
// math.MaxInt overflowed n+1 and panicked slicing the samples.
func TestLoopOptionsAtTheirLimits(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := ctxT(t)
	for _, c := range []struct {
		name   string
		opts   frame.Options
		frames int // frames run; -1: refused
	}{
		{"zero", frame.Options{Frames: 3}, 3},
		{"leak max int", frame.Options{Frames: 3, LeakFrames: math.MaxInt}, -1},
		{"leak most", frame.Options{Frames: 3, LeakFrames: frame.MaxSamples - 1}, 3},
		{"leak past most", frame.Options{Frames: 3, LeakFrames: frame.MaxSamples}, -1},
		{"leak one", frame.Options{Frames: 3, LeakFrames: 1}, 3},
		{"leak off", frame.Options{Frames: 3, LeakFrames: math.MinInt}, 3},
		{"negative frames", frame.Options{Frames: -1}, -1},
		{"min int frames", frame.Options{Frames: math.MinInt}, -1},
		{"negative rate", frame.Options{Frames: 1, Rate: -1}, -1},
		{"NaN rate", frame.Options{Frames: 1, Rate: math.NaN()}, -1},
		{"infinite rate", frame.Options{Frames: 3, Rate: math.Inf(1)}, 3},
		{"huge rate", frame.Options{Frames: 3, Rate: math.MaxFloat64}, 3},
		{"scoped", frame.Options{Frames: 2, Scoped: true, LeakFrames: 1}, 2},
	} {
		ran := 0
		var c2 *frame.Clock
		var err error
		testgpu.NoPanic(t, c.name, func() {
			c2, err = frame.Loop(ctx, e, func(int) error { ran++; return nil }, c.opts)
		})
		if c.frames < 0 {
			assert.ErrorIs(t, err, tensor.ErrArgument, c.name)
			assert.Zero(t, ran, "%s: a refused loop runs no frame", c.name)
			continue
		}
		assert.NoError(t, err, c.name)
		assert.Equal(t, c.frames, ran, c.name)
		if assert.NotNil(t, c2, c.name) {
			assert.Equal(t, c.frames, c2.Frame(), c.name)
		}
	}
}

// TestLoopWatchdogAtLeakFramesOne: with N = 1 the watchdog reports the
// first frame that grew.
func TestLoopWatchdogAtLeakFramesOne(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := ctxT(t)
	var kept []*tensor.Tensor
	defer func() { tidy.Dispose(kept) }()
	var leaks []*frame.Leak
	_, err := frame.Loop(ctx, e, func(int) error {
		kept = append(kept, e.Zeros(tensor.Float32, 4))
		return nil
	}, frame.Options{Frames: 3, LeakFrames: 1, OnLeak: func(l *frame.Leak) { leaks = append(leaks, l) }})
	require.NoError(t, err)
	require.NotEmpty(t, leaks)
	assert.Equal(t, 1, leaks[0].FromFrame)
	assert.Equal(t, 2, leaks[0].ToFrame)
}

// TestNewClockKeeps: NewClock keeps at least 2 and at most MaxSamples
// samples, whatever keep says.
func TestNewClockKeeps(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := ctxT(t)
	for _, keep := range []int{math.MinInt, -1, 0, 1, 2, 5, frame.MaxSamples + 1, math.MaxInt} {
		c := frame.NewClock(e, keep)
		for range 6 {
			_, err := c.Next(ctx)
			require.NoError(t, err)
		}
		want := min(max(keep, 2), 6)
		assert.Len(t, c.Samples(), want, "keep %d", keep)
		assert.Equal(t, 6, c.Frame())
		assert.Empty(t, c.Snapshot().Tensors)
	}
}

// TestNilAndZeroClockAndEngine: a nil or zero Clock, a clock of a nil
// Engine, and Loop and Next given a nil Engine or function return errors
// instead of panicking.
func TestNilAndZeroClockAndEngine(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := ctxT(t)
	testgpu.NoPanic(t, "frame", func() {
		for name, c := range map[string]*frame.Clock{"nil": nil, "zero": {}, "nil engine": frame.NewClock(nil, 2)} {
			_, err := c.Next(ctx)
			assert.ErrorIs(t, err, tensor.ErrArgument, name)
			assert.Zero(t, c.Frame(), name)
			assert.Empty(t, c.Samples(), name)
			assert.Empty(t, c.Snapshot().Tensors, name)
		}
		_, err := frame.Next(ctx, nil)
		assert.ErrorIs(t, err, tensor.ErrArgument)
		_, err = frame.Loop(ctx, nil, func(int) error { return nil }, frame.Options{Frames: 1})
		assert.ErrorIs(t, err, tensor.ErrArgument)
		_, err = frame.Loop(ctx, e, nil, frame.Options{Frames: 1})
		assert.ErrorIs(t, err, tensor.ErrArgument)
	})
}
