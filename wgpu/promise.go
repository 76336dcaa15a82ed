package wgpu

import (
	"context"
	"sync"
)

// PromiseState is where a promise is in its life, like a JavaScript promise's.
type PromiseState int

// The promise states.
const (
	Pending PromiseState = iota
	Fulfilled
	Rejected
)

func (s PromiseState) String() string {
	switch s {
	case Fulfilled:
		return "fulfilled"
	case Rejected:
		return "rejected"
	}
	return "pending"
}

// Promise is the result of asynchronous GPU work, such as a readback. Like a
// WebGPU promise it settles only when the device is polled: by Await, by
// Device.Poll, by frame.Next, or by the device's background poller.
//
// A Promise is safe for concurrent use by multiple goroutines: any number
// may Await it, and all see the same result.
type Promise[T any] struct {
	// wait asks the producer to make progress until done closes or ctx
	// ends, or to arrange for that progress; nil if none is needed.
	wait func(ctx context.Context, done <-chan struct{})
	done chan struct{}

	mu    sync.Mutex // protects the fields below
	state PromiseState
	val   T
	err   error
	thens []func(T, error)
}

func newPromise[T any](wait func(context.Context, <-chan struct{})) *Promise[T] {
	return &Promise[T]{wait: wait, done: make(chan struct{})}
}

// Resolved returns a promise already fulfilled with v.
func Resolved[T any](v T) *Promise[T] {
	p := newPromise[T](nil)
	p.settle(v, nil)()
	return p
}

// RejectedWith returns a promise already rejected with err.
func RejectedWith[T any](err error) *Promise[T] {
	p := newPromise[T](nil)
	var zero T
	p.settle(zero, err)()
	return p
}

// settle fulfils (err == nil) or rejects the promise, unless it has settled
// already. It returns the function that runs the Then callbacks, which the
// caller runs once it holds no lock.
func (p *Promise[T]) settle(v T, err error) (runThens func()) {
	p.mu.Lock()
	if p.state != Pending {
		p.mu.Unlock()
		return func() {}
	}
	if err != nil {
		p.state = Rejected
		p.err = err
	} else {
		p.state = Fulfilled
		p.val = v
	}
	thens := p.thens
	p.thens = nil
	close(p.done)
	p.mu.Unlock()
	return func() {
		for _, f := range thens {
			f(v, err)
		}
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
// A nil or zero Promise reports Rejected.
func (p *Promise[T]) State() PromiseState {
	if p.notAPromise() {
		return Rejected
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

// Then registers f to run with the result when the promise settles, on the
// goroutine that settles it (the polling goroutine). If the promise has
// settled already, f runs before Then returns. f must not block. On a nil
// or zero Promise, f runs at once with an error wrapping ErrInvalidArgument.
// A nil f is ignored.
func (p *Promise[T]) Then(f func(T, error)) {
	if f == nil {
		return
	}
	if p.notAPromise() {
		var zero T
		f(zero, errNotAPromise)
		return
	}
	p.mu.Lock()
	if p.state == Pending {
		p.thens = append(p.thens, f)
		p.mu.Unlock()
		return
	}
	v, err := p.val, p.err
	p.mu.Unlock()
	f(v, err)
}

// Await submits the work the promise depends on, polls the device until the
// promise settles, and returns its result. If ctx is done first, Await
// returns ctx.Err() and the promise stays pending: its resources are
// reclaimed when it settles, and it may be awaited again. Awaiting a nil or
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
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	if p.wait != nil {
		p.wait(ctx, p.done)
	}
	select {
	case <-p.done:
		return p.result()
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

func (p *Promise[T]) result() (T, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.val, p.err
}

// Then returns a promise of f applied to p's value. A rejection of p passes
// through without calling f. Awaiting the new promise drives p's device.
// For a nil or zero p, or a nil f, it is rejected with an error wrapping
// ErrInvalidArgument.
func Then[T, U any](p *Promise[T], f func(T) (U, error)) *Promise[U] {
	if p.notAPromise() {
		return RejectedWith[U](errNotAPromise)
	}
	if f == nil {
		return RejectedWith[U](newError("then", ErrInvalidArgument, "nil function"))
	}
	q := newPromise[U](p.wait)
	p.Then(func(v T, err error) {
		var u U
		if err == nil {
			u, err = f(v)
		}
		q.settle(u, err)()
	})
	return q
}
