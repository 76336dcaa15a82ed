package tensor

import (
	"encoding/binary"
	"unsafe"
)

// word is a 32-bit element type as the host holds it.
type word interface{ float32 | int32 | uint32 }

// hostIsLittleEndian: GPU buffers are little-endian, so on such a host a
// slice of words already is the bytes a buffer holds.
var hostIsLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// wordBytes views v's memory as bytes, without a copy.
func wordBytes[T word](v []T) []byte {
	if len(v) == 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))
}

// gpuBytes returns v as the little-endian bytes a buffer holds: v's own
// memory on a little-endian host, a converted copy elsewhere.
func gpuBytes[T word](v []T) []byte {
	b := wordBytes(v)
	if hostIsLittleEndian {
		return b
	}
	out := make([]byte, len(b))
	for i := 0; i < len(b); i += 4 {
		binary.LittleEndian.PutUint32(out[i:], binary.NativeEndian.Uint32(b[i:]))
	}
	return out
}

// fromGPUOrder turns words read back from a buffer (little-endian bytes
// copied into v's memory) into host order, in place.
func fromGPUOrder[T word](v []T) {
	if hostIsLittleEndian {
		return
	}
	b := wordBytes(v)
	for i := 0; i < len(b); i += 4 {
		binary.NativeEndian.PutUint32(b[i:], binary.LittleEndian.Uint32(b[i:]))
	}
}
