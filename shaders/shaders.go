package shaders

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Type is a WGSL scalar type of 32 bits.
type Type string

// The scalar types tensors use.
const (
	F32 Type = "f32"
	I32 Type = "i32"
	U32 Type = "u32"
)

// WorkgroupSize is the one-dimensional workgroup size of the elementwise,
// copy and gather kernels.
const WorkgroupSize = 256

// Grid spreads n threads over workgroups of size wg, at most maxPerDim
// workgroups per dimension. It returns the workgroup counts and row, the
// number of threads per step of y. n = 0 gives a zero grid.
func Grid(n uint64, wg, maxPerDim uint32) (groups [3]uint32, row uint32, err error) {
	if n == 0 {
		return [3]uint32{0, 1, 1}, 0, nil
	}
	total := (n + uint64(wg) - 1) / uint64(wg)
	x := min(total, uint64(maxPerDim))
	y := (total + x - 1) / x
	if y > uint64(maxPerDim) {
		return groups, 0, fmt.Errorf("%d threads need %d×%d workgroups; the device allows %d per dimension", n, x, y, maxPerDim)
	}
	return [3]uint32{uint32(x), uint32(y), 1}, uint32(x) * wg, nil
}

// Params builds a kernel's uniform block: the header words, the scalars,
// where the dispatch starts, then metadata words.
type Params struct {
	Header  [4]uint32
	Scalars [4]float32
	// First says where a piece of a split dispatch starts (see Split): the
	// first thread or row of a one-dimensional kernel in word 0, the first
	// column tile, row tile and batch of MatMul in words 0 to 2.
	First [4]uint32
	Meta  []uint32
}

// Bytes encodes p in the layout the kernels declare.
func (p Params) Bytes() []byte {
	b := make([]byte, paramsSize(len(p.Meta)))
	for i, w := range p.Header {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	for i, f := range p.Scalars {
		binary.LittleEndian.PutUint32(b[16+4*i:], math.Float32bits(f))
	}
	for i, w := range p.First {
		binary.LittleEndian.PutUint32(b[32+4*i:], w)
	}
	for i, w := range p.Meta {
		binary.LittleEndian.PutUint32(b[48+4*i:], w)
	}
	return b
}

// paramsSize is the size in bytes of the uniform block paramsStruct
// declares for metaWords metadata words: the header, the scalars and
// first, then the metadata in whole vec4s, at least one.
func paramsSize(metaWords int) uint64 { return 48 + 16*uint64(max(1, (metaWords+3)/4)) }

// paramsStruct declares the uniform block for metaWords metadata words.
func paramsStruct(metaWords int) string {
	n := max(1, (metaWords+3)/4)
	return fmt.Sprintf(`struct Params {
	n: u32, row: u32, h2: u32, h3: u32,
	s: vec4<f32>,
	first: vec4<u32>,
	m: array<vec4<u32>, %d>,
}
`, n)
}

// meta is the WGSL expression for metadata word i.
func meta(i int) string { return fmt.Sprintf("p.m[%d][%d]", i/4, i%4) }
