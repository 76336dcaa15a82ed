package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Block is a kernel's uniform parameter block, encoded as the kernel's
// WGSL declares it. Bytes may be called concurrently, but not while the
// block is being filled.
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

// paramField is one WGSL member of a parameter block type.
type paramField struct {
	name  string
	index []int // of the Go field, through embedded structs
	kind  reflect.Kind
}

// paramFields caches the members of each block type (see fieldsOf).
var paramFields sync.Map // reflect.Type → []paramField

// fieldsOf returns the members of the block type t, a struct.
func fieldsOf(t reflect.Type) []paramField {
	if fs, ok := paramFields.Load(t); ok {
		return fs.([]paramField)
	}
	var fields []paramField
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			at := append(slices.Clip(index), i)
			switch f.Type.Kind() {
			case reflect.Struct:
				walk(f.Type, at)
			case reflect.Uint32, reflect.Int32, reflect.Float32:
				fields = append(fields, paramField{name: snake(f.Name), index: at, kind: f.Type.Kind()})
			case reflect.Slice:
				if f.Type.Elem().Kind() != reflect.Uint32 {
					panic(fmt.Sprintf("kernels: parameter field %s is a slice of %s, not of uint32", f.Name, f.Type.Elem()))
				}
				fields = append(fields, paramField{name: snake(f.Name), index: at, kind: reflect.Slice})
			default:
				panic(fmt.Sprintf("kernels: parameter field %s has type %s", f.Name, f.Type))
			}
		}
	}
	walk(t, nil)
	fs, _ := paramFields.LoadOrStore(t, fields)
	return fs.([]paramField)
}

// paramsLayout walks the members of the block p points to, in order,
// calling visit with each member, its value, its offset in bytes and, for
// a slice, its length in vec4s; it returns the block's size in bytes.
func paramsLayout(p any, visit func(f paramField, v reflect.Value, offset, vec4s int)) int {
	v := reflect.ValueOf(p).Elem()
	offset := 0
	for _, f := range fieldsOf(v.Type()) {
		fv := v.FieldByIndex(f.index)
		if f.kind != reflect.Slice {
			visit(f, fv, offset, 0)
			offset += 4
			continue
		}
		offset = roundUp(offset, 16)
		n := max(1, (fv.Len()+3)/4)
		visit(f, fv, offset, n)
		offset += 16 * n
	}
	return roundUp(offset, 16)
}

// declareParams is the WGSL declaration of p's block, struct Params.
func declareParams(p any) string {
	var b strings.Builder
	b.WriteString("struct Params {\n")
	paramsLayout(p, func(f paramField, _ reflect.Value, _, vec4s int) {
		fmt.Fprintf(&b, "\t%s: %s,\n", f.name, f.wgslType(vec4s))
	})
	b.WriteString("}\n")
	return b.String()
}

// wgslType is f's WGSL type, for a slice of vec4s vec4s.
func (f paramField) wgslType(vec4s int) string {
	switch f.kind {
	case reflect.Uint32:
		return "u32"
	case reflect.Int32:
		return "i32"
	case reflect.Float32:
		return "f32"
	}
	return fmt.Sprintf("array<vec4<u32>, %d>", vec4s)
}

// paramsSizeOf is the size in bytes of p's block.
func paramsSizeOf(p any) uint64 {
	return uint64(paramsLayout(p, func(paramField, reflect.Value, int, int) {}))
}

// encodeParams encodes p's block.
func encodeParams(p any) []byte {
	b := make([]byte, paramsSizeOf(p))
	paramsLayout(p, func(f paramField, v reflect.Value, offset, _ int) {
		switch f.kind {
		case reflect.Uint32:
			binary.LittleEndian.PutUint32(b[offset:], uint32(v.Uint()))
		case reflect.Int32:
			binary.LittleEndian.PutUint32(b[offset:], uint32(int32(v.Int())))
		case reflect.Float32:
			binary.LittleEndian.PutUint32(b[offset:], math.Float32bits(float32(v.Float())))
		case reflect.Slice:
			for i := range v.Len() {
				binary.LittleEndian.PutUint32(b[offset+4*i:], uint32(v.Index(i).Uint()))
			}
		}
	})
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
