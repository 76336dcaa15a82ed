// Package safetensors reads and writes the safetensors file format, the
// one Hugging Face and PyTorch users exchange weights in: the format only,
// with no tensors and no device (package checkpoint moves a model's
// tensors through it).
//
// # Overview
//
// A file is an 8-byte little-endian header length N, N bytes of JSON, then
// the data. The JSON object maps each tensor's name to its dtype, shape
// and data_offsets [begin, end) (relative to the first byte after the
// header), plus an optional "__metadata__" object of strings:
//
//	{"__metadata__":{"step":"10"},"0.weight":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}
//
// ReadHeader parses and validates the header of a file read through an
// io.ReaderAt, reading nothing but the length and the JSON; the caller then
// reads each tensor's bytes where DataOffset and the tensor's offsets say.
// NewWriter writes a header for tensors whose dtypes and shapes are known
// in advance and then streams their data, in order, through Write: neither
// side ever holds the data of the whole file.
//
// # Validation
//
// ReadHeader accepts what the format's specification and its reference
// implementation accept, and nothing else: the header length is at most
// MaxHeaderSize and fits in the file; the JSON is valid UTF-8 (no lone
// surrogate escapes either), begins with '{' and holds one object, with
// nothing after it but whitespace; no name appears twice (nor any key
// inside an entry); each entry has a dtype, a shape of non-negative
// integers and two integer data_offsets, begin <= end, whose difference is
// the size its dtype and shape give; the entries' data cover the data
// section exactly, without overlaps or holes, to the end of the file; and
// "__metadata__", if present, maps strings to strings. Names are any JSON
// strings, the empty one and non-ASCII ones included, as the specification
// allows. Keys an entry has besides those three are ignored, as the
// reference implementation ignores them. Dtypes other than F32, F16, BF16,
// F64, I32, U32, I64 and I8 are refused with ErrUnsupportedDType; an unknown
// dtype with ErrInvalid.
//
// NewWriter refuses what ReadHeader would: a duplicate, reserved
// ("__metadata__") or non-UTF-8 name, an unsupported dtype, a negative
// dimension, a size that overflows. It pads the header with spaces to a
// multiple of 8 bytes, as the reference writer does, so that the data
// begins aligned.
//
// # Errors
//
// Every error names the tensor or the part of the file at fault and wraps
// ErrInvalid (the file breaks the format), ErrUnsupportedDType, or an
// error of the reader or writer given.
//
// # Concurrency
//
// ReadHeader may run on many goroutines at once, over one reader if the
// reader's ReadAt allows it (os.File's does). A Header is not changed by
// anything in this package after ReadHeader returns it, so it may be read
// from many goroutines. A Writer must be used by one goroutine at a time.
package safetensors
