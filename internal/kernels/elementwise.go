package kernels

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/wgtensor/wgtensor/wgpu"
)

// Elementwise is a kernel that evaluates a small program of elementwise
// ops for every element of one output shape, one thread per element: each
// node is an op (add, relu, a comparison, a generator such as fill) whose
// arguments are leaves (input buffers) or earlier nodes, and the nodes
// marked Store are written to output buffers. A run of ops fused into one
// kernel reads each input once and writes only the results still wanted;
// a single op is the program of one node.
//
// Bindings: the leaves in order (read-only), one output per stored node in
// node order (read-write), then the uniform block (see Params).
//
// Results do not depend on how ops are grouped. Each node is evaluated by
// a function of its own, exactly as a one-node program evaluates it, and a
// value passed from one node to another goes through an opaque identity:
// its bits are XORed with a uniform word that is always 0 (see passed).
// A store and a load keep every bit of a 32-bit word, and so does this:
// subnormals are not flushed and NaNs keep their payload. Compilers cannot
// see through a value known only at run time, so they neither contract a
// product in one node and a sum in the next into a fused multiply-add
// (which rounds once where separate ops round twice) nor merge a compare
// and a select into a min or max (which may treat NaN and -0 differently),
// nor fold one node's conversion into the next.
type Elementwise struct {
	Leaves []Leaf
	Nodes  []Node
	// Rank is the output's rank. Strided leaves are read through it; it is
	// ignored when no leaf is strided.
	Rank int
	// Vec4 makes each thread compute four consecutive elements, reading and
	// writing vec4s: one wide access costs a CPU adapter much less than four
	// narrow ones. It needs a multiple of four elements; the thread count n
	// is then a quarter of the elements. A strided leaf must then either be
	// Splat, or have the four elements of a thread at consecutive offsets
	// starting at a multiple of four (its innermost stride 1 and its others
	// multiples of four, over an output whose last dimension is a multiple
	// of four: a bias added along the last axis), read as one vec4.
	Vec4 bool
}

// Storage is how a leaf's or a stored node's elements lie in memory.
type Storage uint8

// The storages. A half-width storage holds f32 values (the leaf's or
// node's Type is F32), two to a 32-bit word, element 2k in the low half,
// converted as half.wgsl converts (Half). Int8 holds i32 values (Type
// I32) in [-128, 127], four to a word, element 4k in the lowest byte, as
// two's complement bytes: a value stored to it keeps its low 8 bits, as a
// C cast to int8_t does. A program that stores a narrow storage computes
// a word's worth of elements per thread (see ElementsPerThread), so that
// each thread writes whole words; the padding of a count's last word is
// written as 0.
const (
	Word     Storage = iota // one element per 32-bit word
	Float16                 // IEEE 754 binary16 bits
	BFloat16                // bfloat16 bits
	Int8                    // two's complement bytes
)

func (s Storage) String() string {
	switch s {
	case Float16:
		return "float16"
	case BFloat16:
		return "bfloat16"
	case Int8:
		return "int8"
	}
	return "word"
}

// PerWord is how many elements of s one 32-bit word holds: 1, 2 or 4.
func (s Storage) PerWord() int {
	switch s {
	case Float16, BFloat16:
		return 2
	case Int8:
		return 4
	}
	return 1
}

// unpack, pack and round name s's helpers (storageHelpers): unpack(w, k)
// is element k of word w, pack(a, b, ...) packs PerWord values into a
// word, and round(a) is a rounded (or for Int8 wrapped) to s.
func (s Storage) unpack() string { return s.helper("load") }
func (s Storage) pack() string   { return s.helper("pack") }
func (s Storage) round() string  { return s.helper("round") }

// helper is the name of s's helper that does what.
func (s Storage) helper(what string) string {
	switch s {
	case BFloat16:
		return what + "_bf16"
	case Int8:
		return what + "_i8"
	}
	return what + "_f16"
}

// element is the WGSL reading element index (a u32 expression, counted in
// elements) of the array of words name in storage s.
func (s Storage) element(name, index string) string {
	if strings.ContainsAny(index, " +-*/") {
		index = "(" + index + ")"
	}
	switch s.PerWord() {
	case 2:
		return fmt.Sprintf("%s(%s[%s >> 1u], %s & 1u)", s.unpack(), name, index, index)
	case 4:
		return fmt.Sprintf("%s(%s[%s >> 2u], %s & 3u)", s.unpack(), name, index, index)
	}
	return fmt.Sprintf("%s[%s]", name, index)
}

// storageLib is the WGSL of the helpers of the storages that are not
// Word among storages, each library once.
func storageLib(storages ...Storage) string {
	var half, bytes bool
	for _, s := range storages {
		half = half || s == Float16 || s == BFloat16
		bytes = bytes || s == Int8
	}
	lib := ""
	if half {
		lib += Half + halfHelpers
	}
	if bytes {
		lib += int8Helpers
	}
	return lib
}

// halfHelpers unpack element hi (0 or 1) of a word, pack two values into
// one and round a value to the format, for each half-width storage.
const halfHelpers = `fn round_f16(a: f32) -> f32 { return half_to_f32(f32_to_half(a)); }
fn round_bf16(a: f32) -> f32 { return bfloat16_to_f32(f32_to_bfloat16(a)); }
fn load_f16(w: u32, hi: u32) -> f32 { return half_to_f32((w >> (hi * 16u)) & 0xffffu); }
fn pack_f16(a: f32, b: f32) -> u32 { return f32_to_half(a) | (f32_to_half(b) << 16u); }
fn load_bf16(w: u32, hi: u32) -> f32 { return bfloat16_to_f32((w >> (hi * 16u)) & 0xffffu); }
fn load4_f16(a: u32, b: u32) -> vec4<f32> { return vec4<f32>(load_f16(a, 0u), load_f16(a, 1u), load_f16(b, 0u), load_f16(b, 1u)); }
fn load4_bf16(a: u32, b: u32) -> vec4<f32> { return vec4<f32>(load_bf16(a, 0u), load_bf16(a, 1u), load_bf16(b, 0u), load_bf16(b, 1u)); }
fn pack_bf16(a: f32, b: f32) -> u32 { return f32_to_bfloat16(a) | (f32_to_bfloat16(b) << 16u); }
`

// int8Helpers unpack byte k (0 to 3) of a word, sign-extended, all four
// bytes of a word (load4_i8, as i32s), pack four values' low bytes into a
// word and wrap a value to its low byte, sign-extended: shifts only, on
// every backend.
const int8Helpers = `fn load_i8(w: u32, k: u32) -> i32 { return bitcast<i32>(w << (24u - 8u * k)) >> 24u; }
fn load4_i8(w: u32) -> vec4<i32> { let v = bitcast<i32>(w); return vec4<i32>(v << 24u, v << 16u, v << 8u, v) >> vec4<u32>(24u); }
fn pack_i8(a: i32, b: i32, c: i32, d: i32) -> u32 { return (bitcast<u32>(a) & 0xffu) | ((bitcast<u32>(b) & 0xffu) << 8u) | ((bitcast<u32>(c) & 0xffu) << 16u) | (bitcast<u32>(d) << 24u); }
fn round_i8(a: i32) -> i32 { return (a << 24u) >> 24u; }
`

// Leaf is an input buffer of an Elementwise program.
type Leaf struct {
	Type Type
	// Storage is how its elements lie in memory; a half-width one needs
	// Type F32, Int8 Type I32.
	Storage Storage
	// Strided leaves are read through per-dimension strides over the
	// output's shape (0 where the leaf is broadcast); the others have the
	// output's shape and are read at the flat index.
	Strided bool
	// Splat marks a strided leaf of a Vec4 program whose innermost stride
	// is 0 over an output whose last dimension is a multiple of four (a
	// scalar, a column broadcast along rows): the four elements of a thread
	// share one value of it, read once.
	Splat bool
	// Product marks the leaf of a MatMulEpilogue's program that is the
	// product's element itself: it has no binding and is read from the
	// product kernel's registers.
	Product bool
}

// Ref names the value an argument comes from: leaf Index if Leaf, else the
// node at Index, which must come earlier in the program.
type Ref struct {
	Leaf  bool
	Index int
}

// Node is one op of an Elementwise program.
type Node struct {
	Name string // the op, e.g. "add", for kernel names and errors
	Out  Type
	// Expr is a WGSL expression of type Out over the arguments a0, a1, ...,
	// the flat index i (u32), the node's scalars s (vec4<f32>) and its words
	// h2 and h3 (u32).
	Expr string
	// Helpers holds the WGSL functions Expr calls. Nodes may share
	// functions: a program includes each one once (helperFuncs).
	Helpers string
	Args    []Ref
	Store   bool // write the value to an output buffer
	// Storage is the width of the node's values: with a half-width one
	// (and Out F32) the node's result is rounded to it, for the nodes that
	// read it as for the output it is stored to, so that a program gives
	// the bits of its ops run one by one, each writing a tensor of that
	// dtype.
	Storage Storage
}

// HasParams reports whether n reads scalars or words (names s, h2 or h3),
// and so takes a parameter slot. It scans the expression's words by hand:
// it runs several times for every op recorded.
func (n Node) HasParams() bool {
	e := n.Expr
	for i := 0; i < len(e); {
		if !isWordByte(e[i]) {
			i++
			continue
		}
		j := i
		for j < len(e) && isWordByte(e[j]) {
			j++
		}
		if w := e[i:j]; w == "s" || w == "h2" || w == "h3" {
			return true
		}
		i = j
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// NodeParams are one node's scalars and words.
type NodeParams struct {
	Scalars [4]float32
	Words   [2]uint32 // h2 and h3
}

// Name names the kernel: the op of a one-node program, else the ops joined,
// e.g. "mul+add+relu".
func (k Elementwise) Name() string {
	names := make([]string, len(k.Nodes))
	for i, n := range k.Nodes {
		names[i] = n.Name
	}
	return strings.Join(names, "+")
}

// strided counts the strided leaves.
func (k Elementwise) strided() int {
	n := 0
	for _, l := range k.Leaves {
		if l.Strided {
			n++
		}
	}
	return n
}

// MetaWords is how many metadata words k takes: the output's dimensions,
// then the strides of each strided leaf, in leaf order.
func (k Elementwise) MetaWords() int {
	if k.strided() == 0 {
		return 0
	}
	return k.Rank * (1 + k.strided())
}

// paramSlots is how many nodes take a parameter slot.
func (k Elementwise) paramSlots() int {
	n := 0
	for _, nd := range k.Nodes {
		if nd.HasParams() {
			n++
		}
	}
	return n
}

// Key identifies k's pipeline: a digest of everything its source depends on.
func (k Elementwise) Key() string {
	h := sha256.New()
	fmt.Fprintf(h, "rank %d vec4 %v\n", k.Rank, k.Vec4)
	for _, l := range k.Leaves {
		fmt.Fprintf(h, "leaf %s %v %v %v %v\n", l.Type, l.Strided, l.Splat, l.Product, l.Storage)
	}
	for _, n := range k.Nodes {
		d := helpersInfoOf(n.Helpers).digest
		fmt.Fprintf(h, "node %s %v %v %q %x", n.Out, n.Store, n.Storage, n.Expr, d[:])
		for _, a := range n.Args {
			fmt.Fprintf(h, " %v:%d", a.Leaf, a.Index)
		}
		h.Write([]byte{'\n'})
	}
	return fmt.Sprintf("elementwise/%d/%s", len(k.Nodes), hex.EncodeToString(h.Sum(nil)[:12]))
}

// helpersInfos memoises helpersInfoOf: an op's Helpers are one of a few
// library texts (the tensor package's numerics library is about 20 KB, and
// every op of a device that flushes subnormals names it), and Key and
// ThreadWork run for every op recorded.
var helpersInfos sync.Map // helpers text -> helpersInfo

// helpersInfo is what Key and ThreadWork need of a node's Helpers.
type helpersInfo struct {
	digest [sha256.Size]byte
	philox bool // it defines the Philox generator
}

// helpersInfoOf returns helpers' info, remembered for texts longer than a
// line.
func helpersInfoOf(helpers string) helpersInfo {
	if len(helpers) >= 256 {
		if i, ok := helpersInfos.Load(helpers); ok {
			return i.(helpersInfo)
		}
	}
	i := helpersInfo{digest: sha256.Sum256([]byte(helpers)), philox: strings.Contains(helpers, "fn philox(")}
	if len(helpers) >= 256 {
		helpersInfos.Store(helpers, i)
	}
	return i
}

// Params encodes the uniform block: the end n of the threads [first, n)
// the dispatch runs (a large program is split into several dispatches, see
// Split), row threads per step of the grid's y (see Grid), each
// parametrised node's parameters in node order (params holds one entry per
// node; those of nodes without parameters are ignored), then the metadata
// words.
func (k Elementwise) Params(first, n, row uint32, params []NodeParams, meta []uint32) []byte {
	slots := max(1, k.paramSlots())
	b := make([]byte, k.paramsSize())
	binary.LittleEndian.PutUint32(b[0:], n)
	binary.LittleEndian.PutUint32(b[4:], row)
	// b[8:12] is zero: the word that values passed between nodes are XORed with.
	binary.LittleEndian.PutUint32(b[12:], first)
	s, w := b[16:], b[16+16*slots:]
	slot := 0
	for i, nd := range k.Nodes {
		if !nd.HasParams() {
			continue
		}
		for j, f := range params[i].Scalars {
			binary.LittleEndian.PutUint32(s[16*slot+4*j:], math.Float32bits(f))
		}
		binary.LittleEndian.PutUint32(w[16*slot:], params[i].Words[0])
		binary.LittleEndian.PutUint32(w[16*slot+4:], params[i].Words[1])
		slot++
	}
	m := b[16+32*slots:]
	for i, v := range meta {
		binary.LittleEndian.PutUint32(m[4*i:], v)
	}
	return b
}

// paramsSize is the size in bytes of k's uniform block: the header, a vec4
// of scalars and one of words per parametrised node (at least one each),
// then the metadata words in whole vec4s (at least one).
func (k Elementwise) paramsSize() int {
	return 16 + 32*max(1, k.paramSlots()) + 16*max(1, (k.MetaWords()+3)/4)
}

// Spec generates k's kernel.
func (k Elementwise) Spec() wgpu.KernelSpec {
	slots := max(1, k.paramSlots())
	var b strings.Builder
	fmt.Fprintf(&b, `struct Params {
	n: u32, row: u32, zero: u32, first: u32,
	s: array<vec4<f32>, %d>,
	w: array<vec4<u32>, %d>,
	m: array<vec4<u32>, %d>,
}
`, slots, slots, max(1, (k.MetaWords()+3)/4))
	access := k.declare(&b, 0)
	fmt.Fprintf(&b, "@group(0) @binding(%d) var<uniform> p: Params;\n", len(access))
	k.functions(&b)
	fmt.Fprintf(&b, `@compute @workgroup_size(%d)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let t = g.x + g.y * p.row + p.first;
`, WorkgroupSize)
	switch per := k.ElementsPerThread(); {
	case k.Vec4:
		b.WriteString("\tif (t >= p.n) { return; }\n")
		k.vec4Body(&b)
	case per > 1:
		k.groupBody(&b, per)
	default:
		b.WriteString("\tif (t >= p.n) { return; }\n")
		k.scalarBody(&b)
	}
	b.WriteString("}\n")
	return wgpu.KernelSpec{Name: k.Name(), Key: k.Key(), Source: b.String(), Bindings: access, Params: true, ParamsSize: uint64(k.paramsSize())}
}

// declare writes the bindings of k's leaves (but Product leaves, which
// have none) and of its stored nodes' outputs, numbered from first, and
// returns their access modes.
func (k Elementwise) declare(b *strings.Builder, first int) []wgpu.Access {
	var access []wgpu.Access
	elem := func(t Type) string {
		if k.Vec4 {
			return fmt.Sprintf("vec4<%s>", t)
		}
		return string(t)
	}
	for j, l := range k.Leaves {
		if l.Product {
			continue
		}
		t := elem(l.Type)
		switch {
		case l.Storage.PerWord() == 2 && k.Vec4 && !l.Splat:
			t = "vec2<u32>" // four elements
		case l.Storage != Word:
			t = "u32"
		case l.Splat:
			t = string(l.Type)
		}
		fmt.Fprintf(b, "@group(0) @binding(%d) var<storage, read> in%d: array<%s>;\n", first+len(access), j, t)
		access = append(access, wgpu.ReadOnly)
	}
	for i, n := range k.Nodes {
		if n.Store {
			t := elem(n.Out)
			switch {
			case n.Storage.PerWord() == 2 && k.Vec4:
				t = "vec2<u32>"
			case n.Storage != Word:
				t = "u32"
			}
			fmt.Fprintf(b, "@group(0) @binding(%d) var<storage, read_write> out%d: array<%s>;\n", first+len(access), i, t)
			access = append(access, wgpu.ReadWrite)
		}
	}
	return access
}

// functions writes the helper functions k's nodes call, each once, and a
// function per node.
func (k Elementwise) functions(b *strings.Builder) {
	b.WriteString(storageLib(k.storages()...))
	seen := map[string]bool{}
	for _, n := range k.Nodes {
		for _, f := range helperFuncs(n.Helpers) {
			if !seen[f] {
				seen[f] = true
				b.WriteString(f)
				b.WriteByte('\n')
			}
		}
	}
	for i, n := range k.Nodes {
		fmt.Fprintf(b, "fn node%d(", i)
		for j, a := range n.Args {
			fmt.Fprintf(b, "a%d: %s, ", j, k.typeOf(a))
		}
		expr := n.Expr
		if n.Storage != Word {
			expr = n.Storage.round() + "(" + expr + ")"
		}
		fmt.Fprintf(b, "i: u32, s: vec4<f32>, h2: u32, h3: u32) -> %s { return %s; }\n", n.Out, expr)
	}
}

// scalarBody writes main's body for one element per thread: element t.
func (k Elementwise) scalarBody(b *strings.Builder) {
	b.WriteString("\tlet i = t;\n")
	k.stridedOffsets(b, "i", "m")
	k.scalarElement(b, elementwiseParams)
}

// scalarElement writes the program for element i, whose strided leaves'
// offsets the caller wrote (o0, o1, ...): its leaves read (a Product leaf
// from the value v, through passed), its nodes evaluated and the stored
// ones written. params is as nodeCalls takes it.
func (k Elementwise) scalarElement(b *strings.Builder, params func(slot int) string) {
	js := 0
	for j, l := range k.Leaves {
		switch {
		case l.Product:
			fmt.Fprintf(b, "\tlet l%d = %s;\n", j, passed(l.Type, "v"))
		case l.Strided:
			fmt.Fprintf(b, "\tlet l%d = %s;\n", j, l.Storage.element(fmt.Sprintf("in%d", j), fmt.Sprintf("o%d", js)))
			js++
		default:
			fmt.Fprintf(b, "\tlet l%d = %s;\n", j, l.Storage.element(fmt.Sprintf("in%d", j), "i"))
		}
	}
	k.nodeCalls(b, "", params)
	for i, n := range k.Nodes {
		if n.Store {
			fmt.Fprintf(b, "\tout%d[i] = v%d;\n", i, i)
		}
	}
}

// vec4Body writes main's body for four elements per thread: elements 4t
// to 4t+3, each leaf read and each result written as one vec4.
func (k Elementwise) vec4Body(b *strings.Builder) {
	k.stridedOffsets(b, "4u * t", "m")
	js := 0
	for j, l := range k.Leaves {
		in := fmt.Sprintf("in%d", j)
		switch {
		case l.Splat:
			fmt.Fprintf(b, "\tlet l%d = vec4<%s>(%s);\n", j, l.Type, l.Storage.element(in, fmt.Sprintf("o%d", js)))
		case l.Strided:
			k.vec4Leaf(b, j, l, fmt.Sprintf("%s[o%d / 4u]", in, js))
		default:
			k.vec4Leaf(b, j, l, in+"[t]")
		}
		if l.Strided {
			js++
		}
	}
	for c, lane := range []string{".x", ".y", ".z", ".w"} {
		fmt.Fprintf(b, "\tlet i%d = 4u * t + %du;\n", c, c)
		k.nodeCalls(b, lane, elementwiseParams)
	}
	for i, n := range k.Nodes {
		switch {
		case !n.Store:
		case n.Storage.PerWord() == 2:
			pk := n.Storage.pack()
			fmt.Fprintf(b, "\tout%d[t] = vec2<u32>(%s(v%d_x, v%d_y), %s(v%d_z, v%d_w));\n", i, pk, i, i, pk, i, i)
		case n.Storage.PerWord() == 4:
			fmt.Fprintf(b, "\tout%d[t] = %s(v%d_x, v%d_y, v%d_z, v%d_w);\n", i, n.Storage.pack(), i, i, i, i)
		default:
			fmt.Fprintf(b, "\tout%d[t] = vec4<%s>(v%d_x, v%d_y, v%d_z, v%d_w);\n", i, n.Out, i, i, i, i)
		}
	}
}

// vec4Leaf writes the four elements of leaf j a Vec4 thread reads from
// word, the vec4 (Word), vec2<u32> (half-width) or u32 (Int8) holding
// them.
func (k Elementwise) vec4Leaf(b *strings.Builder, j int, l Leaf, word string) {
	switch l.Storage.PerWord() {
	case 2:
		u := l.Storage.unpack()
		fmt.Fprintf(b, "\tlet w%d = %s;\n\tlet l%d = vec4<f32>(%s(w%d.x, 0u), %s(w%d.x, 1u), %s(w%d.y, 0u), %s(w%d.y, 1u));\n", j, word, j, u, j, u, j, u, j, u, j)
	case 4:
		fmt.Fprintf(b, "\tlet l%d = load4_i8(%s);\n", j, word)
	default:
		fmt.Fprintf(b, "\tlet l%d = %s;\n", j, word)
	}
}

// groupBody writes main's body for per (2 or 4) consecutive elements per
// thread, for programs that store narrow values (see ElementsPerThread):
// elements i0 = per·t to i<per-1>, each narrow output written as whole
// words. Where the count p.n ends inside a thread's group, the elements
// past it (ok<c> false) read their leaves at i0 again, are not written to
// word outputs, and are written as 0 to the padding of narrow ones.
func (k Elementwise) groupBody(b *strings.Builder, per int) {
	fmt.Fprintf(b, "\tif (%du * t >= p.n) { return; }\n\tlet i0 = %du * t;\n", per, per)
	for c := 1; c < per; c++ {
		fmt.Fprintf(b, "\tlet ok%d = i0 + %du < p.n;\n\tlet i%d = select(i0, i0 + %du, ok%d);\n", c, c, c, c, c)
	}
	for c := range per {
		k.stridedOffsetsNamed(b, fmt.Sprintf("i%d", c), "m", fmt.Sprintf("_%d", c))
	}
	js := 0
	for j, l := range k.Leaves {
		in := fmt.Sprintf("in%d", j)
		elems := make([]string, per)
		for c := range per {
			at := fmt.Sprintf("i%d", c)
			if l.Strided {
				at = fmt.Sprintf("o%d_%d", js, c)
			}
			elems[c] = l.Storage.element(in, at)
		}
		switch {
		case !l.Strided && l.Storage.PerWord() == per && per == 2:
			u := l.Storage.unpack()
			fmt.Fprintf(b, "\tlet w%d = %s[t];\n\tlet l%d = vec2<f32>(%s(w%d, 0u), %s(w%d, 1u));\n", j, in, j, u, j, u, j)
		case !l.Strided && l.Storage.PerWord() == per:
			fmt.Fprintf(b, "\tlet l%d = load4_i8(%s[t]);\n", j, in)
		default:
			fmt.Fprintf(b, "\tlet l%d = vec%d<%s>(%s);\n", j, per, l.Type, strings.Join(elems, ", "))
		}
		if l.Strided {
			js++
		}
	}
	for _, lane := range []string{".x", ".y", ".z", ".w"}[:per] {
		k.nodeCalls(b, lane, elementwiseParams)
	}
	for i, n := range k.Nodes {
		if !n.Store {
			continue
		}
		v := func(c int) string { // lane c's value, or 0 past the count
			name := fmt.Sprintf("v%d_%c", i, lanes[c])
			if c == 0 {
				return name
			}
			return fmt.Sprintf("select(%s(0), %s, ok%d)", n.Out, name, c)
		}
		switch n.Storage.PerWord() {
		case 1:
			fmt.Fprintf(b, "\tout%d[i0] = v%d_x;\n", i, i)
			for c := 1; c < per; c++ {
				fmt.Fprintf(b, "\tif (ok%d) { out%d[i%d] = v%d_%c; }\n", c, i, c, i, lanes[c])
			}
		case 2:
			fmt.Fprintf(b, "\tout%d[%s] = %s(%s, %s);\n", i, map[bool]string{true: "t", false: "2u * t"}[per == 2], n.Storage.pack(), v(0), v(1))
			if per == 4 {
				fmt.Fprintf(b, "\tif (ok2) { out%d[2u * t + 1u] = %s(v%d_z, %s); }\n", i, n.Storage.pack(), i, v(3))
			}
		default:
			fmt.Fprintf(b, "\tout%d[t] = %s(%s, %s, %s, %s);\n", i, n.Storage.pack(), v(0), v(1), v(2), v(3))
		}
	}
}

// ElementsPerThread is how many consecutive elements a thread of k
// computes: 4 with Vec4; else, where it stores a narrow value, the most
// elements a word of a stored node's storage holds (2 for half-width, 4
// for Int8), so that a thread writes whole words (the thread count is
// then the element count divided by it, rounded up, and p.n the element
// count); else 1.
func (k Elementwise) ElementsPerThread() int {
	if k.Vec4 {
		return 4
	}
	per := 1
	for _, n := range k.Nodes {
		if n.Store {
			per = max(per, n.Storage.PerWord())
		}
	}
	return per
}

// storages lists the storages of k's leaves and nodes.
func (k Elementwise) storages() []Storage {
	var ss []Storage
	for _, l := range k.Leaves {
		ss = append(ss, l.Storage)
	}
	for _, n := range k.Nodes {
		ss = append(ss, n.Storage)
	}
	return ss
}

// stridedOffsets writes, if k has strided leaves, the offset o<j> of
// each strided leaf j (counted among the strided ones) at the element
// whose flat index is the expression index, walking the output's
// dimensions from the innermost. meta names the uniform member holding the
// metadata words (see MetaWords).
func (k Elementwise) stridedOffsets(b *strings.Builder, index, meta string) {
	k.stridedOffsetsNamed(b, index, meta, "")
}

// stridedOffsetsNamed is stridedOffsets with suffix after the names of the
// offsets and of the remainder, so that a thread can hold the offsets of
// two elements.
func (k Elementwise) stridedOffsetsNamed(b *strings.Builder, index, meta, suffix string) {
	ns := k.strided()
	if ns == 0 {
		return
	}
	fmt.Fprintf(b, "\tvar rem%s = %s;\n", suffix, index)
	for j := range ns {
		fmt.Fprintf(b, "\tvar o%d%s = 0u;\n", j, suffix)
	}
	for d := k.Rank - 1; d >= 0; d-- {
		fmt.Fprintf(b, "\t{ let dim = %s; let c = rem%s %% dim; rem%s = rem%s / dim;", at(meta, d), suffix, suffix, suffix)
		for j := range ns {
			fmt.Fprintf(b, " o%d%s += c * %s;", j, suffix, at(meta, k.Rank*(1+j)+d))
		}
		b.WriteString(" }\n")
	}
}

// matrixOffsets writes, if k has strided leaves, the offset o<j> of each
// strided leaf j (counted among the strided ones) at row r and column col
// of matrix z of an output of rank k.Rank ≥ 2 (its last two dimensions a
// matrix's): z walked over the batch dimensions, r and col multiplied by
// the strides of the last two, with no division where there are none.
// meta names the uniform member holding the metadata words.
func (k Elementwise) matrixOffsets(b *strings.Builder, meta string) {
	ns := k.strided()
	if ns == 0 {
		return
	}
	for j := range ns {
		fmt.Fprintf(b, "\tvar o%d = r * %s + col * %s;\n", j, at(meta, k.Rank*(1+j)+k.Rank-2), at(meta, k.Rank*(1+j)+k.Rank-1))
	}
	if k.Rank > 2 {
		b.WriteString("\tvar rem = z;\n")
	}
	for d := k.Rank - 3; d >= 0; d-- {
		fmt.Fprintf(b, "\t{ let dim = %s; let c = rem %% dim; rem = rem / dim;", at(meta, d))
		for j := range ns {
			fmt.Fprintf(b, " o%d += c * %s;", j, at(meta, k.Rank*(1+j)+d))
		}
		b.WriteString(" }\n")
	}
}

// nodeCalls writes a let for each node's value. lane is "" for one element
// per thread, else the component (".x", ...) of the leaves' vec4s that the
// values are for; their names and index then carry the lane. params gives
// the scalars and words arguments of the node in parameter slot slot.
func (k Elementwise) nodeCalls(b *strings.Builder, lane string, params func(slot int) string) {
	suffix, index := "", "i"
	if lane != "" {
		suffix = "_" + lane[1:]
		index = fmt.Sprintf("i%d", strings.Index("xyzw", lane[1:]))
	}
	slot := 0
	for i, n := range k.Nodes {
		fmt.Fprintf(b, "\tlet v%d%s = node%d(", i, suffix, i)
		for _, a := range n.Args {
			switch {
			case a.Leaf:
				fmt.Fprintf(b, "l%d%s, ", a.Index, lane)
			default:
				fmt.Fprintf(b, "%s, ", passed(k.Nodes[a.Index].Out, fmt.Sprintf("v%d%s", a.Index, suffix)))
			}
		}
		if n.HasParams() {
			fmt.Fprintf(b, "%s, %s);\n", index, params(slot))
			slot++
		} else {
			fmt.Fprintf(b, "%s, vec4<f32>(), 0u, 0u);\n", index)
		}
	}
}

// elementwiseParams is the arguments of the node in parameter slot slot
// of an Elementwise kernel: its scalars and words in the uniform block.
func elementwiseParams(slot int) string {
	return fmt.Sprintf("p.s[%d], p.w[%d].x, p.w[%d].y", slot, slot, slot)
}

// passed is the expression that hands value v of type t from one node to
// another: v itself, through an identity the compiler cannot see through
// (see Elementwise).
func passed(t Type, v string) string {
	if t == U32 {
		return fmt.Sprintf("(%s ^ p.zero)", v)
	}
	return fmt.Sprintf("bitcast<%s>(bitcast<u32>(%s) ^ p.zero)", t, v)
}

// typeOf is the type of the value r names.
func (k Elementwise) typeOf(r Ref) Type {
	if r.Leaf {
		return k.Leaves[r.Index].Type
	}
	return k.Nodes[r.Index].Out
}

// Philox is the WGSL of the Philox4x32-10 counter-based generator (Salmon
// et al., "Parallel random numbers: as easy as 1, 2, 3", 2011):
// philox(counter, key) returns four independent 32-bit words, and unit(x)
// maps a word to [0, 1). It uses only 32-bit integer arithmetic, so every
// backend produces the same bits. Its source is philox.wgsl; nodes include
// it in their Helpers.
var Philox = mustRead("philox.wgsl")

// Half is the WGSL of the conversions between f32 and the half-width
// floats (half_to_f32, f32_to_half, bfloat16_to_f32, f32_to_bfloat16), in
// integer arithmetic so that every backend gives the bits of Go's
// internal/half. Its source is half.wgsl.
var Half = mustRead("half.wgsl")

// helperFuncs cuts WGSL helper source into its top-level declarations,
// each starting at a line that begins with "fn", "const" or "struct", so
// that a program can include each once: two nodes whose helpers share a
// function (RandUniform's and RandNormal's both hold Philox) would
// otherwise redefine it, and the kernel would not compile.
func helperFuncs(src string) []string {
	var funcs []string
	var cur strings.Builder
	flush := func() {
		if f := strings.TrimSpace(cur.String()); f != "" {
			funcs = append(funcs, f)
		}
		cur.Reset()
	}
	for line := range strings.Lines(src) {
		if strings.HasPrefix(line, "fn ") || strings.HasPrefix(line, "const ") || strings.HasPrefix(line, "struct ") {
			flush()
		}
		cur.WriteString(line)
	}
	flush()
	return funcs
}
