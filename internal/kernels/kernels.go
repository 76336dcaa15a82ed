package kernels

import "fmt"

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
