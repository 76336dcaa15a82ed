package shaders

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"
	"unicode"
)

// Block is a kernel's uniform parameter block, encoded as the kernel's
// WGSL declares it.
type Block interface {
	Bytes() []byte
}

// Range says which items (threads or rows) of a one-dimensional kernel a
// dispatch runs: those from First up to End, Row of them per step of the
// grid's y (see Grid). A large op is split into several dispatches (see
// Split) that differ only in their Range.
type Range struct {
	First, End, Row uint32
}

// Ranged is the parameter block of a kernel that runs a range of items:
// one that embeds Range.
type Ranged interface {
	Block
	ItemRange() *Range
}

// ItemRange returns r, for the dispatcher to fill in.
func (r *Range) ItemRange() *Range { return r }

// A parameter block is a Go struct, declared once: its fields are uint32,
// int32 or float32 words, slices of uint32 (metadata of a length the
// kernel's variant fixes, e.g. one word per dimension), or an embedded
// struct of such fields. Both the kernel's WGSL struct (declareParams) and
// the bytes (encodeParams) are derived from it, by the same layout
// (paramsLayout), so that they cannot disagree. A field's WGSL name is its
// Go name in snake case (SrcOffset: src_offset).
//
// The layout follows WGSL's uniform rules: each word takes 4 bytes in
// field order; a slice is an array<vec4<u32>, n> of at least one vec4,
// aligned to 16 bytes (its word i is p.name[i / 4][i % 4], see at); the
// struct's size is rounded up to 16.

// paramField is one WGSL member of a parameter block.
type paramField struct {
	name   string
	value  reflect.Value
	offset int
	vec4s  int // for a slice: its length in vec4s
}

// paramsLayout lays out the block p points to (a pointer to a struct) and
// returns its members and size in bytes.
func paramsLayout(p any) ([]paramField, int) {
	v := reflect.ValueOf(p)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	var fields []paramField
	offset := 0
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for i := range v.NumField() {
			f, fv := v.Type().Field(i), v.Field(i)
			switch fv.Kind() {
			case reflect.Struct:
				walk(fv)
			case reflect.Uint32, reflect.Int32, reflect.Float32:
				fields = append(fields, paramField{name: snake(f.Name), value: fv, offset: offset})
				offset += 4
			case reflect.Slice:
				if fv.Type().Elem().Kind() != reflect.Uint32 {
					panic(fmt.Sprintf("shaders: parameter field %s is a slice of %s, not of uint32", f.Name, fv.Type().Elem()))
				}
				offset = roundUp(offset, 16)
				n := max(1, (fv.Len()+3)/4)
				fields = append(fields, paramField{name: snake(f.Name), value: fv, offset: offset, vec4s: n})
				offset += 16 * n
			default:
				panic(fmt.Sprintf("shaders: parameter field %s has type %s", f.Name, fv.Type()))
			}
		}
	}
	walk(v)
	return fields, roundUp(offset, 16)
}

// declareParams is the WGSL declaration of p's block, struct Params.
func declareParams(p any) string {
	fields, _ := paramsLayout(p)
	var b strings.Builder
	b.WriteString("struct Params {\n")
	for _, f := range fields {
		fmt.Fprintf(&b, "\t%s: %s,\n", f.name, f.wgslType())
	}
	b.WriteString("}\n")
	return b.String()
}

// wgslType is f's WGSL type.
func (f paramField) wgslType() string {
	switch f.value.Kind() {
	case reflect.Uint32:
		return "u32"
	case reflect.Int32:
		return "i32"
	case reflect.Float32:
		return "f32"
	}
	return fmt.Sprintf("array<vec4<u32>, %d>", f.vec4s)
}

// paramsSizeOf is the size in bytes of p's block.
func paramsSizeOf(p any) uint64 {
	_, size := paramsLayout(p)
	return uint64(size)
}

// encodeParams encodes p's block.
func encodeParams(p any) []byte {
	fields, size := paramsLayout(p)
	b := make([]byte, size)
	for _, f := range fields {
		switch f.value.Kind() {
		case reflect.Uint32:
			binary.LittleEndian.PutUint32(b[f.offset:], uint32(f.value.Uint()))
		case reflect.Int32:
			binary.LittleEndian.PutUint32(b[f.offset:], uint32(int32(f.value.Int())))
		case reflect.Float32:
			binary.LittleEndian.PutUint32(b[f.offset:], math.Float32bits(float32(f.value.Float())))
		case reflect.Slice:
			for i := range f.value.Len() {
				binary.LittleEndian.PutUint32(b[f.offset+4*i:], uint32(f.value.Index(i).Uint()))
			}
		}
	}
	return b
}

// at is the WGSL expression of word i of the metadata member name.
func at(name string, i int) string { return fmt.Sprintf("p.%s[%d][%d]", name, i/4, i%4) }

// snake converts a Go field name to snake case: SrcOffset to src_offset,
// KEnd to k_end, M to m.
func snake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }
