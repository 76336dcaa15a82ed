package wgpu

import (
	"context"
	"sync"
)

// PromiseState is where a promise is in its life, like a JavaScript promise's.
type PromiseState int

// The promise states.
const (
	PromisePending   PromiseState = iota // not settled yet
	PromiseFulfilled                     // settled with a value
	PromiseRejected                      // settled with an error
)

func (s PromiseState) String() string {
	switch s {
	case PromiseFulfilled:
		return "fulfilled"
	case PromiseRejected:
		return "rejected"
	}
	return "pending"
}

// Promise is the result of asynchronous GPU work, such as a readback. Like a
// WebGPU promise it settles only when the device is polled: by Await, by
// Device.Poll, by frame.Next, or by the device's background poller. Await
// blocks for the result; OnSettled runs a callback with it; Chain derives a
// promise of another value from it.
//
// A Promise is safe for concurrent use by multiple goroutines: any number
// may Await it, and all see the same result.
type Promise[T any] struct {
	// wait asks the producer to make progress until done closes or ctx
	// ends, or to arrange for that progress; nil if none is needed. It is
	// called even when ctx is done, so that the work gets submitted.
	wait func(ctx context.Context, done <-chan struct{})
	// abandon, if set, is called when an Await gives up, before it returns;
	// ReadAsyncInto's promises detach the caller's slice there.
	abandon func()
	done    chan struct{}

	mu        sync.Mutex // protects the fields below
	state     PromiseState
	val       T
	err       error
	callbacks []func(T, error) // OnSettled's, until the promise settles
}

func newPromise[T any](wait func(context.Context, <-chan struct{})) *Promise[T] {
	return &Promise[T]{wait: wait, done: make(chan struct{})}
}

// Resolved returns a promise already fulfilled with v.
func Resolved[T any](v T) *Promise[T] {
	p := newPromise[T](nil)
	p.settle(v, nil)
	return p
}

// RejectedWith returns a promise already rejected with err.
func RejectedWith[T any](err error) *Promise[T] {
	p := newPromise[T](nil)
	var zero T
	p.settle(zero, err)
	return p
}

// settle fulfils (err == nil) or rejects the promise, unless it has settled
// already. It never runs an OnSettled callback itself: they start on a goroutine
// of their own, so settle may be called under any lock.
func (p *Promise[T]) settle(v T, err error) {
	p.mu.Lock()
	if p.state != PromisePending {
		p.mu.Unlock()
		return
	}
	if err != nil {
		p.state = PromiseRejected
		p.err = err
	} else {
		p.state = PromiseFulfilled
		p.val = v
	}
	callbacks := p.callbacks
	p.callbacks = nil
	close(p.done)
	p.mu.Unlock()
	if len(callbacks) > 0 {
		go runCallbacks(callbacks, v, err)
	}
}

func runCallbacks[T any](callbacks []func(T, error), v T, err error) {
	for _, f := range callbacks {
		f(v, err)
	}
}

// notAPromise reports whether p is nil or the zero Promise, which no call
// returned: its methods act as for a promise rejected with
// errNotAPromise.
func (p *Promise[T]) notAPromise() bool { return p == nil || p.done == nil }

var errNotAPromise = newError("promise", ErrInvalidArgument, "nil or zero Promise")

// closedChan is the Done channel of nil and zero Promises.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// State reports whether the promise is pending, fulfilled or rejected.
// A nil or zero Promise reports PromiseRejected.
func (p *Promise[T]) State() PromiseState {
	if p.notAPromise() {
		return PromiseRejected
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state
}

// Done returns a channel that is closed when the promise settles. Waiting on
// it does not poll the device; Await does. A nil or zero Promise's is closed.
func (p *Promise[T]) Done() <-chan struct{} {
	if p.notAPromise() {
		return closedChan
	}
	return p.done
}

// OnSettled registers f to run with the result once the promise settles,
// fulfilled or rejected. To derive a promise of another value, use Chain.
//
// f runs on a goroutine of its own, started when the promise settles (at
// once if it has settled already): never on the goroutine that settles it
// and never while this package holds a lock. So f may call any method of
// the Device, Await other promises, or block; a blocked f holds up only the
// callbacks registered on the same promise after it. Callbacks registered
// before the promise settles run one after another, in the order they were
// registered; nothing orders them against other promises' callbacks.
//
// On a nil or zero Promise, f runs as for a rejected one, with an error
// wrapping ErrInvalidArgument. A nil f is ignored.
func (p *Promise[T]) OnSettled(f func(T, error)) {
	if f == nil {
		return
	}
	if p.notAPromise() {
		var zero T
		go f(zero, errNotAPromise)
		return
	}
	p.mu.Lock()
	if p.state == PromisePending {
		p.callbacks = append(p.callbacks, f)
		p.mu.Unlock()
		return
	}
	v, err := p.val, p.err
	p.mu.Unlock()
	go f(v, err)
}

// Await submits the work the promise depends on, polls the device until the
// promise settles, and returns its result. If ctx is done first (or already
// done when Await is called on a pending promise), Await returns ctx.Err()
// and leaves the promise to settle on its own: its work is still submitted
// and a poller goroutine drives it to the end, its resources are reclaimed
// when it settles, and it may be awaited again. A promise of ReadAsyncInto
// no longer writes into its slice once an Await has given up.
//
// Await checks ctx between the driver calls it makes; one call in progress
// (a submission or a poll, which on the GL backend may run the GPU work
// itself) is not interrupted. Awaiting a nil or
// zero Promise returns an error wrapping ErrInvalidArgument.
func (p *Promise[T]) Await(ctx context.Context) (T, error) {
	if p.notAPromise() {
		var zero T
		return zero, errNotAPromise
	}
	select {
	case <-p.done:
		return p.result()
	default:
	}
	if ctx.Err() != nil {
		// Given up before starting: let go of the caller's memory before
		// the work is submitted, then submit it all the same.
		zero, err := p.giveUp(ctx)
		if p.wait != nil {
			p.wait(ctx, p.done)
		}
		return zero, err
	}
	if p.wait != nil {
		p.wait(ctx, p.done)
	}
	select {
	case <-p.done:
		return p.result()
	case <-ctx.Done():
		return p.giveUp(ctx)
	}
}

// giveUp is Await's way out when ctx is done: it abandons the promise's
// claim on the caller's memory, then returns ctx.Err().
func (p *Promise[T]) giveUp(ctx context.Context) (T, error) {
	if p.abandon != nil {
		p.abandon()
	}
	var zero T
	return zero, ctx.Err()
}

func (p *Promise[T]) result() (T, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.val, p.err
}

// Chain returns a promise of f applied to p's value, as JavaScript's
// p.then(f) does: once p is fulfilled, it settles with f's result or f's
// error. A rejection of p passes through without calling f. f runs as
// OnSettled callbacks do: on a goroutine of its own, under no lock.
// Awaiting the new promise drives p's device, and an Await of it that gives
// up gives up p's claim on the caller's memory as an Await of p would (see
// ReadAsyncInto). For a nil or zero p, or a nil f, it is rejected with an
// error wrapping ErrInvalidArgument.
func Chain[T, U any](p *Promise[T], f func(T) (U, error)) *Promise[U] {
	if p.notAPromise() {
		return RejectedWith[U](errNotAPromise)
	}
	if f == nil {
		return RejectedWith[U](newError("chain", ErrInvalidArgument, "nil function"))
	}
	q := newPromise[U](p.wait)
	q.abandon = p.abandon
	p.OnSettled(func(v T, err error) {
		var u U
		if err == nil {
			u, err = f(v)
		}
		q.settle(u, err)
	})
	return q
}
