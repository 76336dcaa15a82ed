package wgpu_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// A released handle stays released, whatever the pool hands out after it:
// its memory may serve a new buffer, but never through the old handle.
func TestReleasedHandleStaysReleased(t *testing.T) {
	d := testgpu.Open(t)
	k := scaleKernel(t, d)
	old, err := d.NewBuffer(1000, wgpu.UsageStorage)
	require.NoError(t, err)
	require.NoError(t, old.Release())
	reused, err := d.NewBuffer(1000, wgpu.UsageStorage) // the same allocation
	require.NoError(t, err)
	defer reused.Release()
	require.NotSame(t, old, reused, "each hand-out is a new handle")
	require.EqualValues(t, 1, d.Pool().Stats().Reuses)
	require.NoError(t, d.Write(reused, 0, f32bytes(ramp(250, 1))))

	before := d.Pool().Stats()
	x := upload(t, d, ramp(250, 1))
	defer x.Release()
	for name, call := range map[string]func() error{
		"release": old.Release,
		"write":   func() error { return d.Write(old, 0, f32bytes(ramp(4, 9))) },
		"read": func() error {
			_, err := d.ReadAsync(old, 0, 4).Await(ctxT(t))
			return err
		},
		"dispatch": func() error { return d.Dispatch(k, groupsFor(250), scaleParams(9, 250), x, old) },
	} {
		assert.ErrorIs(t, call(), wgpu.ErrDisposed, name)
	}
	after := d.Pool().Stats()
	assert.Equal(t, before.LiveBuffers+1, after.LiveBuffers, "only x was added")
	assert.Equal(t, before.LiveBytes+1024, after.LiveBytes)
	assert.Equal(t, ramp(250, 1), readF32(t, d, reused), "nothing reached the new owner through the old handle")

	// Two hand-outs after a double release are two buffers.
	a, err := d.NewBuffer(1000, wgpu.UsageStorage)
	require.NoError(t, err)
	defer a.Release()
	b, err := d.NewBuffer(1000, wgpu.UsageStorage)
	require.NoError(t, err)
	defer b.Release()
	assert.NotSame(t, a, b)
	assert.NotEqual(t, a.ID(), b.ID())
}

// A handle's size is fixed for its life: reusing its memory for a buffer of
// another size changes nothing a reader of the old handle sees, and under
// -race reading it races with nothing.
func TestHandleSizeIsImmutable(t *testing.T) {
	d := testgpu.Open(t)
	a, err := d.NewBuffer(100, wgpu.UsageStorage)
	require.NoError(t, err)
	var wg sync.WaitGroup
	var sizes [2]uint64
	wg.Add(1)
	go func() {
		defer wg.Done()
		sizes[0], sizes[1] = a.Size(), a.BindingSize()
	}()
	require.NoError(t, a.Release())
	b, err := d.NewBuffer(200, wgpu.UsageStorage) // a's size class
	require.NoError(t, err)
	defer b.Release()
	wg.Wait()
	assert.Equal(t, [2]uint64{100, 112}, sizes)
	assert.EqualValues(t, 100, a.Size())
	assert.EqualValues(t, 112, a.BindingSize())
	assert.EqualValues(t, 200, b.Size())
}

// The largest buffers the device allows are refused, where the size class
// or the whole-word rounding would take them past the device's limit, as
// a limit, never as a validation error from the driver.
func TestLargestBufferMeetsTheDeviceLimit(t *testing.T) {
	d := testgpu.Open(t)
	lim := d.Limits().MaxBufferSize
	before := d.Pool().Stats()
	for _, size := range []uint64{lim + 1, lim, lim - 1, lim - 2} {
		if size <= lim&^3 {
			continue // it fits: allocating gigabytes proves nothing more here
		}
		_, err := d.NewBuffer(size, wgpu.UsageStorage)
		require.ErrorIs(t, err, wgpu.ErrLimit, "size %d", size)
		assert.Contains(t, err.Error(), "max buffer size")
	}
	assert.Equal(t, before, d.Pool().Stats())
}

// The capacity of every buffer the pool allocates is a whole number of
// words within the device's largest buffer, whatever the limit.
func TestCapacityStaysWithinTheLimit(t *testing.T) {
	for _, lim := range []uint64{1<<31 - 1, 1 << 28, 1<<28 + 2, 5000, 300} {
		for _, size := range []uint64{0, 1, 255, 257, 4999, lim - 3, lim - 1, lim} {
			c, ok := wgpu.CapacityFor(size, lim)
			if !ok {
				assert.Greater(t, size, lim&^3, "size %d, limit %d", size, lim)
				continue
			}
			assert.GreaterOrEqual(t, c, size, "size %d, limit %d", size, lim)
			assert.LessOrEqual(t, c, lim, "size %d, limit %d", size, lim)
			assert.Zero(t, c%4, "size %d, limit %d", size, lim)
		}
	}
}
