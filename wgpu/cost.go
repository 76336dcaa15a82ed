package wgpu

// Work estimates what a dispatch or a copy costs, in units of about a
// nanosecond of a CPU adapter: lavapipe on this project's 2-core machines,
// unloaded (LAVAPIPE.md). The op that records a dispatch knows its
// invocations and their loops, and so its work; the device adds up the
// work of the open batch and submits the batch before it would pass the
// device's budget (see Device.WorkBudget).
//
// Why: a submission that runs for more than about five seconds breaks
// lavapipe. Waiting for one with a blocking poll (Sync) crashed the process
// (SIGSEGV) every time in our tests, and readbacks of its results have
// come back wrong first.
type Work = uint64

// The default budgets. A CPU adapter gets 50 ms of estimated work per
// submission. Estimates are rounded up (internal/kernels/cost.go): on the
// project's 2-core machines, unloaded, each kernel family ran in 0.3 to 0.9
// of its estimate, and with five test suites sharing the two cores (a load
// average of 5 to 6) in 1 to 7 times it; a batch at the budget then runs
// for at most about 350 ms, far from the five seconds that break
// lavapipe. Other adapters run the same work tens to hundreds of times
// faster, and their budget only splits what would take a CPU adapter half
// a minute: they keep batching by Options.BatchSize alone.
const (
	CPUWorkBudget Work = 50_000_000
	GPUWorkBudget Work = 1 << 35
)

// DefaultWorkBudget returns the budget a device on an adapter of type t
// gets when Options.WorkBudget is 0.
func DefaultWorkBudget(t AdapterType) Work {
	if t == AdapterCPU {
		return CPUWorkBudget
	}
	return GPUWorkBudget
}

// defaultGroupWork is the work Dispatch assumes per workgroup of a kernel
// whose caller gave no estimate: 256 invocations of a few loads each.
const defaultGroupWork Work = 4096

// WorkBudget returns the most estimated work the device puts in one
// submission (Options.WorkBudget, or DefaultWorkBudget of its adapter).
// An op whose single dispatch would carry more splits it into several
// dispatches over ranges of its rows or elements, each within the
// budget. It is safe for concurrent use.
func (d *Device) WorkBudget() Work { return d.budget }

// DispatchWork is Dispatch with an estimate of the dispatch's work: the
// open batch is submitted first if the dispatch would take its work past
// the budget, and a dispatch at or over the budget by itself is submitted
// at once, alone. Readbacks and uploads count their copies the same way
// (see copyWork). Like Dispatch, it is safe for concurrent use.
func (d *Device) DispatchWork(k *Kernel, groups [3]uint32, work Work, params []byte, bufs ...*Buffer) error {
	return d.dispatch(k, groups, min(work, maxWork), params, bufs)
}

// copyWork is the work of a buffer-to-buffer copy of n bytes (a readback's
// or an upload's): on lavapipe a copy is a memcpy, which took 0.16 to 0.8
// ns a byte, the most when it faulted in fresh pages on a loaded machine.
func copyWork(n uint64) Work { return WorkOf(float64(n)) }

// groupsWork is the work Dispatch assumes for groups.
func groupsWork(groups [3]uint32) Work {
	n := float64(groups[0]) * float64(groups[1]) * float64(groups[2])
	return WorkOf(n * float64(defaultGroupWork))
}

// maxWork caps an estimate, so that sums of a batch's estimates cannot
// overflow.
const maxWork Work = 1 << 62

// WorkOf converts an estimate to Work: negative estimates (and NaN) are 0,
// and huge ones are capped at 2⁶² (about 150 years of a CPU adapter).
func WorkOf(estimate float64) Work {
	switch {
	case !(estimate > 0):
		return 0
	case estimate >= float64(maxWork):
		return maxWork
	}
	return Work(estimate)
}

// batchWork is the estimated work of the open batch. It is protected by
// Device.mu.
type batchWork struct {
	seq  uint64 // the batch the work was recorded in
	work Work
}

// openWorkLocked returns the work recorded in the open batch.
func (d *Device) openWorkLocked() Work {
	if d.rec.enc == nil || d.work.seq != d.rec.seq {
		return 0
	}
	return d.work.work
}

// makeRoomLocked submits the open batch if adding work would take it past
// the budget.
func (d *Device) makeRoomLocked(work Work) error {
	if open := d.openWorkLocked(); open > 0 && open+work > d.budget {
		return d.flushLocked()
	}
	return nil
}

// addWorkLocked counts work recorded in the open batch (its command
// already counted in d.rec.commands) and reports whether the batch has
// reached the budget.
func (d *Device) addWorkLocked(work Work) bool {
	w := min(d.openWorkLocked(), maxWork) + work // each at most maxWork: no overflow
	d.work = batchWork{seq: d.rec.seq, work: w}
	d.stats.Work += work
	if d.rec.commands > 1 {
		d.stats.PeakBatchWork = max(d.stats.PeakBatchWork, w)
	}
	return w >= d.budget
}
