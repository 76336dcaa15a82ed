package tensor

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Text formats t's values as NumPy and PyTorch print arrays, after a header
// word and before t's shape and dtype:
//
//	tensor([[ 1.0000, -2.5000],
//	        [    nan,    -inf]], shape=[2 2], dtype=float32)
//
// Brackets nest one level per dimension, columns are right-aligned to the
// widest element, and rows of a rank-3 or higher tensor are separated by
// blank lines as NumPy's are. Integers print in decimal. Float32 values
// print as PyTorch prints them: "2." when every value shown is a whole
// number, four decimals ("2.5000"), or scientific ("1.0000e-05") when the
// values span more than three orders of magnitude, pass 1e8 or fall below
// 1e-4; NaN, infinities and negative zero print as "nan", "inf", "-inf"
// and "-0.". A scalar prints its value alone, an empty tensor "[]".
//
// A tensor of more than 1,000 elements is abbreviated as NumPy's default
// does: each dimension longer than 6 shows its first 3 and last 3 entries
// around "...", and only the elements shown are read back.
//
// Text blocks until the values arrive or ctx ends. Like the other
// readbacks it is safe for concurrent use and with a concurrent Dispose of
// t. A disposed tensor gives ErrDisposed, and a tensor carrying an error
// gives that error; String, which never blocks, prints the header alone.
func (t *Tensor) Text(ctx context.Context) (string, error) {
	if !t.made() {
		return "", notMade("text")
	}
	if t.err != nil {
		return "", t.err
	}
	l := newTextLayout(t.shape)
	vals, err := l.read(ctx, t)
	if err != nil {
		return "", err
	}
	p := textPrinter{textLayout: l, vals: vals}
	p.fit(t.dtype)
	var b strings.Builder
	b.WriteString(textPrefix)
	if t.shape.Size() == 0 {
		b.WriteString("[]")
	} else {
		p.write(&b, 0, 0)
	}
	b.WriteString(", shape=" + t.shape.String() + ", dtype=" + t.dtype.String() + ")")
	return b.String(), nil
}

const (
	textPrefix    = "tensor("
	textThreshold = 1000 // more elements than this are abbreviated (NumPy's threshold)
	textEdgeItems = 3    // the entries shown at each end of an abbreviated dimension (NumPy's edgeitems)
	textReadGap   = 1024 // skipped elements a read spans rather than split in two
)

// textLayout says which elements Text shows.
type textLayout struct {
	shape   Shape
	strides []int // elements between consecutive indices of each dimension
	abbrev  bool
}

func newTextLayout(shape Shape) textLayout {
	l := textLayout{shape: shape, strides: make([]int, len(shape)), abbrev: shape.Size() > textThreshold}
	stride := 1
	for d := len(shape) - 1; d >= 0; d-- {
		l.strides[d] = stride
		stride *= shape[d]
	}
	return l
}

// cut reports whether dimension d skips entries.
func (l textLayout) cut(d int) bool { return l.abbrev && l.shape[d] > 2*textEdgeItems }

// whole reports whether the blocks at dimension d are shown whole: no
// dimension from d on skips entries.
func (l textLayout) whole(d int) bool {
	for ; d < len(l.shape); d++ {
		if l.cut(d) {
			return false
		}
	}
	return true
}

// each calls fn with the flat index of every element shown in the block at
// dimension d and flat index base, in order.
func (l textLayout) each(d, base int, fn func(int)) {
	if d == len(l.shape) {
		fn(base)
		return
	}
	for _, i := range l.indices(d) {
		l.each(d+1, base+i*l.strides[d], fn)
	}
}

// indices returns the entries of dimension d that are shown.
func (l textLayout) indices(d int) []int {
	n := l.shape[d]
	if !l.cut(d) {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	idx := make([]int, 0, 2*textEdgeItems)
	for i := range textEdgeItems {
		idx = append(idx, i)
	}
	for i := n - textEdgeItems; i < n; i++ {
		idx = append(idx, i)
	}
	return idx
}

// span is a run of elements read back: those from start (a flat index
// into the tensor) on, stored from at in the values read.
type span struct{ start, n, at int }

// spans returns the runs of elements the block at dimension d and flat
// index base needs, in order.
func (l textLayout) spans(d, base int, out []span) []span {
	if l.whole(d) {
		n := 1
		if d < len(l.shape) {
			n = l.shape[d] * l.strides[d]
		}
		if k := len(out) - 1; k >= 0 && base-(out[k].start+out[k].n) <= textReadGap {
			out[k].n = base + n - out[k].start // close enough: one read
			return out
		}
		return append(out, span{start: base, n: n})
	}
	for _, i := range l.indices(d) {
		out = l.spans(d+1, base+i*l.strides[d], out)
	}
	return out
}

// textValues are the elements Text read back, as bits.
type textValues struct {
	spans []span
	words []uint32
}

// at returns the element at flat index i, which must have been read.
func (v textValues) at(i int) uint32 {
	k, _ := slices.BinarySearchFunc(v.spans, i, func(s span, i int) int {
		switch {
		case s.start+s.n <= i:
			return -1
		case s.start > i:
			return 1
		}
		return 0
	})
	s := v.spans[k]
	return v.words[s.at+i-s.start]
}

// read reads back the elements l shows: every span is recorded under one
// hold of t's storage, then all are awaited.
func (l textLayout) read(ctx context.Context, t *Tensor) (textValues, error) {
	var v textValues
	if t.shape.Size() > 0 {
		v.spans = l.spans(0, 0, nil)
	}
	n := 0
	for i := range v.spans {
		v.spans[i].at = n
		n += v.spans[i].n
	}
	if t.dtype.narrow() { // whole, widened: its elements are not words
		words, err := widenedWords(ctx, t)
		if err != nil {
			return v, err
		}
		v.words = make([]uint32, n)
		for _, s := range v.spans {
			copy(v.words[s.at:s.at+s.n], words[s.start:s.start+s.n])
		}
		return v, nil
	}
	if err := t.holdForRead(); err != nil {
		return v, err
	}
	v.words = make([]uint32, n)
	var reads []func(context.Context) error
	for _, s := range v.spans {
		p := t.eng.dev.ReadAsyncInto(t.st.buf, uint64(4*s.start), wordBytes(v.words[s.at:s.at+s.n]))
		reads = append(reads, func(ctx context.Context) error { _, err := p.Await(ctx); return err })
	}
	t.st.release() // the copies are recorded: the buffer may go
	for _, await := range reads {
		if err := await(ctx); err != nil {
			return v, err
		}
	}
	fromGPUOrder(v.words)
	return v, nil
}

// textPrinter writes the elements of a textLayout.
type textPrinter struct {
	textLayout
	vals  textValues
	elem  func(bits uint32) string
	width int
}

// fit chooses how elements of dtype print and the column width, from the
// elements shown (a read may span others).
func (p *textPrinter) fit(dtype DType) {
	var shown []uint32
	if p.shape.Size() > 0 {
		p.each(0, 0, func(i int) { shown = append(shown, p.vals.at(i)) })
	}
	switch dtype {
	case Int32, Int8:
		p.elem = func(b uint32) string { return strconv.FormatInt(int64(int32(b)), 10) }
	case Uint32:
		p.elem = func(b uint32) string { return strconv.FormatUint(uint64(b), 10) }
	default:
		p.elem = floatFormat(shown)
	}
	for _, w := range shown {
		p.width = max(p.width, len(p.elem(w)))
	}
}

// floatFormat chooses PyTorch's notation for float32 values (as bits):
// whole numbers, four decimals, or scientific.
func floatFormat(words []uint32) func(uint32) string {
	whole := true
	lo, hi := math.Inf(1), 0.0
	for _, w := range words {
		v := float64(math.Float32frombits(w))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		whole = whole && v == math.Trunc(v)
		if a := math.Abs(v); a != 0 {
			lo, hi = min(lo, a), max(hi, a)
		}
	}
	sci := hi > 1e8 || (!whole && hi > 0 && (hi/lo > 1000 || lo < 1e-4))
	return func(w uint32) string {
		v := float64(math.Float32frombits(w))
		switch {
		case math.IsNaN(v):
			return "nan"
		case math.IsInf(v, 1):
			return "inf"
		case math.IsInf(v, -1):
			return "-inf"
		case sci:
			return strconv.FormatFloat(v, 'e', 4, 32)
		case whole:
			return strconv.FormatFloat(v, 'f', 0, 32) + "."
		}
		return strconv.FormatFloat(v, 'f', 4, 32)
	}
}

// write writes the block at dimension d and flat index base.
func (p *textPrinter) write(b *strings.Builder, d, base int) {
	if d == len(p.shape) {
		s := p.elem(p.vals.at(base))
		b.WriteString(strings.Repeat(" ", p.width-len(s)))
		b.WriteString(s)
		return
	}
	b.WriteByte('[')
	for j, i := range p.indices(d) {
		if j > 0 {
			p.sep(b, d)
		}
		if j == textEdgeItems && p.cut(d) {
			b.WriteString("...")
			p.sep(b, d)
		}
		p.write(b, d+1, base+i*p.strides[d])
	}
	b.WriteByte(']')
}

// sep separates two entries of dimension d: a comma and a space in the
// innermost dimension; a comma, a line per dimension below d, and the
// indent of the next bracket in the others.
func (p *textPrinter) sep(b *strings.Builder, d int) {
	rows := len(p.shape) - 1 - d
	if rows == 0 {
		b.WriteString(", ")
		return
	}
	b.WriteByte(',')
	b.WriteString(strings.Repeat("\n", rows))
	b.WriteString(strings.Repeat(" ", len(textPrefix)+d+1))
}
