package wgpu_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// BenchmarkDispatch measures the cost of one 1,024-element dispatch when
// dispatches are batched into one submission and when each is submitted
// alone. On lavapipe the difference is the per-submit cost.
func BenchmarkDispatch(b *testing.B) {
	for _, bc := range []struct {
		name  string
		batch int
	}{{"batched-64", 64}, {"batched-1000", 1000}, {"submit-per-op", 1}} {
		b.Run(bc.name, func(b *testing.B) {
			opts := testgpu.DefaultOptions()
			opts.BatchSize = bc.batch
			d := testgpu.OpenWith(b, opts)
			k := scaleKernel(b, d)
			x := upload(b, d, ramp(1024, 1))
			defer x.Release()
			y, err := d.NewBuffer(4096, wgpu.UsageStorage)
			require.NoError(b, err)
			defer y.Release()
			params := scaleParams(2, 1024)
			b.ResetTimer()
			for range b.N {
				if err := d.Dispatch(k, groupsFor(1024), params, x, y); err != nil {
					b.Fatal(err)
				}
			}
			require.NoError(b, d.Sync(ctxT(b)))
			b.StopTimer()
			b.ReportMetric(float64(d.Stats().Submits)/float64(b.N), "submits/op")
		})
	}
}

// BenchmarkSubmission measures what a submission costs beside its work:
// dispatches of 2^18 elements (about 1 ms each on lavapipe), each
// submitted alone or 64 to a batch (the work budget then cuts the batches
// smaller). On lavapipe and llvmpipe alike a submission adds 60-170 µs
// (2026-11-26): the 7-9 ms per Vulkan submission once measured with many
// small submissions does not occur with this runtime.
func BenchmarkSubmission(b *testing.B) {
	for _, batch := range []int{1, 64} {
		b.Run(fmt.Sprintf("batch-%d", batch), func(b *testing.B) {
			opts := testgpu.DefaultOptions()
			opts.BatchSize = batch
			d := testgpu.OpenWith(b, opts)
			k := scaleKernel(b, d)
			const n = 1 << 18
			x := upload(b, d, ramp(n, 1))
			defer x.Release()
			y, err := d.NewBuffer(4*n, wgpu.UsageStorage)
			require.NoError(b, err)
			defer y.Release()
			params := scaleParams(2, n)
			require.NoError(b, d.Sync(ctxT(b)))
			s0 := d.Stats().Submits
			b.ResetTimer()
			for range b.N {
				if err := d.Dispatch(k, groupsFor(n), params, x, y); err != nil {
					b.Fatal(err)
				}
			}
			require.NoError(b, d.Sync(ctxT(b)))
			b.StopTimer()
			b.ReportMetric(float64(d.Stats().Submits-s0)/float64(b.N), "submits/op")
		})
	}
}

// BenchmarkReadback4KB measures the round trip of reading back 4 KiB:
// copy to a pooled staging buffer, submit, map, poll, copy out.
func BenchmarkReadback4KB(b *testing.B) {
	d := testgpu.Open(b)
	x := upload(b, d, ramp(1024, 1))
	defer x.Release()
	ctx := ctxT(b)
	b.SetBytes(4096)
	b.ResetTimer()
	for range b.N {
		if _, err := d.ReadAsync(x, 0, 4096).Await(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPool measures taking a 4 KiB buffer from the pool and giving it
// back (reuse), against creating and destroying it in the driver each time
// (alloc: the pool is trimmed after every release).
func BenchmarkPool(b *testing.B) {
	b.Run("reuse", func(b *testing.B) {
		d := testgpu.Open(b)
		for range b.N {
			buf, err := d.NewBuffer(4096, wgpu.UsageStorage)
			if err != nil {
				b.Fatal(err)
			}
			buf.Release()
		}
		b.ReportMetric(float64(d.Pool().Stats().Allocs), "driver-allocs")
	})
	b.Run("alloc", func(b *testing.B) {
		d := testgpu.Open(b)
		for range b.N {
			buf, err := d.NewBuffer(4096, wgpu.UsageStorage)
			if err != nil {
				b.Fatal(err)
			}
			buf.Release()
			if err := d.Pool().Trim(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
