package tensor

import (
	"compress/gzip"
	"io"
	"runtime"
	"time"
)

// WriteProfile writes a pprof profile of the live tensors by creation site
// (sample types: tensors/count and gpu_bytes/bytes), which
// `go tool pprof -top` reads:
//
//	go tool pprof -top -sample_index=gpu_bytes gpu.pb.gz
func (e *Engine) WriteProfile(w io.Writer) error {
	var p profileBuilder
	p.strings = map[string]int64{"": 0}
	p.table = []string{""}
	type agg struct{ n, bytes int64 }
	sums := map[uintptr]*agg{}
	var order []uintptr
	for _, t := range e.LiveTensors() {
		a, ok := sums[t.pc]
		if !ok {
			a = &agg{}
			sums[t.pc] = a
			order = append(order, t.pc)
		}
		a.n++
		a.bytes += int64(t.Bytes)
	}
	var body []byte
	for _, st := range [][2]string{{"tensors", "count"}, {"gpu_bytes", "bytes"}} {
		body = appendMessage(body, 1, appendVarintField(appendVarintField(nil, 1, uint64(p.str(st[0]))), 2, uint64(p.str(st[1]))))
	}
	var locs, funcs []byte
	for i, pc := range order {
		id := uint64(i + 1)
		fn, file, line := "unknown", "unknown", 0
		if pc != 0 {
			f, _ := runtime.CallersFrames([]uintptr{pc}).Next()
			fn, file, line = f.Function, f.File, f.Line
		}
		funcs = appendMessage(funcs, 5, appendVarintField(appendVarintField(appendVarintField(appendVarintField(nil,
			1, id), 2, uint64(p.str(fn))), 3, uint64(p.str(fn))), 4, uint64(p.str(file))))
		lineMsg := appendVarintField(appendVarintField(nil, 1, id), 2, uint64(line))
		locs = appendMessage(locs, 4, appendMessage(appendVarintField(appendVarintField(nil, 1, id), 3, uint64(pc)), 4, lineMsg))
		a := sums[pc]
		sample := appendVarintField(nil, 1, id)
		sample = appendVarintField(sample, 2, uint64(a.n))
		sample = appendVarintField(sample, 2, uint64(a.bytes))
		body = appendMessage(body, 2, sample)
	}
	body = append(body, locs...)
	body = append(body, funcs...)
	for _, s := range p.table {
		body = appendBytes(body, 6, []byte(s))
	}
	body = appendVarintField(body, 9, uint64(time.Now().UnixNano()))
	body = appendVarintField(body, 14, uint64(p.str("gpu_bytes")))
	zw := gzip.NewWriter(w)
	if _, err := zw.Write(body); err != nil {
		return err
	}
	return zw.Close()
}

// profileBuilder interns the profile's strings.
type profileBuilder struct {
	strings map[string]int64
	table   []string
}

func (p *profileBuilder) str(s string) int64 {
	if i, ok := p.strings[s]; ok {
		return i
	}
	i := int64(len(p.table))
	p.strings[s] = i
	p.table = append(p.table, s)
	return i
}

// Protocol buffer encoding, the little of it a profile needs.

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendVarintField(b []byte, field int, v uint64) []byte {
	return appendVarint(appendVarint(b, uint64(field)<<3), v)
}

func appendBytes(b []byte, field int, data []byte) []byte {
	b = appendVarint(b, uint64(field)<<3|2)
	b = appendVarint(b, uint64(len(data)))
	return append(b, data...)
}

func appendMessage(b []byte, field int, msg []byte) []byte { return appendBytes(b, field, msg) }
