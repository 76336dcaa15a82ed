package tensor

import (
	"io"
	"os"
	"runtime"
	"time"

	"github.com/google/pprof/profile"

	"github.com/wgtensor/wgtensor/internal/callsite"
)

// WriteProfile writes a gzipped pprof profile of e's live tensors, which
// `go tool pprof` reads:
//
//	go tool pprof -top -sample_index=gpu_bytes gpu.pb.gz
//
// Each sample is the live tensors of one dtype and shape created by one
// call stack, with the values tensors/count and gpu_bytes/bytes (the
// default), the labels "dtype" and "shape", and as locations the recorded
// stack from its user frame out (up to 6 frames): the leaf is the user's
// function that made the tensor, or called the wgtensor helper that did,
// which the label "helper" names (loss.Mean, say). A small leak beside
// large tensors shows with -nodefraction=0, which keeps pprof from
// dropping nodes under half a percent of the total:
//
//	go tool pprof -top -nodefraction=0 -sample_index=gpu_bytes gpu.pb.gz
//
// It is safe from any goroutine; a nil or zero Engine writes an empty
// profile.
func (e *Engine) WriteProfile(w io.Writer) error {
	p, err := e.profile()
	if err != nil {
		return err
	}
	return p.Write(w)
}

// profile builds the profile WriteProfile writes and checks it.
func (e *Engine) profile() (*profile.Profile, error) {
	// The locations carry their symbols: the mapping says so, and names
	// the binary for pprof's header.
	exe, _ := os.Executable()
	m := &profile.Mapping{ID: 1, File: exe, HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true}
	b := profileBuilder{
		p: &profile.Profile{
			SampleType:        []*profile.ValueType{{Type: "tensors", Unit: "count"}, {Type: "gpu_bytes", Unit: "bytes"}},
			DefaultSampleType: "gpu_bytes",
			TimeNanos:         time.Now().UnixNano(),
			Mapping:           []*profile.Mapping{m},
		},
		samples:   map[sampleKey]*profile.Sample{},
		locations: map[frameKey]*profile.Location{},
		functions: map[[2]string]*profile.Function{},
	}
	for _, t := range e.LiveTensors() {
		b.add(t)
	}
	return b.p, b.p.CheckValid()
}

// sampleKey is what a sample aggregates over: a stack, dtype and shape.
type sampleKey struct {
	site  Site
	dtype DType
	shape string
}

// profileBuilder aggregates tensors into samples and interns locations and
// functions.
type profileBuilder struct {
	p         *profile.Profile
	samples   map[sampleKey]*profile.Sample
	locations map[frameKey]*profile.Location
	functions map[[2]string]*profile.Function
}

// frameKey identifies a frame: a PC stands for several when calls were
// inlined there.
type frameKey struct {
	pc       uintptr
	function string
	line     int
}

func (b *profileBuilder) add(t TensorInfo) {
	k := sampleKey{t.Site, t.DType, t.Shape.String()}
	s := b.samples[k]
	if s == nil {
		s = &profile.Sample{
			Value: []int64{0, 0},
			Label: map[string][]string{"dtype": {t.DType.String()}, "shape": {k.shape}},
		}
		frames := t.Site.Frames()
		user := max(callsite.User(frames), 0)
		if user > 0 {
			s.Label["helper"] = []string{callsite.FuncName(frames[user-1].Function)}
		}
		for _, f := range frames[user:] {
			s.Location = append(s.Location, b.location(f))
		}
		b.samples[k] = s
		b.p.Sample = append(b.p.Sample, s)
	}
	s.Value[0]++
	s.Value[1] += int64(t.Bytes)
}

// location returns the location of one frame (an inlined call is a frame
// of its own).
func (b *profileBuilder) location(f runtime.Frame) *profile.Location {
	k := frameKey{f.PC, f.Function, f.Line}
	if l := b.locations[k]; l != nil {
		return l
	}
	l := &profile.Location{
		ID:      uint64(len(b.p.Location) + 1),
		Mapping: b.p.Mapping[0],
		Address: uint64(f.PC),
		Line:    []profile.Line{{Function: b.function(f), Line: int64(f.Line)}},
	}
	b.locations[k] = l
	b.p.Location = append(b.p.Location, l)
	return l
}

func (b *profileBuilder) function(f runtime.Frame) *profile.Function {
	k := [2]string{f.Function, f.File}
	if fn := b.functions[k]; fn != nil {
		return fn
	}
	fn := &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: f.Function, SystemName: f.Function, Filename: f.File}
	b.functions[k] = fn
	b.p.Function = append(b.p.Function, fn)
	return fn
}
