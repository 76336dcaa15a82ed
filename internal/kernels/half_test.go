package kernels_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/half"
	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// convert runs call (an expression of x[i], a u32) over words on the
// device and returns the u32 results.
func convert(t *testing.T, d *wgpu.Device, call string, words []uint32) []uint32 {
	t.Helper()
	src := kernels.Half + fmt.Sprintf(`
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
	let i = id.x + id.y * n.x * 64u;
	if (i < arrayLength(&x)) { y[i] = %s; }
}
`, call)
	k, err := d.Kernel(wgpu.KernelSpec{Name: "half_test", Key: "half_test/" + call, Source: src, Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}})
	require.NoError(t, err)
	in := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(in[4*i:], w)
	}
	x, err := d.NewBuffer(uint64(len(in)), wgpu.UsageStorage)
	require.NoError(t, err)
	defer x.Release()
	y, err := d.NewBuffer(uint64(len(in)), wgpu.UsageStorage)
	require.NoError(t, err)
	defer y.Release()
	require.NoError(t, d.Write(x, 0, in))
	groups := (len(words) + 63) / 64
	require.NoError(t, d.Dispatch(k, [3]uint32{uint32(min(groups, 32768)), uint32((groups + 32767) / 32768), 1}, nil, x, y))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := d.ReadAsync(y, 0, y.Size()).Await(ctx)
	require.NoError(t, err)
	res := make([]uint32, len(words))
	for i := range res {
		res[i] = binary.LittleEndian.Uint32(out[4*i:])
	}
	return res
}

// narrowing are float32 bits probing every rounding boundary of both
// formats (as internal/half's tests do) and random patterns.
func narrowing() []uint32 {
	var out []uint32
	for h := range uint32(0x7c00) {
		lo, hi := half.Float16To32(uint16(h)), half.Float16To32(uint16(h+1))
		mid := float32((float64(lo) + float64(hi)) / 2)
		for _, f := range []float32{lo, mid, math.Nextafter32(mid, 0), math.Nextafter32(mid, 1e30)} {
			out = append(out, math.Float32bits(f), math.Float32bits(f)|0x80000000)
		}
	}
	for h := range uint32(1 << 16) {
		b := h << 16
		out = append(out, b, b|0x8000, b|0x7fff, b|0x8001, b|1)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1 << 18 {
		out = append(out, rng.Uint32())
	}
	return out
}

// The WGSL conversions give internal/half's bits: widening every pattern
// of both formats, narrowing at every rounding boundary.
func TestHalfConversionsOnTheDevice(t *testing.T) {
	d := testgpu.Open(t)
	patterns := make([]uint32, 1<<16)
	for i := range patterns {
		patterns[i] = uint32(i)
	}
	wide := convert(t, d, "bitcast<u32>(half_to_f32(x[i]))", patterns)
	for h, got := range wide {
		want := math.Float32bits(half.Float16To32(uint16(h)))
		require.Equal(t, want, got, "float16 %#04x widened", h)
	}
	wide = convert(t, d, "bitcast<u32>(bfloat16_to_f32(x[i]))", patterns)
	for h, got := range wide {
		require.Equal(t, math.Float32bits(half.BFloat16To32(uint16(h))), got, "bfloat16 %#04x widened", h)
	}
	cases := narrowing()
	narrow := convert(t, d, "f32_to_half(bitcast<f32>(x[i]))", cases)
	for i, got := range narrow {
		require.Equal(t, uint32(half.Float16From32(math.Float32frombits(cases[i]))), got, "float16 of %#08x", cases[i])
	}
	narrow = convert(t, d, "f32_to_bfloat16(bitcast<f32>(x[i]))", cases)
	for i, got := range narrow {
		require.Equal(t, uint32(half.BFloat16From32(math.Float32frombits(cases[i]))), got, "bfloat16 of %#08x", cases[i])
	}
}

// runProgram runs k over count elements with the given leaves' words on
// the device and returns the words of each stored output, whose word
// counts outs gives.
func runProgram(t *testing.T, d *wgpu.Device, k kernels.Elementwise, count int, meta []uint32, leaves [][]uint32, outs []int) [][]uint32 {
	t.Helper()
	kern, err := d.KernelFor(k.Key(), k.Spec)
	require.NoError(t, err)
	var bufs []*wgpu.Buffer
	defer func() {
		for _, b := range bufs {
			b.Release()
		}
	}()
	for _, words := range leaves {
		b, err := d.NewBuffer(uint64(4*max(1, len(words))), wgpu.UsageStorage)
		require.NoError(t, err)
		bufs = append(bufs, b)
		require.NoError(t, d.Write(b, 0, wordBytes(words)))
	}
	for _, n := range outs {
		b, err := d.NewBuffer(uint64(4*n), wgpu.UsageStorage)
		require.NoError(t, err)
		bufs = append(bufs, b)
		require.NoError(t, d.Write(b, 0, wordBytes(make([]uint32, n)))) // not poison: padding is checked
	}
	threads := (count + k.ElementsPerThread() - 1) / k.ElementsPerThread()
	n := uint32(threads)
	if k.ElementsPerThread() > 1 && !k.Vec4 {
		n = uint32(count) // groups of a word's elements: the element count
	}
	groups := (threads + kernels.WorkgroupSize - 1) / kernels.WorkgroupSize
	params := make([]kernels.NodeParams, len(k.Nodes))
	block := k.Params(0, n, uint32(groups*kernels.WorkgroupSize), params, meta)
	require.NoError(t, d.Dispatch(kern, [3]uint32{uint32(groups), 1, 1}, block, bufs...))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var res [][]uint32
	for i := range outs {
		out, err := d.ReadAsync(bufs[len(leaves)+i], 0, uint64(4*outs[i])).Await(ctx)
		require.NoError(t, err)
		words := make([]uint32, outs[i])
		for j := range words {
			words[j] = binary.LittleEndian.Uint32(out[4*j:])
		}
		res = append(res, words)
	}
	return res
}

func wordBytes(words []uint32) []byte {
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// packHalves packs 16-bit values two to a word, padding with 0.
func packHalves(h []uint16) []uint32 {
	w := make([]uint32, (len(h)+1)/2)
	for i, v := range h {
		w[i/2] |= uint32(v) << (16 * (i % 2))
	}
	return w
}

// halfAt is element i of packed words.
func halfAt(w []uint32, i int) uint16 { return uint16(w[i/2] >> (16 * (i % 2))) }

// Programs over half-width storage give the bits of their ops done one
// by one in Go, each result rounded to its node's width: one, two and
// four elements per thread, odd counts (the padding half written as 0),
// broadcast leaves read through strides, and a splat.
func TestHalfWidthProgramsOnTheDevice(t *testing.T) {
	d := testgpu.Open(t)
	widths := []struct {
		s      kernels.Storage
		widen  func(uint16) float32
		narrow func(float32) uint16
	}{{kernels.Float16, half.Float16To32, half.Float16From32}, {kernels.BFloat16, half.BFloat16To32, half.BFloat16From32}}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, w := range widths {
		t.Run(w.s.String(), func(t *testing.T) {
			// Every pattern widened, with an odd count.
			all := make([]uint16, 1<<16-1)
			for i := range all {
				all[i] = uint16(i)
			}
			widen := kernels.Elementwise{Leaves: []kernels.Leaf{{Type: kernels.F32, Storage: w.s}},
				Nodes: []kernels.Node{{Name: "cast", Out: kernels.F32, Expr: "a0", Args: []kernels.Ref{{Leaf: true}}, Store: true}}}
			got := runProgram(t, d, widen, len(all), nil, [][]uint32{packHalves(all)}, []int{len(all)})[0]
			for i, h := range all {
				require.Equal(t, math.Float32bits(w.widen(h)), got[i], "%#04x widened", h)
			}

			// Narrowing at the rounding boundaries, odd count: two per thread.
			cases := narrowing()[:100001]
			narrow := kernels.Elementwise{Leaves: []kernels.Leaf{{Type: kernels.F32}},
				Nodes: []kernels.Node{{Name: "cast", Out: kernels.F32, Expr: "a0", Args: []kernels.Ref{{Leaf: true}}, Store: true, Storage: w.s}}}
			require.Equal(t, 2, narrow.ElementsPerThread())
			got = runProgram(t, d, narrow, len(cases), nil, [][]uint32{cases}, []int{(len(cases) + 1) / 2})[0]
			for i, c := range cases {
				require.Equal(t, w.narrow(math.Float32frombits(c)), halfAt(got, i), "%#08x narrowed", c)
			}
			require.Zero(t, got[len(got)-1]>>16, "the padding half")

			// [7, 5] half + broadcast [1, 5] half, stored half; times a
			// broadcast [7, 1] f32, stored f32, from the rounded sum.
			const M, N = 7, 5
			a, b, c := make([]uint16, M*N), make([]uint16, N), make([]float32, M)
			for i := range a {
				a[i] = w.narrow(float32(rng.NormFloat64() * 100))
			}
			for i := range b {
				b[i] = w.narrow(float32(rng.NormFloat64() * 100))
			}
			for i := range c {
				c[i] = float32(rng.NormFloat64())
			}
			meta := []uint32{M, N, 0, 1, 1, 0}
			prog := kernels.Elementwise{Rank: 2,
				Leaves: []kernels.Leaf{{Type: kernels.F32, Storage: w.s}, {Type: kernels.F32, Strided: true, Storage: w.s}, {Type: kernels.F32, Strided: true}},
				Nodes: []kernels.Node{
					{Name: "add", Out: kernels.F32, Expr: "a0 + a1", Args: []kernels.Ref{{Leaf: true, Index: 0}, {Leaf: true, Index: 1}}, Store: true, Storage: w.s},
					{Name: "mul", Out: kernels.F32, Expr: "a0 * a1", Args: []kernels.Ref{{Index: 0}, {Leaf: true, Index: 2}}, Store: true},
				}}
			cw := make([]uint32, M)
			for i, v := range c {
				cw[i] = math.Float32bits(v)
			}
			outs := runProgram(t, d, prog, M*N, meta, [][]uint32{packHalves(a), packHalves(b), cw}, []int{(M*N + 1) / 2, M * N})
			for r := range M {
				for col := range N {
					i := r*N + col
					sum := w.narrow(w.widen(a[i]) + w.widen(b[col]))
					require.Equal(t, sum, halfAt(outs[0], i), "sum at %d", i)
					require.Equal(t, math.Float32bits(w.widen(sum)*c[r]), outs[1][i], "product at %d", i)
				}
			}

			// Four per thread: [4, 8] half + a [1, 8] half row, times a
			// splat [4, 1] half column, stored half.
			const R, C = 4, 8
			x, row, col := make([]uint16, R*C), make([]uint16, C), make([]uint16, R)
			for _, v := range [][]uint16{x, row, col} {
				for i := range v {
					v[i] = w.narrow(float32(rng.NormFloat64() * 10))
				}
			}
			vec := kernels.Elementwise{Vec4: true, Rank: 2,
				Leaves: []kernels.Leaf{{Type: kernels.F32, Storage: w.s}, {Type: kernels.F32, Strided: true, Storage: w.s}, {Type: kernels.F32, Strided: true, Splat: true, Storage: w.s}},
				Nodes: []kernels.Node{
					{Name: "add", Out: kernels.F32, Expr: "a0 + a1", Args: []kernels.Ref{{Leaf: true, Index: 0}, {Leaf: true, Index: 1}}, Storage: w.s},
					{Name: "mul", Out: kernels.F32, Expr: "a0 * a1", Args: []kernels.Ref{{Index: 0}, {Leaf: true, Index: 2}}, Store: true, Storage: w.s},
				}}
			got = runProgram(t, d, vec, R*C, []uint32{R, C, 0, 1, 1, 0}, [][]uint32{packHalves(x), packHalves(row), packHalves(col)}, []int{R * C / 2})[0]
			for r := range R {
				for cc := range C {
					i := r*C + cc
					sum := w.narrow(w.widen(x[i]) + w.widen(row[cc]))
					require.Equal(t, w.narrow(w.widen(sum)*w.widen(col[r])), halfAt(got, i), "vec4 at %d", i)
				}
			}
		})
	}
}
