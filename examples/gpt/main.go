// Command gpt trains a small decoder-only transformer (a character-level
// GPT) on a text it generates, checkpoints it part-way, resumes from the
// checkpoint in a fresh model and optimizer, and samples from it; then it
// quantizes the resumed model's weights to int8 (nn.QuantizeInt8) and
// compares its loss on held-out batches with float32's. It exits non-zero
// unless the loss falls below its bound, the live tensors stay flat from
// the first step to the last, the resumed run ends bit for bit where the
// uninterrupted one did, the int8 model's held-out loss is within 0.05 of
// float32's, and nothing is left live.
//
//	go run ./examples/gpt
//
// What it uses: a model written as a Go struct (nn.NewModel names its
// tensors as PyTorch would), nn.TransformerLayer blocks (pre-norm,
// causal), AdamW with two parameter groups (no weight decay on biases,
// norms and position embeddings), warm-up then cosine decay, clipping by
// global norm, dropout, and checkpoint.SaveModelFile/LoadModelFile with the
// schedule's state in the metadata.
//
// WGT_BACKEND (vulkan, gl, metal, dx12) and WGT_ADAPTER (a name substring)
// choose the adapter.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// config is a training run's settings.
type config struct {
	context, batch        int     // tokens per sequence, sequences per step
	d, heads, layers, ff  int     // the model's sizes
	dropout               float32 // every dropout's
	steps, warmup, saveAt int     // steps in all, warm-up steps, the step after which to checkpoint
	lr, weightDecay, clip float64 // AdamW's rate and decay, the gradient norm's bound
	maxLoss               float64 // the last step's loss must be below it
	sample                int     // characters to sample at the end
	seed                  uint64  // the model's and the batches' seed
	// autocast is the dtype the steps' tapes save activations in
	// (grad.Options.Autocast): float32 (the zero value) or bfloat16.
	autocast tensor.DType
}

var defaults = config{
	context: 32, batch: 16,
	d: 64, heads: 4, layers: 2, ff: 256,
	dropout: 0.1,
	steps:   300, warmup: 20, saveAt: 200,
	lr: 6e-3, weightDecay: 0.1, clip: 1,
	maxLoss: 1.3,
	sample:  160,
	seed:    1,
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err == nil {
		err = run(ctx, d, defaults, os.Stdout)
		if cerr := d.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpt:", err)
		os.Exit(1)
	}
}

// corpus generates the text: sentences drawn from a small grammar, the
// same every run.
func corpus(n int) string {
	subjects := []string{"the cat", "a dog", "the old man", "my sister", "a small bird", "the teacher", "our neighbour", "the baker"}
	verbs := []string{"sees", "likes", "finds", "follows", "draws", "keeps", "paints", "watches"}
	objects := []string{"the red ball", "a green hat", "the river", "an apple", "the little house", "a long road", "the moon", "a blue boat"}
	endings := []string{" today", " at night", " again", " in the morning", "", ""}
	r := rand.New(rand.NewPCG(7, 7))
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	var b strings.Builder
	for b.Len() < n {
		fmt.Fprintf(&b, "%s %s %s%s. ", pick(subjects), pick(verbs), pick(objects), pick(endings))
	}
	return b.String()
}

// vocabulary maps the text's characters to ids and back.
type vocabulary struct {
	chars []rune
	ids   map[rune]int32
}

func newVocabulary(text string) vocabulary {
	seen := map[rune]bool{}
	for _, c := range text {
		seen[c] = true
	}
	v := vocabulary{ids: map[rune]int32{}}
	for c := range seen {
		v.chars = append(v.chars, c)
	}
	slices.Sort(v.chars)
	for i, c := range v.chars {
		v.ids[c] = int32(i)
	}
	return v
}

func (v vocabulary) encode(s string) []int32 {
	out := make([]int32, 0, len(s))
	for _, c := range s {
		out = append(out, v.ids[c])
	}
	return out
}

// GPT is the model, a plain Go struct: nn.NewModel finds its tensors and
// names them "tok_emb.weight", "pos_emb", "blocks.0.self_attn.in_proj_weight",
// ..., "ln_f.weight", "head.weight".
type GPT struct {
	TokEmb *nn.Embedding
	PosEmb *tensor.Tensor // a parameter of the model's own
	Drop   *nn.Dropout
	Blocks []*nn.TransformerLayer
	LNF    *nn.LayerNorm `nn:"ln_f"`
	Head   *nn.Linear
}

func newGPT(b *nn.Builder, c config, vocab int) (*GPT, *nn.Model, error) {
	g := &GPT{
		TokEmb: b.Embedding(vocab, c.d, nn.WeightInit(nn.Normal(0.02))),
		PosEmb: b.Parameter("pos_emb", []int{c.context, c.d}, nn.Normal(0.02)),
		Drop:   b.Dropout(c.dropout),
		LNF:    b.LayerNorm(c.d),
		Head:   b.Linear(c.d, vocab, nn.NoBias(), nn.WeightInit(nn.Normal(0.02))),
	}
	for range c.layers {
		g.Blocks = append(g.Blocks, b.TransformerLayer(nn.TransformerConfig{
			D: c.d, Heads: c.heads, FeedForward: c.ff, Dropout: c.dropout,
			Activation: nn.GELU(), NormFirst: true, Causal: true,
		}))
	}
	m, err := nn.NewModel(g)
	if err == nil {
		err = b.Err()
	}
	if err != nil {
		if m != nil {
			m.Dispose()
		}
		return nil, nil, err
	}
	return g, m, nil
}

// Forward returns the logits [batch, T, vocab] of the int32 tokens
// [batch, T], T at most the context.
func (g *GPT) Forward(tokens *tensor.Tensor) *tensor.Tensor {
	e := grad.EngineFor(tokens)
	t := tokens.Shape()[1]
	pos := g.PosEmb
	if t < pos.Shape()[0] {
		pos = e.Slice(pos, []int{0, 0}, []int{t, -1})
	}
	x := g.Drop.Forward(e.Add(g.TokEmb.Forward(tokens), pos))
	for _, b := range g.Blocks {
		x = b.Forward(x)
	}
	return g.Head.Forward(g.LNF.Forward(x))
}

// trainer is the model, its optimizer and schedule, and the data.
type trainer struct {
	e     *tensor.Engine
	c     config
	text  []int32
	vocab vocabulary
	g     *GPT
	model *nn.Model
	opt   *optim.Adam
	sched *optim.Scheduler
}

func newTrainer(e *tensor.Engine, c config, text string) (*trainer, error) {
	vocab := newVocabulary(text)
	g, model, err := newGPT(nn.NewBuilder(e, c.seed), c, len(vocab.chars))
	if err != nil {
		return nil, err
	}
	// Weight decay on the matrices only, as GPT-2 is trained.
	var decay, none []optim.Param
	for _, p := range model.Params() {
		if p.T.Rank() >= 2 && p.Name != "pos_emb" {
			decay = append(decay, p)
		} else {
			none = append(none, p)
		}
	}
	ac := optim.AdamWDefaults()
	ac.LR, ac.WeightDecay = c.lr, c.weightDecay
	noDecay := ac
	noDecay.WeightDecay = 0
	opt, err := optim.NewAdamWGroups(e, []optim.AdamGroup{{Params: decay, Config: ac}, {Params: none, Config: noDecay}})
	if err != nil {
		model.Dispose()
		return nil, err
	}
	sched, err := optim.NewScheduler(opt, optim.CosineLR{WarmupSteps: c.warmup, TotalSteps: c.steps, MinLR: c.lr / 10})
	if err != nil {
		opt.Dispose()
		model.Dispose()
		return nil, err
	}
	return &trainer{e: e, c: c, text: vocab.encode(text), vocab: vocab, g: g, model: model, opt: opt, sched: sched}, nil
}

func (t *trainer) dispose() {
	t.opt.Dispose()
	t.model.Dispose()
}

// batch returns step n's inputs and targets [batch, context]: windows of
// the text at offsets drawn from the step's own stream, so that a resumed
// run draws what an uninterrupted one does.
func (t *trainer) batch(n int) (inputs, targets *tensor.Tensor) {
	r := rand.New(rand.NewPCG(t.c.seed, uint64(n)))
	in := make([]int32, 0, t.c.batch*t.c.context)
	out := make([]int32, 0, t.c.batch*t.c.context)
	for range t.c.batch {
		o := r.IntN(len(t.text) - t.c.context - 1)
		in = append(in, t.text[o:o+t.c.context]...)
		out = append(out, t.text[o+1:o+1+t.c.context]...)
	}
	return t.e.FromInt32s(in, t.c.batch, t.c.context), t.e.FromInt32s(out, t.c.batch*t.c.context)
}

// step takes training step n and returns its loss, the caller's.
func (t *trainer) step(n int) (*tensor.Tensor, error) {
	e := t.e
	return tidy.Run(e, func() (*tensor.Tensor, error) {
		inputs, targets := t.batch(n)
		l, grads, err := grad.ValueAndGrad(e, func([]*tensor.Tensor) (*tensor.Tensor, error) {
			logits := t.model.Forward(inputs)
			return loss.SoftmaxCrossEntropy(e, e.Reshape(logits, -1, len(t.vocab.chars)), targets, loss.Mean), nil
		}, nn.Tensors(t.opt.Params()), &grad.Options{Autocast: t.c.autocast})
		if err != nil {
			return nil, err
		}
		if _, err := optim.ClipGradNorm(e, grads, t.c.clip, optim.ClipOptions{}); err != nil {
			return nil, err
		}
		if err := t.opt.Step(grads); err != nil {
			return nil, err
		}
		return l, t.sched.Step()
	})
}

// train takes steps from..to-1, saving a checkpoint after step save (if
// it is in range) to path, and returns the last loss and the live tensors
// after the first step and the last.
func (t *trainer) train(ctx context.Context, from, to, save int, path string, log func(step int, loss float32)) (last float32, first, end int, err error) {
	for n := from; n < to; n++ {
		l, err := t.step(n)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("step %d: %w", n+1, err)
		}
		if n == from {
			first = t.e.NumTensors() - 1 // without the loss
		}
		if (n+1)%20 == 0 || n+1 == to {
			v, err := l.Float32s(ctx)
			if err != nil {
				l.Dispose()
				return 0, 0, 0, err
			}
			last = v[0]
			log(n+1, last)
		}
		l.Dispose()
		if n+1 == save {
			state, err := t.sched.MarshalText()
			if err != nil {
				return 0, 0, 0, err
			}
			if err := checkpoint.SaveModelFile(ctx, path, t.model, checkpoint.SaveOptions{
				Optimizer: t.opt, Metadata: map[string]string{"schedule": string(state)},
			}); err != nil {
				return 0, 0, 0, err
			}
		}
	}
	return last, first, t.e.NumTensors(), nil
}

// resume loads the checkpoint at path into t (a fresh trainer): the
// model, AdamW's state, Dropout's step counts and the schedule.
func (t *trainer) resume(ctx context.Context, path string) error {
	rep, err := checkpoint.LoadModelFile(ctx, t.e, path, t.model, checkpoint.LoadOptions{Optimizer: t.opt})
	if err != nil {
		return err
	}
	return t.sched.UnmarshalText([]byte(rep.Metadata["schedule"]))
}

// weights returns every parameter's bytes, in order.
func (t *trainer) weights(ctx context.Context) ([]byte, error) {
	var out []byte
	for _, p := range t.model.Params() {
		b := make([]byte, 4*p.T.Size())
		if err := p.T.ReadBytes(ctx, 0, b); err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return out, nil
}

// generate samples n characters after prompt, each from the softmax of
// the last position's logits at temperature 0.8, in inference mode.
func (t *trainer) generate(ctx context.Context, prompt string, n int) (string, error) {
	t.model.SetTraining(false)
	defer t.model.SetTraining(true)
	r := rand.New(rand.NewPCG(t.c.seed, 99))
	tokens := t.vocab.encode(prompt)
	for range n {
		window := tokens[max(0, len(tokens)-t.c.context):]
		logits, err := tidy.Run(t.e, func() ([]float32, error) {
			x := t.e.FromInt32s(window, 1, len(window))
			y := t.model.Forward(x)
			last := t.e.Slice(y, []int{0, len(window) - 1, 0}, []int{1, 1, -1})
			return last.Float32s(ctx)
		})
		if err != nil {
			return "", err
		}
		tokens = append(tokens, sample(r, logits, 0.8))
	}
	var b strings.Builder
	for _, id := range tokens {
		b.WriteRune(t.vocab.chars[id])
	}
	return b.String(), nil
}

// sample draws an index from softmax(logits/temperature).
func sample(r *rand.Rand, logits []float32, temperature float64) int32 {
	m := float64(slices.Max(logits))
	p := make([]float64, len(logits))
	var z float64
	for i, l := range logits {
		p[i] = math.Exp((float64(l) - m) / temperature)
		z += p[i]
	}
	u := r.Float64() * z
	for i, v := range p {
		if u -= v; u < 0 {
			return int32(i)
		}
	}
	return int32(len(p) - 1)
}

// run trains, resumes and samples on d, printing to out, and returns what
// went wrong: an error, or a check that failed.
func run(ctx context.Context, d *wgpu.Device, c config, out io.Writer) error {
	e := tensor.New(d)
	text := corpus(20000)
	dir, err := os.MkdirTemp("", "gpt-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "gpt.safetensors")

	// The uninterrupted run, checkpointed after step saveAt.
	tr, err := newTrainer(e, c, text)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "gpt: %d parameters in %d tensors, vocabulary %d (the text's unigram entropy %.3f nats), on %s\n",
		countParams(tr.model), len(tr.model.Params()), len(tr.vocab.chars), unigramEntropy(tr.text), d.Info().Name)
	start := time.Now()
	final, first, end, err := tr.train(ctx, 0, c.steps, c.saveAt, path, func(n int, l float32) {
		fmt.Fprintf(out, "step %4d  loss %.4f  lr %.2e\n", n, l, tr.sched.LastLR()[0])
	})
	if err != nil {
		tr.dispose()
		return err
	}
	elapsed := time.Since(start)
	want, err := tr.weights(ctx)
	if err == nil {
		var s string
		if s, err = tr.generate(ctx, "the ", c.sample); err == nil {
			fmt.Fprintf(out, "sample: %q\n", s)
		}
	}
	tr.dispose()
	if err != nil {
		return err
	}

	// The run resumed from the checkpoint in a fresh model and optimizer.
	re, err := newTrainer(e, c, text)
	if err != nil {
		return err
	}
	err = re.resume(ctx, path)
	var resumed []byte
	var held, held8 float64
	if err == nil {
		if _, _, _, err = re.train(ctx, c.saveAt, c.steps, -1, "", func(int, float32) {}); err == nil {
			resumed, err = re.weights(ctx)
		}
	}
	if err == nil {
		held, held8, err = re.quantized(ctx)
	}
	re.dispose()
	if err != nil {
		return fmt.Errorf("resuming: %w", err)
	}
	fmt.Fprintf(out, "gpt: held-out loss %.4f with float32 weights, %.4f with int8 weights\n", held, held8)

	fmt.Fprintf(out, "gpt: %d steps in %v (%.1f ms/step); loss %.4f (bound %.2f); live tensors %d after step 1, %d after step %d; resumed from step %d: %s\n",
		c.steps, elapsed.Round(time.Millisecond), float64(elapsed.Milliseconds())/float64(c.steps), final, c.maxLoss,
		first, end, c.steps, c.saveAt, map[bool]string{true: "bit for bit the same weights", false: "DIFFERENT weights"}[bytes.Equal(want, resumed)])
	var errs []error
	if !(float64(final) < c.maxLoss) {
		errs = append(errs, fmt.Errorf("the loss %.4f is not below %.2f", final, c.maxLoss))
	}
	if first != end {
		errs = append(errs, fmt.Errorf("live tensors went from %d after step 1 to %d after step %d", first, end, c.steps))
	}
	if !(held8 <= held+0.05) {
		errs = append(errs, fmt.Errorf("the int8 model's held-out loss %.4f is not within 0.05 of float32's %.4f", held8, held))
	}
	if !bytes.Equal(want, resumed) {
		errs = append(errs, errors.New("the resumed run's weights differ from the uninterrupted run's"))
	}
	if n := e.NumTensors(); n != 0 {
		errs = append(errs, fmt.Errorf("%d tensors left live", n))
	}
	return errors.Join(errs...)
}

// heldOutBatches is how many batches, past every step's, heldOut reads.
const heldOutBatches = 4

// heldOut is the model's mean loss in inference mode on heldOutBatches
// batches no step draws.
func (t *trainer) heldOut(ctx context.Context) (float64, error) {
	t.model.SetTraining(false)
	defer t.model.SetTraining(true)
	var sum float64
	for n := range heldOutBatches {
		v, err := tidy.Run(t.e, func() ([]float32, error) {
			inputs, targets := t.batch(t.c.steps + 1 + n)
			logits := t.model.Forward(inputs)
			return loss.SoftmaxCrossEntropy(t.e, t.e.Reshape(logits, -1, len(t.vocab.chars)), targets, loss.Mean).Float32s(ctx)
		})
		if err != nil {
			return 0, err
		}
		sum += float64(v[0])
	}
	return sum / heldOutBatches, nil
}

// quantized returns the held-out loss of the model, then quantizes its
// weights to int8 in place and returns its held-out loss again.
func (t *trainer) quantized(ctx context.Context) (f32, i8 float64, err error) {
	if f32, err = t.heldOut(ctx); err != nil {
		return 0, 0, err
	}
	if err := nn.QuantizeInt8(t.model); err != nil {
		return 0, 0, err
	}
	i8, err = t.heldOut(ctx)
	return f32, i8, err
}

// unigramEntropy is the entropy of the text's characters, in nats: the
// loss of a model that knows only their frequencies.
func unigramEntropy(text []int32) float64 {
	counts := map[int32]int{}
	for _, id := range text {
		counts[id]++
	}
	var h float64
	for _, n := range counts {
		p := float64(n) / float64(len(text))
		h -= p * math.Log(p)
	}
	return h
}

// countParams counts the model's parameters.
func countParams(m *nn.Model) int {
	n := 0
	for _, p := range m.Params() {
		n += p.T.Size()
	}
	return n
}
