package safetensors

import (
	"errors"
	"fmt"
)

// DType is the element type of a tensor in a file, named as the format
// names it ("F32"). It is a plain value, safe to share.
type DType string

// The dtypes this package reads and writes.
const (
	F32  DType = "F32"  // IEEE 754 binary32
	F16  DType = "F16"  // IEEE 754 binary16
	BF16 DType = "BF16" // bfloat16: binary32's upper 16 bits
	I8   DType = "I8"   // two's complement byte (quantized weights)
	I32  DType = "I32"  // two's complement 32-bit integer
	U32  DType = "U32"  // unsigned 32-bit integer
	I64  DType = "I64"  // two's complement 64-bit integer (PyTorch's int64)
	F64  DType = "F64"  // IEEE 754 binary64
)

// Errors. Every error of this package wraps one of these or an error of
// the reader or writer it was given.
var (
	// ErrInvalid: the file breaks the format (a bad header length, bad
	// JSON, offsets that overlap, leave holes or run past the end, ...).
	ErrInvalid = errors.New("safetensors: invalid file")
	// ErrUnsupportedDType: a dtype the format defines but this package
	// does not handle (BOOL, U8, I16, U64, F8_E4M3, ...).
	ErrUnsupportedDType = errors.New("safetensors: unsupported dtype")
)

// Size returns the bytes of one element of d, or 0 for a dtype this
// package does not support.
func (d DType) Size() int {
	switch d {
	case F32, I32, U32:
		return 4
	case F16, BF16:
		return 2
	case I8:
		return 1
	case I64, F64:
		return 8
	}
	return 0
}

// otherDTypes are the dtypes the format defines that this package does
// not support: refused with ErrUnsupportedDType rather than ErrInvalid.
var otherDTypes = map[DType]bool{
	"BOOL": true, "U8": true, "I16": true, "U16": true,
	"U64": true, "F8_E5M2": true, "F8_E4M3": true,
	"F8_E8M0": true, "F6_E2M3": true, "F6_E3M2": true, "F4": true, "C64": true,
}

// check returns the error of d as the dtype of the tensor called name, or
// nil if this package supports it.
func (d DType) check(name string) error {
	switch {
	case d.Size() > 0:
		return nil
	case otherDTypes[d]:
		return fmt.Errorf("%w: tensor %q is %s; supported are F32, F16, BF16, F64, I32, U32, I64 and I8", ErrUnsupportedDType, name, d)
	}
	return fmt.Errorf("%w: tensor %q has unknown dtype %q", ErrInvalid, name, string(d))
}
