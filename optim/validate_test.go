package optim_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// snapshot is everything a step may change: each parameter's and state
// tensor's bits, the versions and the step counts.
type snapshot struct {
	bits     map[string][]uint32
	versions map[string]uint64
	steps    map[string]int
	memory   tensor.Memory
}

func snap(t *testing.T, e *tensor.Engine, o optim.Optimizer) snapshot {
	t.Helper()
	s := snapshot{bits: map[string][]uint32{}, versions: map[string]uint64{}, steps: map[string]int{}}
	for _, p := range append(o.Params(), o.State()...) {
		v := f32s(t, p.T)
		b := make([]uint32, len(v))
		for i, x := range v {
			b[i] = math.Float32bits(x)
		}
		s.bits[p.Name] = b
		s.versions[p.Name] = p.T.Version()
	}
	for _, p := range o.Params() {
		s.steps[p.Name] = o.Steps(p.Name)
	}
	s.memory = e.Memory()
	return s
}

// unchanged asserts that o and e are as before was taken: bit for bit the
// same parameters and state, the same state names, versions and step
// counts, and no tensor or byte more.
func (before snapshot) unchanged(t *testing.T, e *tensor.Engine, o optim.Optimizer, what string) {
	t.Helper()
	now := snap(t, e, o)
	var changed []string
	for name, b := range before.bits {
		if !slices.Equal(b, now.bits[name]) {
			changed = append(changed, name)
		}
	}
	for name := range now.bits {
		if before.bits[name] == nil {
			changed = append(changed, name+" (new)")
		}
	}
	slices.Sort(changed)
	assert.Empty(t, changed, "%s: values changed", what)
	assert.Equal(t, before.versions, now.versions, "%s: versions changed", what)
	assert.Equal(t, before.steps, now.steps, "%s: step counts changed", what)
	assert.Equal(t, before.memory.Tensors, now.memory.Tensors, "%s: tensors leaked", what)
	assert.Equal(t, before.memory.Bytes, now.memory.Bytes, "%s: bytes leaked", what)
	assert.Equal(t, before.memory.Pool.LiveBuffers, now.memory.Pool.LiveBuffers, "%s: buffers leaked", what)
}

// stateOf returns o's state tensor called name.
func stateOf(t *testing.T, o optim.Optimizer, name string) *tensor.Tensor {
	t.Helper()
	for _, s := range o.State() {
		if s.Name == name {
			return s.T
		}
	}
	t.Fatalf("no state %q", name)
	return nil
}

// Issue 19, item 7: a step whose last gradient lives on another device
// updated the parameters before it and bumped their step counts. Every
// optimizer now refuses it before it updates anything.
func TestForeignDeviceGradientUpdatesNothing(t *testing.T) {
	e := testgpu.Engine(t)
	e2 := testgpu.EngineOn(t, testgpu.Open(t))
	for _, c := range allOptimizers() {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(21, 22))
			ps := newParams(e, r)
			defer disposeParams(ps)
			o := c.must(t, e, ps)
			inScope(t, e, func() { require.NoError(t, o.Step(gradsFor(t, e, r, ps))) })
			good := gradsFor(t, e, r, ps)
			defer disposeParams([]optim.Param{{T: good[0]}, {T: good[1]}})
			foreign := e2.FromFloat32s(uniform(r, 12), 12)
			defer foreign.Dispose()
			before := snap(t, e, o)
			err := o.Step([]*tensor.Tensor{good[0], foreign})
			require.Error(t, err)
			assert.ErrorIs(t, err, optim.ErrArgument)
			assert.Contains(t, err.Error(), `gradient of "0.bias"`)
			assert.Contains(t, err.Error(), "another device")
			before.unchanged(t, e, o, "foreign gradient")
			require.NoError(t, o.Step(good), "the optimizer still steps")
		})
	}
}

// A gradient that shares its storage with something the step writes (its
// own parameter, a view of it, its state, another parameter being
// updated) is refused before anything is updated: the old code updated
// the parameters before it and then failed (or, for another parameter,
// read half-updated values).
func TestGradientSharingWrittenStorageUpdatesNothing(t *testing.T) {
	e := testgpu.Engine(t)
	for _, c := range allOptimizers() {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(23, 24))
			ps := newParams(e, r)
			extra := e.FromFloat32s(uniform(r, 12), 12)
			extra.Keep()
			ps = append(ps, optim.Param{Name: "1.bias", T: extra})
			defer disposeParams(ps)
			o := c.must(t, e, ps)
			inScope(t, e, func() { require.NoError(t, o.Step(gradsFor(t, e, r, ps))) })
			state := o.State()
			require.NotEmpty(t, state)
			lastState := stateOf(t, o, state[len(state)-1].Name)
			require.Contains(t, state[len(state)-1].Name, "1.bias.")
			inScope(t, e, func() {
				good := gradsFor(t, e, r, ps)
				for _, bad := range []struct {
					name, text string
					g          *tensor.Tensor
				}{
					{"the parameter itself", `gradient of "1.bias" shares its storage with parameter "1.bias"`, ps[2].T},
					{"a reshape of the parameter", `gradient of "1.bias" shares its storage with parameter "1.bias"`, e.Reshape(e.Reshape(ps[2].T, 3, 4), 12)},
					{"a clone of the parameter", `gradient of "1.bias" shares its storage with parameter "1.bias"`, e.Clone(ps[2].T)},
					{"its state", `gradient of "1.bias" shares its storage with state "` + state[len(state)-1].Name + `"`, lastState},
					{"another parameter", `gradient of "1.bias" shares its storage with parameter "0.bias"`, ps[1].T},
					{"a view of another parameter", `gradient of "1.bias" shares its storage with parameter "0.bias"`, e.Squeeze(e.ExpandDims(ps[1].T, 0))},
				} {
					require.NoError(t, bad.g.Err(), bad.name)
					require.NoError(t, e.Flush())
					before := snap(t, e, o)
					err := o.Step([]*tensor.Tensor{good[0], good[1], bad.g})
					require.Error(t, err, bad.name)
					assert.ErrorIs(t, err, optim.ErrArgument, bad.name)
					assert.Contains(t, err.Error(), "optim: "+c.name+": "+bad.text, bad.name)
					before.unchanged(t, e, o, bad.name)
				}
				// The same gradient for two parameters only reads it twice.
				require.NoError(t, o.Step([]*tensor.Tensor{good[0], good[1], good[1]}))
				// A gradient that aliases a parameter whose gradient is nil
				// (not written by this step) is allowed.
				require.NoError(t, o.Step([]*tensor.Tensor{good[0], nil, ps[1].T}))
			})
		})
	}
}

// The checks of a step are all made first: a bad gradient anywhere in
// the list, of any kind, leaves every parameter as it was.
func TestEveryBadGradientIsCheckedFirst(t *testing.T) {
	e := testgpu.Engine(t)
	e2 := testgpu.EngineOn(t, testgpu.Open(t))
	for _, c := range allOptimizers() {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(25, 26))
			ps := newParams(e, r)
			defer disposeParams(ps)
			o := c.must(t, e, ps)
			inScope(t, e, func() { require.NoError(t, o.Step(gradsFor(t, e, r, ps))) })
			inScope(t, e, func() {
				good := gradsFor(t, e, r, ps)
				gone := e.Zeros(tensor.Float32, 12)
				gone.Dispose()
				foreign := e2.Zeros(tensor.Float32, 12)
				defer foreign.Dispose()
				for _, bad := range []struct {
					name string
					g    *tensor.Tensor
					kind error
				}{
					{"disposed", gone, tensor.ErrDisposed},
					{"shape", e.Zeros(tensor.Float32, 3, 4), tensor.ErrShape},
					{"dtype", e.Zeros(tensor.Int32, 12), tensor.ErrDType},
					{"carrying an error", e.Reshape(good[0], 5), tensor.ErrShape},
					{"zero tensor", &tensor.Tensor{}, tensor.ErrArgument},
					{"another device", foreign, optim.ErrArgument},
					{"the parameter", ps[1].T, optim.ErrArgument},
				} {
					require.NoError(t, e.Flush())
					before := snap(t, e, o)
					err := o.Step([]*tensor.Tensor{good[0], bad.g})
					require.Error(t, err, bad.name)
					assert.True(t, errors.Is(err, bad.kind), "%s: %v", bad.name, err)
					assert.Contains(t, err.Error(), `gradient of "0.bias"`, bad.name)
					before.unchanged(t, e, o, bad.name)
				}
			})
		})
	}
}

// constructors are every optimizer's constructor.
var constructors = []struct {
	name string
	make func(*tensor.Engine, []optim.Param) (optim.Optimizer, error)
}{
	{"sgd", func(e *tensor.Engine, ps []optim.Param) (optim.Optimizer, error) {
		return optim.NewSGD(e, ps, optim.SGDConfig{LR: 0.1})
	}},
	{"adam", func(e *tensor.Engine, ps []optim.Param) (optim.Optimizer, error) {
		return optim.NewAdam(e, ps, optim.AdamDefaults())
	}},
	{"adamw", func(e *tensor.Engine, ps []optim.Param) (optim.Optimizer, error) {
		return optim.NewAdamW(e, ps, optim.AdamWDefaults())
	}},
	{"rmsprop", func(e *tensor.Engine, ps []optim.Param) (optim.Optimizer, error) {
		return optim.NewRMSProp(e, ps, optim.RMSPropDefaults())
	}},
}

// Every constructor refuses a parameter of another device (NewAdam took
// one, and its first step then failed part-way), and every other bad
// parameter list, with an error naming the parameter.
func TestConstructorsRefuseBadParameters(t *testing.T) {
	e := testgpu.Engine(t)
	e2 := testgpu.EngineOn(t, testgpu.Open(t))
	w := e.Zeros(tensor.Float32, 4, 3)
	defer w.Dispose()
	foreign := e2.Zeros(tensor.Float32, 4, 3)
	defer foreign.Dispose()
	ints := e.Zeros(tensor.Int32, 4)
	defer ints.Dispose()
	gone := e.Zeros(tensor.Float32, 4)
	gone.Dispose()
	view := e.Reshape(w, 12)
	defer view.Dispose()
	clone := e.Clone(w)
	defer clone.Dispose()
	other := tensor.New(e.Device()) // another engine on the same device is fine
	own := other.Zeros(tensor.Float32, 2)
	defer own.Dispose()
	for _, c := range constructors {
		for _, bad := range []struct {
			name   string
			e      *tensor.Engine
			ps     []optim.Param
			kind   error
			naming string
		}{
			{"foreign device", e, []optim.Param{{Name: "w", T: w}, {Name: "f", T: foreign}}, optim.ErrArgument, `parameter "f" lives on another device`},
			{"foreign engine's device", e2, []optim.Param{{Name: "w", T: w}}, optim.ErrArgument, `parameter "w" lives on another device`},
			{"nil tensor", e, []optim.Param{{Name: "w", T: w}, {Name: "n", T: nil}}, optim.ErrArgument, `parameter "n" is nil`},
			{"zero tensor", e, []optim.Param{{Name: "z", T: &tensor.Tensor{}}}, tensor.ErrArgument, `parameter "z"`},
			{"disposed", e, []optim.Param{{Name: "d", T: gone}}, tensor.ErrDisposed, `parameter "d"`},
			{"int32", e, []optim.Param{{Name: "i", T: ints}}, tensor.ErrDType, `parameter "i" is int32`},
			{"no name", e, []optim.Param{{Name: "", T: w}}, optim.ErrArgument, "parameter 0 has no name"},
			{"same name", e, []optim.Param{{Name: "a", T: w}, {Name: "a", T: own}}, optim.ErrArgument, `two parameters are named "a"`},
			{"same tensor", e, []optim.Param{{Name: "a", T: w}, {Name: "b", T: w}}, optim.ErrArgument, `parameters "a" and "b" are the same tensor`},
			{"a view", e, []optim.Param{{Name: "a", T: w}, {Name: "b", T: view}}, optim.ErrArgument, `parameters "a" and "b" share their storage`},
			{"a clone", e, []optim.Param{{Name: "a", T: w}, {Name: "x", T: own}, {Name: "b", T: clone}}, optim.ErrArgument, `parameters "a" and "b" share their storage`},
			{"nil engine", nil, []optim.Param{{Name: "w", T: w}}, optim.ErrArgument, "nil or zero engine"},
			{"zero engine", &tensor.Engine{}, []optim.Param{{Name: "w", T: w}}, optim.ErrArgument, "nil or zero engine"},
		} {
			before := e.Memory()
			o, err := c.make(bad.e, bad.ps)
			assert.Nil(t, o, "%s: %s", c.name, bad.name)
			if assert.Error(t, err, "%s: %s", c.name, bad.name) {
				assert.True(t, errors.Is(err, bad.kind), "%s: %s: %v", c.name, bad.name, err)
				assert.Contains(t, err.Error(), "optim: "+c.name+": ", "%s: %s", c.name, bad.name)
				assert.Contains(t, err.Error(), bad.naming, "%s: %s", c.name, bad.name)
			}
			assert.Equal(t, before.Tensors, e.Memory().Tensors, "%s: %s: leaked", c.name, bad.name)
		}
		o, err := c.make(e, []optim.Param{{Name: "w", T: w}, {Name: "x", T: own}})
		require.NoError(t, err, "%s: parameters of two engines on one device", c.name)
		o.Dispose()
	}
}
