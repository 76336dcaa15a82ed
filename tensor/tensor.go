package tensor

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/wgtensor/wgtensor/wgpu"
)

// Tensor is an n-dimensional array of one dtype on the GPU. Ops return
// new tensors; only Engine.Assign, a custom kernel's Launch.InOut and
// Engine.WriteBytes write into an existing tensor's storage, seen by every tensor sharing it
// (Version counts those writes). Reshape and Clone share storage with
// their source, reference-counted, so disposing one never frees storage
// another still uses.
//
// A tensor made by a failed op carries the error (Err); ops on it return
// it again and its readbacks reject with it. It holds no memory.
//
// Dispose, Err, Shape, DType, ID and readbacks are safe for concurrent use.
// An op or a readback that has checked t holds its storage until it has
// recorded the work that reads it, so disposing t meanwhile, from any
// goroutine, is safe: the reader sees t's values or, if t was disposed
// before the reader checked it, fails with ErrDisposed; never the values
// of a tensor that got t's buffer from the pool since.
type Tensor struct {
	eng      *Engine
	id       uint64
	shape    Shape
	dtype    DType
	cat      Category // what its memory is for (history.go); protected by st.holdMu once it has storage
	st       *storage
	err      error
	site     stack
	disposed atomic.Bool
	kept     atomic.Bool
}

// Keep marks t to survive every tidy scope it is created in, as tf.keep
// does; it is disposed only by Dispose. On a nil Tensor it does nothing.
func (t *Tensor) Keep() {
	if t != nil {
		t.kept.Store(true)
	}
}

// Kept reports whether Keep was called.
func (t *Tensor) Kept() bool { return t != nil && t.kept.Load() }

// made reports whether an Engine made t: t is neither nil nor the zero
// Tensor. Every tensor an op returns has storage or carries an error.
func (t *Tensor) made() bool { return t != nil && (t.st != nil || t.err != nil) }

// notMade is the error a nil or zero Tensor gives for op.
func notMade(op string) error {
	return opErr(op, nil, ErrArgument, "nil or zero Tensor: tensors come from an Engine's ops")
}

// storage is a buffer shared by the tensors that view it.
type storage struct {
	buf  *wgpu.Buffer
	refs atomic.Int32
	// pending is the elementwise op that will write buf, until its fusion
	// group is dispatched (fusion.go).
	pending atomic.Pointer[node]
	// failed is the error of a dispatch that should have written buf.
	failed atomic.Pointer[error]
	// version counts the in-place writes to buf (assign.go).
	version atomic.Uint64
	// readers are the fusion groups not yet dispatched that read buf
	// (assign.go): an in-place write dispatches them first.
	readers readerSet

	// holders are the live tensors that view the storage, oldest first;
	// buf's reports name the first one's site (see dropHolder). refs
	// counts them and also the queued fused ops and reads in progress.
	holdMu  sync.Mutex
	holders []*Tensor
	// cat is the strongest of the holders' categories, and scope the
	// labels the storage was made under (history.go). Protected by holdMu.
	cat   Category
	scope string
}

// addHolder records t, a new tensor viewing the storage.
func (s *storage) addHolder(t *Tensor) {
	s.holdMu.Lock()
	s.holders = append(s.holders, t)
	changed := s.recategorizeLocked()
	s.holdMu.Unlock()
	if changed {
		s.describe(t.eng)
	}
}

// dropHolder forgets t, which is being disposed, and reports whether it
// was the last tensor viewing the storage. When t was the one whose site
// the buffer's reports name and another tensor still views it, the
// reports name that one's site from now on: a leak report shows the line
// that made a tensor the user can still find, as LiveTensors does.
func (s *storage) dropHolder(t *Tensor) (last bool) {
	s.holdMu.Lock()
	i := slices.Index(s.holders, t)
	if i >= 0 {
		s.holders = slices.Delete(s.holders, i, i+1)
	}
	var next *Tensor
	if i == 0 && len(s.holders) > 0 {
		next = s.holders[0]
	}
	last = len(s.holders) == 0
	changed := !last && s.recategorizeLocked()
	s.holdMu.Unlock()
	if next != nil && next.site != t.site {
		s.buf.Attribute(next.site[:])
	}
	if changed {
		s.describe(t.eng)
	}
	return last
}

// retain takes another reference; the caller must hold one already.
func (s *storage) retain() { s.refs.Add(1) }

// retainIfAlive takes a reference unless the last one is gone already,
// and reports whether it did.
func (s *storage) retainIfAlive() bool {
	for {
		r := s.refs.Load()
		if r <= 0 {
			return false
		}
		if s.refs.CompareAndSwap(r, r+1) {
			return true
		}
	}
}

// release drops a reference and reports whether it was the last, which
// gives the buffer back.
func (s *storage) release() bool {
	if s.refs.Add(-1) != 0 {
		return false
	}
	if n := s.pending.Load(); n != nil {
		n.released()
	}
	s.buf.Release()
	return true
}

// err is the error a dispatch that should have written s failed with.
func (s *storage) err() error {
	if p := s.failed.Load(); p != nil {
		return *p
	}
	return nil
}

// ID is unique among the tensors of the process (0 for a nil or zero
// Tensor).
//
// ID, Shape, Rank, Size, DType, Engine and Site answer for a nil or zero
// Tensor too, with zero values (the zero Tensor has the scalar shape).
func (t *Tensor) ID() uint64 {
	if t == nil {
		return 0
	}
	return t.id
}

// Shape returns a copy of t's dimensions.
func (t *Tensor) Shape() Shape {
	if t == nil {
		return nil
	}
	return t.shape.clone()
}

// Rank is the number of dimensions.
func (t *Tensor) Rank() int {
	if t == nil {
		return 0
	}
	return len(t.shape)
}

// Size is the number of elements.
func (t *Tensor) Size() int {
	if t == nil {
		return 0
	}
	return t.shape.Size()
}

// DType is t's element type.
func (t *Tensor) DType() DType {
	if t == nil {
		return Float32
	}
	return t.dtype
}

// Err is the error of the op that made t, or nil. A nil or zero Tensor,
// which no op made, reports ErrArgument.
func (t *Tensor) Err() error {
	if !t.made() {
		return notMade("err")
	}
	return t.err
}

// Engine returns the engine that made t.
func (t *Tensor) Engine() *Engine {
	if t == nil {
		return nil
	}
	return t.eng
}

// IsDisposed reports whether t was disposed (tensors carrying an error,
// and nil or zero Tensors, count as disposed: they hold nothing).
func (t *Tensor) IsDisposed() bool { return !t.made() || t.disposed.Load() }

// Site is where t was created: its String is the line of the user's code
// that called the op, and Chain the calls that led there.
func (t *Tensor) Site() Site {
	if t == nil {
		return Site{}
	}
	return Site{t.site}
}

func (t *Tensor) bytes() uint64 { return storageBytes(t.shape.Size(), t.dtype) }

// storageBytes is the bytes n elements of dtype take in a buffer: whole
// 32-bit words.
func storageBytes(n int, dtype DType) uint64 {
	return (uint64(n)*uint64(dtype.Size()) + 3) &^ 3
}

// hold takes a reference on t's storage, unless t was disposed (or its
// storage freed) already or has none, and reports whether it did. The
// caller releases it: while it is held, t's buffer is never given to
// another tensor.
func (t *Tensor) hold() bool {
	return !t.disposed.Load() && t.st != nil && t.st.retainIfAlive()
}

// buf returns t's buffer, dispatching the fused ops that write it first
// if they are still pending: callers are about to read it.
func (t *Tensor) buf() *wgpu.Buffer {
	t.st.materialize()
	return t.st.buf
}

// SharesStorage reports whether t and u are views of one storage (a
// Reshape or Clone of the other, or of a common source), so that a write
// into one is seen through the other: what a writer of tensors checks to
// refuse reading what it writes. It is false when either is nil, carries
// an error or is disposed. Safe for concurrent use.
func (t *Tensor) SharesStorage(u *Tensor) bool {
	if t == nil || u == nil || t.st == nil || u.st == nil || t.disposed.Load() || u.disposed.Load() {
		return false
	}
	return t.st == u.st
}

// StorageID identifies t's storage among the live storages of its
// device: tensors that share storage (SharesStorage) have the same one,
// others on the device differ. It is 0 when t is nil, carries an error or
// is disposed. Safe for concurrent use.
func (t *Tensor) StorageID() uint64 {
	if t == nil || t.st == nil || t.disposed.Load() {
		return 0
	}
	return t.st.buf.ID()
}

// Dispose frees t. Its storage returns to the device's pool once no other
// tensor shares it and no op or readback still reads it. Disposing twice is
// harmless, as is disposing a nil or zero Tensor. A readback of t started
// before Dispose still resolves with t's values.
func (t *Tensor) Dispose() {
	if t == nil || t.st == nil || t.disposed.Swap(true) {
		return // nil, zero, carrying an error, or disposed already
	}
	t.eng.mu.Lock()
	delete(t.eng.live, t)
	t.eng.mu.Unlock()
	last := t.st.dropHolder(t)
	if !t.st.release() && last {
		// No tensor views the buffer, but a queued fused op or a read
		// being recorded still holds it: say so in the device's reports.
		t.st.buf.AwaitWork()
	}
}

// String prints t's id, dtype and shape, or its error, without reading
// anything back, so fmt.Print(t) never blocks; Text prints the values.
func (t *Tensor) String() string {
	if !t.made() {
		return "Tensor(nil or zero)"
	}
	if t.err != nil {
		return fmt.Sprintf("Tensor(%d, error: %v)", t.id, t.err)
	}
	return fmt.Sprintf("Tensor(%d, %s %s)", t.id, t.dtype, t.shape)
}

// Data starts reading t's elements back as little-endian bytes, 4 per
// element (2 for float16 and bfloat16, with 2 more after an odd count's
// last: storage is whole words), and returns at once. If t is disposed meanwhile, by any
// goroutine, the promise resolves with t's values or rejects with
// ErrDisposed; it never sees another tensor's.
func (t *Tensor) Data() *wgpu.Promise[[]byte] {
	if err := t.holdForRead(); err != nil {
		return wgpu.RejectedWith[[]byte](err)
	}
	defer t.st.release() // once the copy is recorded, the buffer may go
	return t.eng.dev.ReadAsync(t.st.buf, 0, t.bytes())
}

// holdForRead checks that t can be read, holds its storage (the caller
// releases it once the copy is recorded) and dispatches the fused ops
// that write it if they are pending.
func (t *Tensor) holdForRead() error {
	switch {
	case !t.made():
		return notMade("read")
	case t.err != nil:
		return t.err
	case !t.hold():
		return disposedErr("read", []Shape{t.shape}, -1, t.id)
	}
	runHook(t.eng.hooks.checked)
	t.st.materialize()
	if err := t.st.err(); err != nil {
		t.st.release()
		return err
	}
	return nil
}

// Float32s reads a float32 tensor back, blocking until it arrives or ctx
// ends; a float16 or bfloat16 one comes back widened, exactly.
func (t *Tensor) Float32s(ctx context.Context) ([]float32, error) {
	if t.made() && t.err == nil && t.dtype.half() {
		return widened(ctx, t)
	}
	return read[float32](ctx, t, Float32)
}

// Int32s reads an int32 tensor back.
func (t *Tensor) Int32s(ctx context.Context) ([]int32, error) {
	return read[int32](ctx, t, Int32)
}

// Uint32s reads a uint32 tensor back.
func (t *Tensor) Uint32s(ctx context.Context) ([]uint32, error) {
	return read[uint32](ctx, t, Uint32)
}

// read copies t's elements from the mapped staging buffer straight into
// the slice it returns: one allocation and one copy, whatever the size.
func read[T word](ctx context.Context, t *Tensor, want DType) ([]T, error) {
	if err := checkRead(t, want, -1); err != nil {
		return nil, err
	}
	out := make([]T, t.Size())
	if err := readInto(ctx, t, out); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadInto reads t back into dst, blocking until it arrives or ctx ends.
// dst's element type must be t's dtype (float32, int32 or uint32) and its
// length t's size. Unlike Float32s and its kin it allocates nothing, so a
// loop that reads large tensors can reuse one host slice. If it fails,
// dst's contents are unspecified.
func ReadInto[T float32 | int32 | uint32](ctx context.Context, t *Tensor, dst []T) error {
	want := Float32
	switch any(dst).(type) {
	case []int32:
		want = Int32
	case []uint32:
		want = Uint32
	}
	if err := checkRead(t, want, len(dst)); err != nil {
		return err
	}
	return readInto(ctx, t, dst)
}

// checkRead returns the error that reading t as want into n elements (-1:
// as many as t has) fails with, or nil; readInto reports a disposed t.
func checkRead(t *Tensor, want DType, n int) error {
	switch {
	case !t.made():
		return notMade("read")
	case t.err != nil:
		return t.err
	case t.dtype != want:
		return opErr("read", []Shape{t.shape}, ErrDType, "tensor is %s, not %s", t.dtype, want)
	case n >= 0 && n != t.Size():
		return opErr("read", []Shape{t.shape}, ErrShape, "%d elements into a slice of %d", t.Size(), n)
	}
	return nil
}

func readInto[T word](ctx context.Context, t *Tensor, dst []T) error {
	if err := t.holdForRead(); err != nil {
		return err
	}
	p := t.eng.dev.ReadAsyncInto(t.st.buf, 0, wordBytes(dst))
	t.st.release() // the copy is recorded: the buffer may go
	if _, err := p.Await(ctx); err != nil {
		return err
	}
	fromGPUOrder(dst)
	return nil
}

// Float32sFromBytes decodes the little-endian bytes of Data as float32s.
func Float32sFromBytes(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}
