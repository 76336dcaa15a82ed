package dist

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Errors. Every error of this package wraps one of these, or a tensor or
// optimizer error it was given.
var (
	// ErrNoMPI: this binary was built without MPI (the build tag mpi), or
	// MPI did not initialise.
	ErrNoMPI = errors.New("dist: MPI unavailable")
	// ErrTimeout: a collective did not complete within Options.Timeout: a
	// rank died, stalls, or called another collective. The Comm is broken.
	ErrTimeout = errors.New("dist: timed out")
	// ErrFault: MPI reported an error, a collective was abandoned (its
	// context ended), or an earlier fault broke the Comm.
	ErrFault = errors.New("dist: fault")
	// ErrMismatch: the ranks disagree on what they must share: their
	// models' parameters (names, dtypes, shapes) or a collective's size.
	ErrMismatch = errors.New("dist: ranks differ")
	// ErrArgument: a bad argument (a root out of range, a nil model...).
	ErrArgument = errors.New("dist: invalid argument")
)

// DefaultTimeout is how long a collective waits for the other ranks when
// Options.Timeout is 0.
const DefaultTimeout = 10 * time.Minute

// Options configure Init.
type Options struct {
	// Timeout bounds the wait of every collective: past it, the call
	// returns ErrTimeout instead of hanging on a rank that died or
	// stalls. 0 means DefaultTimeout.
	Timeout time.Duration
}

// Comm is this process's place in a job of Size processes (ranks) that
// mpirun (or a cluster's MPI launcher) started: its Rank, and the
// collectives that every rank calls in the same order. A rank that waits
// longer than the timeout for the others returns ErrTimeout rather than
// hang; after a timeout or another fault the Comm is broken and every
// call returns the fault (MPI cannot take back a collective in flight).
//
// Its methods are safe from any goroutine, but collectives must be
// started in the same order on every rank: calling two at once from
// different goroutines makes that order a race.
type Comm struct {
	w       world
	timeout time.Duration

	mu     sync.Mutex
	broken error // the fault that broke it; nil while usable
	closed bool
}

// MPIBuiltIn reports whether this binary was built with the MPI binding
// (the build tag mpi), without initialising MPI: whether Init can work.
func MPIBuiltIn() bool { return mpiBuiltIn }

// Init initialises MPI and returns this process's Comm. MPI initialises
// once per process: call Init once, and Close before exiting. In a binary
// built without the tag mpi, or when MPI does not initialise, it fails
// with ErrNoMPI.
//
// A process started outside mpirun is a job of one rank (MPI's singleton
// start), so a data-parallel program also runs alone.
func Init(opts Options) (*Comm, error) {
	if opts.Timeout < 0 {
		return nil, fmt.Errorf("%w: negative timeout %v", ErrArgument, opts.Timeout)
	}
	w, err := openWorld()
	if err != nil {
		if errors.Is(err, ErrNoMPI) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", ErrNoMPI, err)
	}
	t := opts.Timeout
	if t == 0 {
		t = DefaultTimeout
	}
	return &Comm{w: w, timeout: t}, nil
}

// Rank is this process's rank, in [0, Size()).
func (c *Comm) Rank() int { return c.w.Rank() }

// Size is the number of ranks.
func (c *Comm) Size() int { return c.w.Size() }

// LocalRank is this process's rank among the ranks on its machine: the
// adapter it should open where a machine has one GPU per rank.
func (c *Comm) LocalRank() int { return c.w.LocalRank() }

// LocalSize is the number of ranks on this process's machine.
func (c *Comm) LocalSize() int { return c.w.LocalSize() }

// Timeout is the longest a collective waits for the other ranks.
func (c *Comm) Timeout() time.Duration { return c.timeout }

// Err returns the fault that broke c, or nil.
func (c *Comm) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.broken
}

// Close ends MPI on this rank (MPI_Finalize, which every rank calls).
// After a fault it does not: finalising would wait for the rank that
// failed, so it returns the fault and the process should exit (mpirun
// then ends the job). Closing twice does nothing.
func (c *Comm) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if c.broken != nil {
		return c.broken
	}
	if err := c.w.Finalize(); err != nil {
		return fmt.Errorf("%w: %w", ErrFault, err)
	}
	return nil
}

// usable returns the error of a collective what on c: its fault, or
// ErrFault after Close.
func (c *Comm) usable(what string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.broken != nil:
		return fmt.Errorf("dist: %s: the communicator is broken: %w", what, c.broken)
	case c.closed:
		return fmt.Errorf("%w: %s after Close", ErrFault, what)
	}
	return nil
}

// fail breaks c with err (the first fault stays) and returns err.
func (c *Comm) fail(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken == nil {
		c.broken = err
	}
	return err
}

// pending is a collective started on c, which wait completes.
type pending struct {
	c     *Comm
	what  string
	r     request
	start time.Time
}

// begin starts a collective with start, unless c is broken.
func (c *Comm) begin(what string, start func() (request, error)) (*pending, error) {
	if err := c.usable(what); err != nil {
		return nil, err
	}
	r, err := start()
	if err != nil {
		return nil, c.fail(fmt.Errorf("%w: rank %d: %s: %w", ErrFault, c.Rank(), what, err))
	}
	return &pending{c: c, what: what, r: r, start: time.Now()}, nil
}

// wait polls p until it completes, c's timeout passes since it started
// (ErrTimeout), ctx ends or MPI fails (ErrFault). Any of those breaks c:
// the collective stays in flight, and the ranks' collectives no longer
// match.
func (p *pending) wait(ctx context.Context) error {
	c := p.c
	deadline := p.start.Add(c.timeout)
	var sleep time.Duration // none for the first spinTime: a small collective ends in microseconds
	for {
		done, err := p.r.Test()
		switch {
		case err != nil:
			return c.fail(fmt.Errorf("%w: rank %d: %s: %w", ErrFault, c.Rank(), p.what, err))
		case done:
			return nil
		case ctx.Err() != nil:
			return c.fail(fmt.Errorf("%w: rank %d: %s abandoned in flight: %w", ErrFault, c.Rank(), p.what, context.Cause(ctx)))
		}
		now := time.Now()
		if now.After(deadline) {
			return c.fail(fmt.Errorf("%w: rank %d: %s did not complete within %v: a rank died, stalls, or called another collective", ErrTimeout, c.Rank(), p.what, c.timeout))
		}
		if now.Sub(p.start) < spinTime {
			runtime.Gosched()
			continue
		}
		sleep = min(max(2*sleep, 20*time.Microsecond), time.Millisecond)
		time.Sleep(sleep)
	}
}

// spinTime is how long wait polls a collective without sleeping: MPI moves
// a collective on only inside its calls, and a sleep costs tens of
// microseconds at least.
const spinTime = 200 * time.Microsecond

// run starts a collective and waits for it.
func (c *Comm) run(ctx context.Context, what string, start func() (request, error)) error {
	p, err := c.begin(what, start)
	if err != nil {
		return err
	}
	return p.wait(ctx)
}

// Barrier returns once every rank has called it.
func (c *Comm) Barrier(ctx context.Context) error {
	return c.run(ctx, "barrier", c.w.Barrier)
}

// AllReduceSum replaces buf, on every rank, by the element-wise sum of
// every rank's buf, in an order MPI chooses (which may differ from run to
// run in the last bits). Every rank passes a buf of the same length.
func (c *Comm) AllReduceSum(ctx context.Context, buf []float32) error {
	if len(buf) == 0 {
		return nil
	}
	return c.run(ctx, fmt.Sprintf("all-reduce of %d floats", len(buf)), func() (request, error) { return c.w.AllReduceSum(buf) })
}

// AllGather returns every rank's send, rank by rank, on every rank.
// Every rank passes a send of the same length.
func (c *Comm) AllGather(ctx context.Context, send []byte) ([]byte, error) {
	recv := make([]byte, c.Size()*len(send))
	if len(send) == 0 {
		return recv, nil
	}
	err := c.run(ctx, fmt.Sprintf("all-gather of %d B", len(send)), func() (request, error) { return c.w.AllGather(send, recv) })
	return recv, err
}

// Broadcast copies root's buf into every rank's buf. Every rank passes a
// buf of the same length.
func (c *Comm) Broadcast(ctx context.Context, buf []byte, root int) error {
	if root < 0 || root >= c.Size() {
		return fmt.Errorf("%w: broadcast from rank %d of %d", ErrArgument, root, c.Size())
	}
	if len(buf) == 0 {
		return nil
	}
	return c.run(ctx, fmt.Sprintf("broadcast of %d B from rank %d", len(buf), root), func() (request, error) { return c.w.Broadcast(buf, root) })
}

// AllGatherVar returns every rank's send, which may differ in length
// from rank to rank: two collectives, the lengths and then the bytes.
func (c *Comm) AllGatherVar(ctx context.Context, send []byte) ([][]byte, error) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(send)))
	lens, err := c.AllGather(ctx, n[:])
	if err != nil {
		return nil, err
	}
	most := 0
	for r := range c.Size() {
		most = max(most, int(binary.LittleEndian.Uint64(lens[8*r:])))
	}
	padded := make([]byte, most)
	copy(padded, send)
	all, err := c.AllGather(ctx, padded)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, c.Size())
	for r := range out {
		out[r] = all[r*most : r*most+int(binary.LittleEndian.Uint64(lens[8*r:]))]
	}
	return out, nil
}
