package wgpu

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wgtensor/wgtensor/wgpu/internal/native"
)

// Options choose an adapter and configure the device opened on it.
// The zero value picks the best adapter on any backend with no memory limit.
type Options struct {
	// Backend restricts the choice to one native API. When it is
	// BackendAny, WGT_BACKEND (as ParseBackend reads it) fills it in.
	Backend Backend
	// Adapter, when set, picks the adapter whose name or driver contains it
	// (case-insensitive), or, spelled "#N", the adapter at index N of
	// Adapters' list (see AdapterInfo.Matches). When it is empty,
	// WGT_ADAPTER fills it in.
	Adapter string
	// Power orders the adapters that match.
	Power PowerPreference
	// MemoryLimit caps the bytes the pool holds (live plus pooled). An
	// allocation that would pass it trims the pool, then fails with
	// ErrOutOfMemory. 0 means no limit beyond the driver's.
	MemoryLimit uint64
	// BatchSize is how many commands (dispatches and copies) are recorded
	// into one command buffer before it is submitted. 0 means 64.
	BatchSize int
	// WorkBudget is the most estimated work (see Work) one submission
	// carries: the open batch is submitted before a dispatch would take it
	// past the budget, and ops split larger dispatches. 0 means
	// DefaultWorkBudget of the adapter's type.
	WorkBudget Work
	// PollInterval, when positive, starts a background poller that settles
	// promises every interval even when nobody awaits them.
	PollInterval time.Duration
	// SpinWait is how long Await polls without blocking, yielding the
	// processor between polls, before it sleeps until a poller settles its
	// promise, as CUDA's default scheduling spins before it blocks. Small
	// readbacks settle well within it and return in about half the time
	// a blocked thread takes to wake. 0 means 250µs; negative never spins.
	SpinWait time.Duration
	// Float32 names departures from IEEE 754 float32 arithmetic to assume
	// even where the device, as Open measures it, has none: code generators
	// then produce what a device with those departures produces, bit for
	// bit where they keep results exact (tensor's elementwise ops do), so
	// that lavapipe can reproduce a GPU's results. WGT_FLOAT32
	// ("flush,div,sqrt", see ParseFloat32Behavior) adds to it.
	Float32 Float32Behavior
	// Poison, a debugging mode, fills every storage buffer the pool hands
	// out with PoisonWord, and fails every readback of a storage buffer that
	// finds it with ErrPoisoned: a kernel that leaves an element unwritten
	// then shows as an error, never as another tensor's old bytes. It costs
	// a write of each buffer's capacity. WGT_POISON=1 turns it on.
	Poison bool
	// OnUncapturedError receives errors that no error scope captured and no
	// call could return (a failed batch submission, say). If nil, they are
	// kept and returned by Device.UncapturedErrors.
	OnUncapturedError func(error)
}

const (
	defaultBatchSize = 64
	defaultSpinWait  = 250 * time.Microsecond
)

// LostReason says why a device was lost, as WebGPU's GPUDeviceLostReason.
type LostReason int

// The reasons.
const (
	LostUnknown   LostReason = iota // the driver or the runtime lost it
	LostDestroyed                   // Close destroyed it
)

func (r LostReason) String() string {
	if r == LostDestroyed {
		return "destroyed"
	}
	return "unknown"
}

// LostInfo is what Device.Lost settles with.
type LostInfo struct {
	Reason  LostReason
	Message string
}

// Device is an open WebGPU device with its buffer pool, command recorder,
// kernel cache and pending promises.
//
// A Device is safe for concurrent use by multiple goroutines. Calls that
// touch the GPU are serialised on one lock; polling happens outside it, so
// a goroutine waiting for the GPU does not block one recording work.
type Device struct {
	info    AdapterInfo
	limits  Limits          // as granted
	float32 Float32Behavior // as measured, with Options.Float32
	opts    Options
	lost    *Promise[LostInfo]

	dev *native.Device

	pollMu     sync.Mutex    // serialises polls and Close; taken before mu
	spinning   atomic.Bool   // a goroutine spins in Await
	stopPoller chan struct{} // closed by Close to stop the background poller
	pollerDone chan struct{}

	// mu protects the fields below and every call into native but Poll. For
	// a GL device it is glMu, which all GL devices share, and it covers
	// Poll's calls too (see glMu).
	mu         *sync.Mutex
	state      *Error // nil while usable, else why not (closed or lost)
	closed     bool
	pool       poolState
	recording  atomic.Bool // pool.hist records (RecordHistory); read without mu
	rec        recorder
	pending    requests // readbacks, upload maps and work-done requests not yet settled
	kernels    map[string]*Kernel
	layouts    map[string]*native.BindGroupLayout
	scopes     []errorScope
	uncaptured []error
	polling    bool // an Await-driven poller goroutine is running
	// unsubmittedWrites counts the bytes written since the last submission;
	// they reach the GPU with the next one.
	unsubmittedWrites uint64
	// copyingReadbacks counts readbacks taken out of pending whose bytes
	// are being copied out; Stats counts them as pending until they settle.
	copyingReadbacks int
	nextID           uint64
	stats            DeviceStats

	timer timerSlot // the running Timer, if any (timing.go)

	budget Work      // Options.WorkBudget or the adapter's default; never changes
	work   batchWork // the open batch's estimated work (cost.go)

	firedMu sync.Mutex  // protects fired; taken by callbacks, after mu if both
	fired   requestList // requests whose callbacks fired, to settle under mu

	poison []byte // PoisonWord repeated, as much as the largest buffer poisoned (Options.Poison)
}

// Open chooses an adapter and opens a device on it, requesting the adapter's
// own limits (or, where the backend refuses them, the most it grants).
// WGT_BACKEND and WGT_ADAPTER, when set, fill in opts.Backend and
// opts.Adapter where opts leaves them unset; they never override them.
// ctx bounds the wait; the driver's requests are synchronous, so it is
// checked between steps.
func Open(ctx context.Context, opts Options) (*Device, error) {
	opts, err := withEnvironment(opts)
	if err != nil {
		return nil, err
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = defaultBatchSize
	}
	if opts.SpinWait == 0 {
		opts.SpinWait = defaultSpinWait
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d, err := openLocked(ctx, opts)
	if err != nil {
		return nil, err
	}
	if opts.PollInterval > 0 {
		d.stopPoller = make(chan struct{})
		d.pollerDone = make(chan struct{})
		go d.backgroundPoll(opts.PollInterval)
	}
	return d, nil
}

// openLocked chooses the adapter and opens the device, holding glMu: the
// adapters it enumerates and releases include GL's whatever the backend.
func openLocked(ctx context.Context, opts Options) (*Device, error) {
	glMu.Lock()
	defer glMu.Unlock()
	// Every backend's adapters, so that indexes agree with Adapters';
	// choose keeps those of opts.Backend.
	adapters := native.Adapters()
	infos := make([]AdapterInfo, len(adapters))
	for i, a := range adapters {
		infos[i] = infoOf(i, a)
	}
	pick := choose(infos, opts.Backend, opts.Adapter, opts.Power)
	for i, a := range adapters {
		if i != pick {
			a.Release()
		}
	}
	if pick < 0 {
		return nil, newError("open", ErrNoAdapter, fmt.Sprintf("backend %s, name %q, %d adapters seen", opts.Backend, opts.Adapter, len(infos)))
	}
	adapter, info := adapters[pick], infos[pick]
	if err := ctx.Err(); err != nil {
		adapter.Release()
		return nil, err
	}
	dev, err := adapter.RequestDevice("wgtensor")
	if err != nil {
		adapter.Release()
		return nil, fromBinding("open "+info.String(), err)
	}
	f32, err := probeFloat32(dev, info)
	if err != nil {
		dev.Release()
		return nil, fromBinding("open "+info.String(), err)
	}
	d := &Device{
		info:    info,
		limits:  Limits(dev.Limits()),
		float32: f32.Or(opts.Float32),
		opts:    opts,
		lost:    newPromise[LostInfo](nil),
		dev:     dev,
		pending: newRequests(),
		kernels: make(map[string]*Kernel),
		layouts: make(map[string]*native.BindGroupLayout),
		mu:      new(sync.Mutex),
	}
	if info.Backend == BackendGL {
		d.mu = &glMu
	}
	d.pool.init(opts.MemoryLimit)
	d.budget = cmp.Or(opts.WorkBudget, DefaultWorkBudget(info.Type))
	d.rec.seq = 1
	return d, nil
}

// withEnvironment fills in what opts leave unset from WGT_BACKEND and
// WGT_ADAPTER, adds WGT_FLOAT32's departures to opts.Float32, and turns
// on opts.Poison with WGT_POISON=1.
func withEnvironment(opts Options) (Options, error) {
	if v := os.Getenv("WGT_BACKEND"); v != "" && opts.Backend == BackendAny {
		b, err := ParseBackend(v)
		if err != nil {
			return opts, err
		}
		opts.Backend = b
	}
	if v := os.Getenv("WGT_ADAPTER"); v != "" && opts.Adapter == "" {
		opts.Adapter = v
	}
	f32, err := float32FromEnvironment()
	if err != nil {
		return opts, err
	}
	opts.Float32 = opts.Float32.Or(f32)
	opts.Poison = opts.Poison || os.Getenv("WGT_POISON") == "1"
	return opts, nil
}

// Info describes the adapter the device runs on; the zero AdapterInfo for
// a nil or zero Device.
func (d *Device) Info() AdapterInfo {
	if d.opened("info") != nil {
		return AdapterInfo{}
	}
	return d.info
}

// Limits returns the limits the device was granted; zero limits for a nil
// or zero Device.
func (d *Device) Limits() Limits {
	if d.opened("limits") != nil {
		return Limits{}
	}
	return d.limits
}

// Lost returns a promise that settles when the device is lost or closed,
// like WebGPU's device.lost. It never rejects. For a nil or zero Device,
// which was never open, it is already fulfilled.
func (d *Device) Lost() *Promise[LostInfo] {
	if err := d.opened("lost"); err != nil {
		return Resolved(LostInfo{Reason: LostUnknown, Message: err.Error()})
	}
	return d.lost
}

// opened returns an error naming op if d is nil or the zero Device, not
// one Open returned. It reads only what Open sets before d is shared, so
// it needs no lock.
func (d *Device) opened(op string) error {
	if d == nil || d.dev == nil {
		return newError(op, ErrInvalidArgument, "not a device from Open")
	}
	return nil
}

// usable returns nil if the device accepts work, else the error saying why
// not. Callers hold d.mu.
func (d *Device) usable(op string) error {
	if d.state == nil {
		return nil
	}
	return newError(op, d.state.Kind, d.state.Detail)
}

// InjectLoss makes the device lost exactly as a loss reported by the driver
// does: pending promises reject with ErrDeviceLost, Lost settles, and later
// calls fail fast. It is for testing code that must survive device loss.
// On a nil or zero Device it does nothing.
func (d *Device) InjectLoss(message string) {
	if d.opened("inject loss") != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.loseLocked(LostUnknown, message)
}

// loseLocked marks the device lost and rejects everything pending.
func (d *Device) loseLocked(reason LostReason, message string) {
	if d.state != nil {
		return
	}
	d.state = newError("device", ErrDeviceLost, message)
	if h := d.pool.hist; h.recording() {
		h.marker(EventLost, 0, message)
		if path := h.opts.OnLoss; path != "" {
			d.dumpHistoryLocked(path, "device lost")
		}
	}
	d.rejectPendingLocked(d.state)
	d.lost.settle(LostInfo{Reason: reason, Message: message}, nil)
}

// noteErr inspects an error a binding call returned and marks the device
// lost if it says so. Callers hold d.mu.
func (d *Device) noteErr(err error) {
	if err != nil && isLoss(err) {
		var e *Error
		msg := err.Error()
		if errors.As(err, &e) {
			msg = e.Detail
		}
		d.loseLocked(LostUnknown, msg)
	}
}

// Close rejects every pending promise with ErrClosed, drops recorded work
// that was not submitted, waits for submitted work, destroys every buffer
// the device owns (pooled and live) and releases the device. If buffers
// other than the runtime's own were still live, it returns an error wrapping
// ErrLeaked that lists them. Close is idempotent. Closing a nil or zero
// Device returns ErrInvalidArgument.
func (d *Device) Close() error {
	if err := d.opened("close"); err != nil {
		return err
	}
	if d.stopPoller != nil {
		select {
		case <-d.stopPoller:
		default:
			close(d.stopPoller)
		}
		<-d.pollerDone
	}
	d.pollMu.Lock()
	defer d.pollMu.Unlock()
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	closedErr := newError("close", ErrClosed, "")
	d.rejectPendingLocked(closedErr)
	if d.state == nil {
		d.state = closedErr
	}
	d.rec.discard(d)
	leaked := d.pool.liveReport(false)
	// Submit the queue's pending writes: a device released with unsubmitted
	// writes corrupts the next device's first submit in wgpu-native.
	d.dev.Submit()
	d.dev.Poll(true) // let submitted work finish
	d.pool.hist.marker(EventClose, 0, "")
	d.pool.destroyAll()
	d.stopHistoryLocked()
	d.dev.Poll(true) // run the callbacks of maps the destroys aborted
	d.takeFired()
	for _, k := range d.kernels {
		k.pipeline.Release()
	}
	for _, l := range d.layouts {
		l.Release()
	}
	d.dev.Release()
	d.lost.settle(LostInfo{Reason: LostDestroyed, Message: "device closed"}, nil)
	d.mu.Unlock()
	if leaked != "" {
		return newError("close", ErrLeaked, leaked)
	}
	return nil
}

// DeviceStats counts the work a device has done, what it still waits for,
// and, where the driver keeps one, the driver's own count of buffers.
type DeviceStats struct {
	Submits          uint64 // command buffers submitted
	Dispatches       uint64 // compute dispatches recorded
	Copies           uint64 // buffer-to-buffer copies recorded
	Work             Work   // estimated work of the dispatches and copies recorded (see Work)
	PeakBatchWork    Work   // the most estimated work a batch of several commands carried (one over the budget goes alone)
	Writes           uint64 // writes (uploads), through the queue or an upload buffer
	KernelsCompiled  uint64 // pipelines built; a cached kernel is not counted again
	PendingReadbacks int    // readbacks not yet settled
	PendingUploads   int    // upload buffers not yet mapped again for reuse

	// DriverBuffers is how many buffers wgpu-native's own registry holds,
	// where HasDriverBuffers says the driver keeps a count: only the GL
	// backend does, and its count covers every GL device of the process.
	// It cross-checks the pool's figures (LiveBuffers plus PooledBuffers);
	// Sync first, so that destroyed buffers have left the registry.
	DriverBuffers    uint64
	HasDriverBuffers bool
}

// Stats returns the device's counters, taken under one lock; zero for a
// nil or zero Device. It is safe for concurrent use.
func (d *Device) Stats() DeviceStats {
	if d.opened("stats") != nil {
		return DeviceStats{}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.statsLocked()
}

func (d *Device) statsLocked() DeviceStats {
	s := d.stats
	s.PendingUploads = len(d.pending.uploads)
	s.PendingReadbacks = len(d.pending.readbacks) + d.copyingReadbacks
	if d.info.Backend == BackendGL { // d.mu is glMu, which the report needs
		s.DriverBuffers, s.HasDriverBuffers = native.GLBufferCount()
	}
	return s
}
