package dist

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// DefaultBucketBytes is the gradient bytes a bucket holds when
// DataParallelOptions.BucketBytes is 0: PyTorch's 25 MB default.
const DefaultBucketBytes = 25 << 20

// DataParallelOptions configure NewDataParallel.
type DataParallelOptions struct {
	// BucketBytes is the most gradient bytes exchanged in one collective
	// (a parameter larger than it has a bucket of its own); 0 means
	// DefaultBucketBytes. Smaller buckets start earlier in the backward
	// pass; larger ones cost fewer collectives.
	BucketBytes int
	// FixedOrder sums the ranks' gradients in rank order on every rank
	// (an all-gather, then ((g0 + g1) + g2) + ... in float32), so that a
	// run's parameters are the same bit for bit from run to run and equal
	// those of one process that sums the same micro-batches' gradients in
	// that order. It moves, and holds on the host, Size times the bytes of
	// the default, an all-reduce in the order MPI chooses: for tests and
	// small jobs.
	FixedOrder bool
}

// DataParallel makes a training loop data-parallel, as PyTorch's
// DistributedDataParallel does: every rank holds the same model, runs
// its forward and backward passes on its share of each batch, and Step
// replaces the gradients by their average over the ranks before the
// optimizer's step, so that the parameters stay the same on every rank.
//
//	ddp, err := dist.NewDataParallel(ctx, comm, e, opt, nil)
//	...
//	loss, grads, err := grad.ValueAndGrad(e, forward, params, &grad.Options{Ready: ddp.Ready})
//	err = ddp.Step(ctx, grads)
//
// The gradients are exchanged in buckets of parameters, taken in the
// reverse of the optimizer's order (the order backward finishes them).
// With Ready as grad.Options.Ready, a bucket's readback and exchange
// start as soon as its last gradient is final, while backward computes
// the rest; Step then waits for what is left. Each exchange goes through
// host memory (WebGPU has no path between devices): the readback's
// staging buffers are counted in the engine's Memory like any other, and
// the host copies are the buckets' own, made once and reused.
//
// A DataParallel belongs to the engine's goroutine, as ops do: Ready runs
// there (inside backward) and Step must. Close frees what it holds.
type DataParallel struct {
	c      *Comm
	e      *tensor.Engine
	opt    optim.Optimizer
	params []optim.Param
	fixed  bool
	b      []*bucket
	owner  []int // by parameter: its bucket

	cur    *exchange // the step whose gradients are being exchanged; nil between steps
	stats  Stats
	closed bool
}

// bucket is a run of parameters whose gradients are exchanged together.
type bucket struct {
	params  []int // indices into the parameters
	offsets []int // each one's first element in host
	host    []float32
	gather  []byte // FixedOrder: every rank's host, rank by rank
}

// Stats are a DataParallel's figures since it was made.
type Stats struct {
	Steps   int
	Buckets int   // buckets a step exchanges
	Bytes   int64 // gradient bytes a step exchanges (each rank's)
	// Exchange is the time buckets took, summed over buckets and steps,
	// from their readback's start (which waits for the device to compute
	// the gradients) to their average on the host. Collective is the part
	// of it in MPI's collectives, from their start to their end (waiting
	// for the slowest rank included); Hidden is the part of Collective
	// before the device had computed the step's last gradients (the last
	// readback in): the communication that backward hides.
	Exchange, Collective, Hidden time.Duration
	// Waited is the time Step waited for the exchange to end: what data
	// parallelism added to the step on the engine's goroutine.
	Waited time.Duration
}

// exchange is one step's exchange of gradients.
type exchange struct {
	ctx      context.Context
	cancel   context.CancelFunc
	reads    []*wgpu.Promise[[]byte] // by parameter: its gradient's readback; nil: not yet (or no gradient)
	zero     []bool                  // by parameter: no gradient on this rank, exchanged as zeros
	pending  []int                   // by bucket: readbacks still to start
	full     []chan struct{}         // by bucket: closed once every readback has started
	done     []chan error            // by bucket: its exchange's outcome
	started  []time.Time             // by bucket: its first readback's start
	finished []time.Time             // by bucket: when its average was ready
	read     []time.Time             // by bucket: when its readbacks were in
	comm     []time.Duration         // by bucket: its collective's time
}

// NewDataParallel checks that every rank's optimizer holds the same
// parameters (names, dtypes, shapes: ErrMismatch names the first
// difference on every rank), copies rank 0's values into every rank's
// parameters, and returns the DataParallel of opt on e. Parameters must be
// float32 (gradients are). opts may be nil. Every rank calls it, on e's
// goroutine.
func NewDataParallel(ctx context.Context, c *Comm, e *tensor.Engine, opt optim.Optimizer, opts *DataParallelOptions) (*DataParallel, error) {
	if c == nil || e == nil || opt == nil {
		return nil, fmt.Errorf("%w: NewDataParallel needs a Comm, an Engine and an optimizer", ErrArgument)
	}
	var o DataParallelOptions
	if opts != nil {
		o = *opts
	}
	if o.BucketBytes < 0 {
		return nil, fmt.Errorf("%w: bucket of %d B", ErrArgument, o.BucketBytes)
	}
	if o.BucketBytes == 0 {
		o.BucketBytes = DefaultBucketBytes
	}
	ps := opt.Params()
	if err := c.CheckSame(ctx, ps); err != nil {
		return nil, err
	}
	for _, p := range ps {
		if p.T.DType() != tensor.Float32 {
			return nil, fmt.Errorf("%w: parameter %q is %s: data-parallel training exchanges float32 gradients", ErrArgument, p.Name, p.T.DType())
		}
	}
	ts := make([]*tensor.Tensor, len(ps))
	for i, p := range ps {
		ts[i] = p.T
	}
	if err := c.BroadcastTensors(ctx, e, ts, 0, o.BucketBytes); err != nil {
		return nil, err
	}
	d := &DataParallel{c: c, e: e, opt: opt, params: ps, fixed: o.FixedOrder, owner: make([]int, len(ps))}
	var cur *bucket
	size := 0
	for i := len(ps) - 1; i >= 0; i-- {
		n := ps[i].T.Size()
		if cur == nil || (size+n)*4 > o.BucketBytes {
			cur = &bucket{}
			d.b = append(d.b, cur)
			size = 0
		}
		cur.params = append(cur.params, i)
		cur.offsets = append(cur.offsets, size)
		size += n
		d.owner[i] = len(d.b) - 1
	}
	for _, b := range d.b {
		last := b.params[len(b.params)-1]
		b.host = make([]float32, b.offsets[len(b.offsets)-1]+ps[last].T.Size())
		if d.fixed {
			b.gather = make([]byte, 4*len(b.host)*c.Size())
		}
		d.stats.Bytes += int64(4 * len(b.host))
	}
	d.stats.Buckets = len(d.b)
	return d, nil
}

// Stats returns d's figures. Like d, it belongs to the engine's
// goroutine.
func (d *DataParallel) Stats() Stats { return d.stats }

// Ready is grad.Options.Ready for a backward whose wrt are the
// optimizer's parameters, in its order: it starts the readback of
// gradient i and, once a bucket's gradients are all final, its exchange
// with the other ranks, while backward goes on.
func (d *DataParallel) Ready(i int, g *tensor.Tensor) {
	if d.closed || i < 0 || i >= len(d.params) || d.c.Size() == 1 {
		return // closed, not one of the parameters (Step reports the mismatch), or nothing to exchange
	}
	if !g.Shape().Equal(d.params[i].T.Shape()) {
		return // Step refuses it, naming the parameter
	}
	x := d.exchangeFor()
	if x.reads[i] != nil || x.zero[i] {
		return // heard of already (wrt names it twice)
	}
	x.reads[i] = g.Data()
	d.readStarted(x, i)
}

// exchangeFor returns the current step's exchange, starting it (and the
// goroutine that exchanges its buckets in order) on a step's first call.
func (d *DataParallel) exchangeFor() *exchange {
	if d.cur != nil {
		return d.cur
	}
	nb := len(d.b)
	x := &exchange{reads: make([]*wgpu.Promise[[]byte], len(d.params)), zero: make([]bool, len(d.params)),
		pending: make([]int, nb), full: make([]chan struct{}, nb), done: make([]chan error, nb),
		started: make([]time.Time, nb), finished: make([]time.Time, nb), read: make([]time.Time, nb), comm: make([]time.Duration, nb)}
	x.ctx, x.cancel = context.WithCancel(context.Background())
	for k, b := range d.b {
		x.pending[k] = len(b.params)
		x.full[k] = make(chan struct{})
		x.done[k] = make(chan error, 1)
	}
	d.cur = x
	go d.exchangeBuckets(x)
	return x
}

// readStarted notes that parameter i's gradient is on its way (or is
// none), and hands its bucket to the exchange once it is complete.
func (d *DataParallel) readStarted(x *exchange, i int) {
	k := d.owner[i]
	if x.started[k].IsZero() {
		x.started[k] = time.Now()
	}
	x.pending[k]--
	if x.pending[k] == 0 {
		close(x.full[k])
	}
}

// exchangeBuckets exchanges x's buckets in their order, which is the
// same on every rank whatever order they fill in: collectives must
// match. A bucket's collective starts once its readbacks are in; its
// completion is awaited on a goroutine of its own, so that the next
// bucket's collective starts meanwhile.
func (d *DataParallel) exchangeBuckets(x *exchange) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for k, b := range d.b {
		select {
		case <-x.full[k]:
		case <-x.ctx.Done():
			x.done[k] <- fmt.Errorf("%w: rank %d: step abandoned before bucket %d was exchanged", ErrFault, d.c.Rank(), k)
			continue
		}
		p, err := d.startBucket(x, b)
		if err != nil {
			x.done[k] <- err
			continue
		}
		x.read[k] = p.start
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := p.wait(x.ctx)
			if err == nil {
				x.comm[k] = time.Since(p.start)
				d.average(b)
				x.finished[k] = time.Now()
			}
			x.done[k] <- err
		}()
	}
}

// startBucket gathers b's gradients into its host copy and starts its
// collective.
func (d *DataParallel) startBucket(x *exchange, b *bucket) (*pending, error) {
	host := floatBytes(b.host)
	for j, i := range b.params {
		dst := host[4*b.offsets[j] : 4*(b.offsets[j]+d.params[i].T.Size())]
		if x.zero[i] {
			clear(dst)
			continue
		}
		v, err := x.reads[i].Await(x.ctx)
		if err != nil { // the other ranks will wait for this bucket in vain
			return nil, d.c.fail(fmt.Errorf("%w: rank %d: reading back the gradient of %q: %w", ErrFault, d.c.Rank(), d.params[i].Name, err))
		}
		copy(dst, v)
	}
	what := fmt.Sprintf("gradient exchange of %d B", len(host))
	if d.fixed {
		return d.c.begin(what, func() (request, error) { return d.c.w.AllGather(host, b.gather) })
	}
	return d.c.begin(what, func() (request, error) { return d.c.w.AllReduceSum(b.host) })
}

// average turns b's exchanged values into the ranks' mean, in b.host:
// the all-reduced sum divided by Size, or with FixedOrder the gathered
// values summed in rank order, then divided.
func (d *DataParallel) average(b *bucket) {
	n := float32(d.c.Size())
	if d.fixed {
		size := len(b.host)
		ranks := make([][]float32, d.c.Size())
		for r := range ranks {
			ranks[r] = bytesFloats(b.gather[4*size*r : 4*size*(r+1)])
		}
		for j := range b.host {
			s := ranks[0][j]
			for _, v := range ranks[1:] {
				s += v[j]
			}
			b.host[j] = s / n
		}
		return
	}
	for j := range b.host {
		b.host[j] /= n
	}
}

// Step waits for the exchange of every bucket (starting those Ready did
// not), writes the ranks' average into each gradient, in place, and
// steps the optimizer with them. grads are the gradients of the
// optimizer's parameters, in its order; a nil one (a parameter this
// rank's batch did not reach) is exchanged as zeros and replaced by a new
// tensor of the average, which the caller owns. On one rank it steps the
// optimizer at once: the mean is the gradient. On a fault or timeout of
// the exchange it returns the error (ErrTimeout, ErrFault) and does not
// step: the Comm is broken, and the process should exit.
func (d *DataParallel) Step(ctx context.Context, grads []*tensor.Tensor) error {
	if d.closed {
		return fmt.Errorf("%w: Step after Close", ErrArgument)
	}
	if len(grads) != len(d.params) {
		return fmt.Errorf("%w: %d gradients for %d parameters", ErrArgument, len(grads), len(d.params))
	}
	for i, g := range grads {
		if g != nil && (g.DType() != tensor.Float32 || !g.Shape().Equal(d.params[i].T.Shape())) {
			err := fmt.Errorf("%w: gradient %d is %s %v, parameter %q float32 %v: give the gradients in the optimizer's order", ErrArgument, i, g.DType(), g.Shape(), d.params[i].Name, d.params[i].T.Shape())
			if d.cur != nil { // its exchange has begun: the ranks no longer match
				d.cur.cancel()
				d.cur = nil
				return d.c.fail(err)
			}
			return err
		}
	}
	if d.c.Size() == 1 { // the mean is the gradient itself
		for i, g := range grads {
			if g == nil {
				grads[i] = d.e.Zeros(tensor.Float32, d.params[i].T.Shape()...)
			}
		}
		d.stats.Steps++
		return d.opt.Step(grads)
	}
	called := time.Now()
	x := d.exchangeFor()
	d.cur = nil
	defer x.cancel()
	for i, g := range grads {
		switch {
		case x.reads[i] != nil || x.zero[i]:
		case g == nil:
			x.zero[i] = true
			d.readStarted(x, i)
		default:
			x.reads[i] = g.Data()
			d.readStarted(x, i)
		}
	}
	stop := context.AfterFunc(ctx, x.cancel)
	defer stop()
	var first error
	for k := range d.b {
		if err := <-x.done[k]; err != nil && first == nil {
			first = err
		}
	}
	d.stats.Waited += time.Since(called)
	if first != nil {
		return first
	}
	lastRead := slices.MaxFunc(x.read, time.Time.Compare) // the device had computed every gradient
	for k, b := range d.b {
		d.stats.Exchange += x.finished[k].Sub(x.started[k])
		d.stats.Collective += x.comm[k]
		if lastRead.After(x.read[k]) {
			d.stats.Hidden += min(x.comm[k], lastRead.Sub(x.read[k]))
		}
		for j, i := range b.params {
			if grads[i] == nil {
				grads[i] = d.e.Zeros(tensor.Float32, d.params[i].T.Shape()...)
			}
			n := d.params[i].T.Size()
			if err := d.e.WriteBytes(grads[i], 0, floatBytes(b.host[b.offsets[j]:b.offsets[j]+n])); err != nil {
				return err
			}
		}
	}
	d.stats.Steps++
	return d.opt.Step(grads)
}

// Close abandons an exchange in flight (a step whose gradients were
// never stepped: the Comm is broken then, since the other ranks' exchange
// will not be matched) and lets go of the host buffers; Step fails
// afterwards. The optimizer and the Comm stay the caller's.
func (d *DataParallel) Close() {
	if d.cur != nil {
		d.cur.cancel()
		d.cur = nil
	}
	d.b, d.closed = nil, true
}

// floatBytes views f as its little-endian bytes (WebGPU's byte order).
func floatBytes(f []float32) []byte {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), 4*len(f))
}

// bytesFloats views b (whole words) as float32s.
func bytesFloats(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}
