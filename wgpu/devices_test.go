package wgpu_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Two devices used at once from two goroutines, one reading back (so that
// its poller runs outside its lock) and one recording and submitting, and a
// third device opened and closed meanwhile. On the GL backend every device
// of the process shares one EGL context, and wgpu-native aborted the
// process with EGL's BadAccess when two threads made it current at once.
// It runs in a child process, so that such an abort fails only this test.
func TestDevicesUsedFromSeveralGoroutines(t *testing.T) {
	if !inSubprocess(t) {
		return
	}
	d1, d2 := testgpu.Open(t), testgpu.Open(t)
	const rounds = 200
	var wg sync.WaitGroup
	reader := func(d *wgpu.Device) {
		defer wg.Done()
		x := upload(t, d, ramp(256, 1))
		defer x.Release()
		for range rounds {
			got, err := d.ReadAsync(x, 0, 4*256).Await(context.Background())
			if !assert.NoError(t, err) {
				return
			}
			assert.Equal(t, ramp(256, 1), bytesF32(got))
		}
	}
	writer := func(d *wgpu.Device) {
		defer wg.Done()
		k := scaleKernel(t, d)
		x := upload(t, d, ramp(256, 1))
		defer x.Release()
		y, err := d.NewBuffer(4*256, wgpu.UsageStorage)
		require.NoError(t, err)
		defer y.Release()
		for range rounds {
			if !assert.NoError(t, d.Dispatch(k, groupsFor(256), scaleParams(2, 256), x, y)) ||
				!assert.NoError(t, d.Flush()) {
				return
			}
		}
		assert.Equal(t, ramp(256, 2), readF32(t, d, y))
	}
	opener := func() {
		defer wg.Done()
		for range 3 {
			ctx, cancel := context.WithTimeout(context.Background(), testgpu.Timeout)
			d, err := wgpu.Open(ctx, testgpu.DefaultOptions())
			cancel()
			if !assert.NoError(t, err) {
				return
			}
			assert.NoError(t, d.Close())
		}
	}
	wg.Add(5)
	go reader(d1)
	go writer(d2)
	go reader(d2)
	go writer(d1)
	go opener()
	wg.Wait()
}
