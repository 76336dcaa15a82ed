package nn_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/tensor"
)

// block is a transformer-like block written as a plain struct, the way a
// user writes one: it is walked, not wrapped.
type block struct {
	LN1  *nn.LayerNorm
	Attn *nn.Linear `nn:"c_attn"`
	MLP  *nn.Sequential
	Drop *nn.Dropout
}

// tinyModel holds every kind of field Model reads.
type tinyModel struct {
	TokEmb *nn.Embedding
	PosEmb *tensor.Tensor // a parameter of its own
	Blocks []*block
	Heads  map[string]*nn.Linear
	Scale  *tensor.Tensor `nn:",buffer"`
	Spare  *nn.Linear     // nil: skipped, as PyTorch skips None
	Width  int            // configuration: ignored
	engine *tensor.Engine // unexported, but holds no module: fine
}

func (m *tinyModel) Forward(x *tensor.Tensor) *tensor.Tensor {
	e := x.Engine()
	h := m.Blocks[0].Attn.Forward(x)
	defer h.Dispose()
	return e.Add(h, m.Scale)
}

func newTinyModel(t *testing.T, b *nn.Builder) *tinyModel {
	e := b.Engine()
	m := &tinyModel{
		TokEmb: b.Embedding(10, 4),
		PosEmb: e.Zeros(tensor.Float32, 3, 4),
		Heads:  map[string]*nn.Linear{"b": b.Linear(4, 2), "a": b.Linear(4, 3)},
		Scale:  e.Ones(tensor.Float32, 4),
		Width:  4,
		engine: e,
	}
	for range 2 {
		m.Blocks = append(m.Blocks, &block{
			LN1:  b.LayerNorm(4),
			Attn: b.Linear(4, 4),
			MLP:  nn.NewSequential(b.Linear(4, 8), nn.ReLU(), b.Linear(8, 4)),
			Drop: b.Dropout(0.1),
		})
	}
	require.NoError(t, b.Err())
	return m
}

func TestModelNamesFieldsAsPyTorchNamesAttributes(t *testing.T) {
	e := testgpu.Engine(t)
	b := nn.NewBuilder(e, 1)
	tm := newTinyModel(t, b)
	m, err := nn.NewModel(tm)
	require.NoError(t, err)
	defer m.Dispose()

	want := []string{"tok_emb.weight", "pos_emb"}
	for _, i := range []string{"0", "1"} {
		p := "blocks." + i + "."
		want = append(want, p+"ln1.weight", p+"ln1.bias", p+"c_attn.weight", p+"c_attn.bias",
			p+"mlp.0.weight", p+"mlp.0.bias", p+"mlp.2.weight", p+"mlp.2.bias")
	}
	want = append(want, "heads.a.weight", "heads.a.bias", "heads.b.weight", "heads.b.bias")
	assert.Equal(t, want, names(m.Params()))
	assert.Equal(t, []string{"scale"}, names(m.Buffers()))
	assert.Same(t, tm.PosEmb, m.Params()[1].T, "the field's own tensor, not a copy")

	var mods []string
	for _, c := range nn.Modules(m) {
		mods = append(mods, c.Name)
	}
	assert.Equal(t, []string{"", "tok_emb", "blocks.0.ln1", "blocks.0.c_attn", "blocks.0.mlp", "blocks.0.mlp.0",
		"blocks.0.mlp.1", "blocks.0.mlp.2", "blocks.0.drop", "blocks.1.ln1", "blocks.1.c_attn", "blocks.1.mlp",
		"blocks.1.mlp.0", "blocks.1.mlp.1", "blocks.1.mlp.2", "blocks.1.drop", "heads.a", "heads.b"}, mods)

	// A block appended later is seen: the walk runs on every call.
	tm.Blocks = append(tm.Blocks, &block{LN1: b.LayerNorm(4)})
	assert.Contains(t, names(m.Params()), "blocks.2.ln1.weight")

	m.SetTraining(false)
	for _, c := range nn.Modules(m) {
		assert.False(t, c.Module.Training(), "%q follows the model's mode", c.Name)
	}

	x := e.FromFloat32s([]float32{1, 2, 3, 4}, 1, 4)
	defer x.Dispose()
	y := m.Forward(x)
	require.NoError(t, y.Err())
	y.Dispose()
}

func TestModelDisposeFreesEveryTensorOnce(t *testing.T) {
	e := testgpu.Engine(t)
	before := e.Memory()
	b := nn.NewBuilder(e, 2)
	shared := b.Linear(4, 4)
	tm := newTinyModel(t, b)
	tm.Blocks[0].Attn.Dispose()
	tm.Blocks[1].Attn.Dispose()
	tm.Blocks[1].Attn = shared
	tm.Blocks[0].Attn = shared // one module in two places: counted and disposed once
	m, err := nn.NewModel(tm)
	require.NoError(t, err)
	n := 0
	for _, p := range m.Params() {
		if p.T == shared.Params()[0].T {
			n++
			assert.Equal(t, "blocks.0.c_attn.weight", p.Name, "the first name that reaches it")
		}
	}
	assert.Equal(t, 1, n)
	m.Dispose()
	m.Dispose()
	assert.Empty(t, m.Params())
	assert.Equal(t, before.Tensors, e.Memory().Tensors, "every tensor of the model is freed")
}

func TestNewModelRefusesWhatItCannotSee(t *testing.T) {
	e := testgpu.Engine(t)
	b := nn.NewBuilder(e, 3)
	lin := b.Linear(2, 2)
	defer lin.Dispose()

	type hidden struct {
		Head *nn.Linear
		body *nn.Linear
	}
	_, err := nn.NewModel(&hidden{Head: lin})
	require.ErrorIs(t, err, tensor.ErrArgument)
	assert.ErrorContains(t, err, "unexported field hidden.body (*nn.Linear)")
	assert.ErrorContains(t, err, "export it or tag it")

	type skipped struct {
		Head *nn.Linear
		body *nn.Linear `nn:"-"`
	}
	_, err = nn.NewModel(&skipped{Head: lin})
	assert.NoError(t, err, "a tagged unexported field is the user's choice")

	type hiddenInSlice struct{ layers []nn.Module }
	_, err = nn.NewModel(&hiddenInSlice{})
	assert.ErrorContains(t, err, "unexported field hiddenInSlice.layers")

	type twice struct {
		A *nn.Linear `nn:"head"`
		B *nn.Linear `nn:"head"`
	}
	lin2 := b.Linear(2, 2)
	defer lin2.Dispose()
	_, err = nn.NewModel(&twice{A: lin, B: lin2})
	assert.ErrorContains(t, err, `fields twice.A and twice.B are both named "head"`)

	type badBuffer struct {
		L *nn.Linear `nn:",buffer"`
	}
	_, err = nn.NewModel(&badBuffer{L: lin})
	assert.ErrorContains(t, err, "only a *tensor.Tensor field can be a buffer")

	type intKeys struct{ M map[int]*nn.Linear }
	_, err = nn.NewModel(&intKeys{})
	assert.ErrorContains(t, err, "keyed by strings")

	for _, v := range []any{nil, 3, tinyModel{}, (*tinyModel)(nil)} {
		_, err = nn.NewModel(v)
		assert.ErrorIs(t, err, tensor.ErrArgument, "%T", v)
	}

	type noForward struct{ L *nn.Linear }
	m, err := nn.NewModel(&noForward{L: lin})
	require.NoError(t, err)
	x := e.FromFloat32s([]float32{1, 2}, 1, 2)
	defer x.Dispose()
	y := m.Forward(x)
	assert.ErrorIs(t, y.Err(), tensor.ErrArgument)
	assert.ErrorContains(t, y.Err(), "no method Forward")
}

func TestModuleListAndDictNameByIndexAndKey(t *testing.T) {
	e := testgpu.Engine(t)
	b := nn.NewBuilder(e, 4)
	l := nn.NewModuleList(b.Linear(2, 2, nn.NoBias()), b.Linear(2, 3, nn.NoBias()))
	l.Append(b.BatchNorm(3))
	d := nn.NewModuleDict()
	require.NoError(t, d.Set("enc", b.Linear(2, 2, nn.NoBias())))
	require.NoError(t, d.Set("dec", l))
	assert.ErrorIs(t, d.Set("a.b", l), tensor.ErrArgument)
	assert.ErrorIs(t, d.Set("", l), tensor.ErrArgument)
	require.NoError(t, b.Err())
	defer d.Dispose()

	assert.Equal(t, []string{"enc.weight", "dec.0.weight", "dec.1.weight", "dec.2.weight", "dec.2.bias"}, names(d.Params()))
	assert.Equal(t, []string{"dec.2.running_mean", "dec.2.running_var"}, names(d.Buffers()))
	assert.Equal(t, []string{"enc", "dec"}, d.Keys())
	d.SetTraining(false)
	assert.False(t, l.At(2).Training())

	x := e.FromFloat32s([]float32{1, 2}, 1, 2)
	defer x.Dispose()
	for _, m := range []nn.Module{l, d} {
		y := m.Forward(x)
		assert.ErrorContains(t, y.Err(), "has no Forward")
	}
	_, err := x.Float32s(context.Background())
	require.NoError(t, err)
}
