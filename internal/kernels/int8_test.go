package kernels_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/half"
	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/internal/testgpu"
)

// packBytes packs int8 values four to a word, element 4k in the lowest
// byte.
func packBytes(v []int8) []uint32 {
	w := make([]uint32, (len(v)+3)/4)
	for i, b := range v {
		w[i/4] |= uint32(uint8(b)) << (8 * (i % 4))
	}
	return w
}

// byteAt is element i of packed words.
func byteAt(w []uint32, i int) int8 { return int8(w[i/4] >> (8 * (i % 4))) }

// Programs over Int8 storage give the values of their ops done one by one
// in Go, each int8 result wrapped to its low byte: every byte pattern
// widened, int32s narrowed four to a thread with counts that end inside a
// word (the padding written as 0), a broadcast row and a half-width column
// read through strides, and the Vec4 form with a splat.
func TestInt8ProgramsOnTheDevice(t *testing.T) {
	d := testgpu.Open(t)
	rng := rand.New(rand.NewPCG(7, 8))

	// Every pattern widened to f32, 255 of them: one element a thread.
	all := make([]int8, 255)
	for i := range all {
		all[i] = int8(i - 128)
	}
	widen := kernels.Elementwise{Leaves: []kernels.Leaf{{Type: kernels.I32, Storage: kernels.Int8}},
		Nodes: []kernels.Node{{Name: "cast", Out: kernels.F32, Expr: "f32(a0)", Args: []kernels.Ref{{Leaf: true}}, Store: true}}}
	require.Equal(t, 1, widen.ElementsPerThread())
	got := runProgram(t, d, widen, len(all), nil, [][]uint32{packBytes(all)}, []int{len(all)})[0]
	for i, v := range all {
		require.Equal(t, float32(v), math.Float32frombits(got[i]), "%d widened", v)
	}

	// int32s wrapped to int8, four a thread, for counts 1 to 9 past a
	// multiple of four.
	narrow := kernels.Elementwise{Leaves: []kernels.Leaf{{Type: kernels.I32}},
		Nodes: []kernels.Node{{Name: "cast", Out: kernels.I32, Expr: "a0", Args: []kernels.Ref{{Leaf: true}}, Store: true, Storage: kernels.Int8}}}
	require.Equal(t, 4, narrow.ElementsPerThread())
	for _, count := range []int{1, 2, 3, 4, 5, 1001} {
		in := make([]uint32, count)
		for i := range in {
			in[i] = rng.Uint32()
			if i%3 == 0 {
				in[i] = uint32(int32(rng.IntN(256) - 128))
			}
		}
		got := runProgram(t, d, narrow, count, nil, [][]uint32{in}, []int{(count + 3) / 4})[0]
		for i, v := range in {
			require.Equal(t, int8(v), byteAt(got, i), "%d of %d: %#x wrapped", i, count, v)
		}
		for i := count; i%4 != 0; i++ {
			require.Zero(t, byteAt(got, i), "padding byte %d of %d", i, count)
		}
	}

	// [7, 5] int8 + a broadcast [1, 5] int8 row, stored int8 (wrapping);
	// times a broadcast [7, 1] float16 column, stored float16 and f32.
	const M, N = 7, 5
	a, b, c := make([]int8, M*N), make([]int8, N), make([]uint16, M)
	for i := range a {
		a[i] = int8(rng.IntN(256) - 128)
	}
	for i := range b {
		b[i] = int8(rng.IntN(256) - 128)
	}
	for i := range c {
		c[i] = half.Float16From32(float32(rng.NormFloat64()))
	}
	prog := kernels.Elementwise{Rank: 2,
		Leaves: []kernels.Leaf{{Type: kernels.I32, Storage: kernels.Int8}, {Type: kernels.I32, Strided: true, Storage: kernels.Int8}, {Type: kernels.F32, Strided: true, Storage: kernels.Float16}},
		Nodes: []kernels.Node{
			{Name: "add", Out: kernels.I32, Expr: "a0 + a1", Args: []kernels.Ref{{Leaf: true, Index: 0}, {Leaf: true, Index: 1}}, Store: true, Storage: kernels.Int8},
			{Name: "mul", Out: kernels.F32, Expr: "f32(a0) * a1", Args: []kernels.Ref{{Index: 0}, {Leaf: true, Index: 2}}, Store: true, Storage: kernels.Float16},
			{Name: "neg", Out: kernels.F32, Expr: "-a0", Args: []kernels.Ref{{Index: 1}}, Store: true},
		}}
	require.Equal(t, 4, prog.ElementsPerThread())
	outs := runProgram(t, d, prog, M*N, []uint32{M, N, 0, 1, 1, 0}, [][]uint32{packBytes(a), packBytes(b), packHalves(c)}, []int{(M*N + 3) / 4, (M*N + 1) / 2, M * N})
	for r := range M {
		for col := range N {
			i := r*N + col
			sum := a[i] + b[col] // wraps, as the kernel's does
			require.Equal(t, sum, byteAt(outs[0], i), "sum at %d", i)
			prod := half.Float16From32(float32(sum) * half.Float16To32(c[r]))
			require.Equal(t, prod, halfAt(outs[1], i), "product at %d", i)
			require.Equal(t, -half.Float16To32(prod), math.Float32frombits(outs[2][i]), "negation at %d", i)
		}
	}
	require.Zero(t, outs[0][len(outs[0])-1]>>24, "the padding byte")
	require.Zero(t, outs[1][len(outs[1])-1]>>16, "the padding half")

	// Vec4: [4, 8] int8 + a [1, 8] int8 row, times a splat [4, 1] int8
	// column, stored int8.
	const R, C = 4, 8
	x, row, col := make([]int8, R*C), make([]int8, C), make([]int8, R)
	for _, v := range [][]int8{x, row, col} {
		for i := range v {
			v[i] = int8(rng.IntN(256) - 128)
		}
	}
	vec := kernels.Elementwise{Vec4: true, Rank: 2,
		Leaves: []kernels.Leaf{{Type: kernels.I32, Storage: kernels.Int8}, {Type: kernels.I32, Strided: true, Storage: kernels.Int8}, {Type: kernels.I32, Strided: true, Splat: true, Storage: kernels.Int8}},
		Nodes: []kernels.Node{
			{Name: "add", Out: kernels.I32, Expr: "a0 + a1", Args: []kernels.Ref{{Leaf: true, Index: 0}, {Leaf: true, Index: 1}}, Storage: kernels.Int8},
			{Name: "mul", Out: kernels.I32, Expr: "a0 * a1", Args: []kernels.Ref{{Index: 0}, {Leaf: true, Index: 2}}, Store: true, Storage: kernels.Int8},
		}}
	got = runProgram(t, d, vec, R*C, []uint32{R, C, 0, 1, 1, 0}, [][]uint32{packBytes(x), packBytes(row), packBytes(col)}, []int{R * C / 4})[0]
	for r := range R {
		for cc := range C {
			i := r*C + cc
			require.Equal(t, (x[i]+row[cc])*col[r], byteAt(got, i), "vec4 at %d", i)
		}
	}
}
