package kernels

// The loop trip budget. Mesa's gallivm (lavapipe, llvmpipe) gives each
// invocation one counter of MaxLoopTrips trips, shared by every loop the
// invocation runs, one after another or nested, and counts a loop's
// exiting trip too (a loop of n trips costs n+1); when the counter runs
// out every loop stops, silently, and the invocation goes on past it. A
// kernel whose thread loops over a row or a window therefore keeps the
// sum of its loops' trips, not each loop's, within MaxLoopTrips: the
// kernels below take Unroll elements per trip (LoopTrips), and each
// family's Trips method gives what a thread of it spends, which the
// callers check against MaxLoopTrips.

// RowUnroll is how many elements of a row the one-thread-per-row kernels
// (LayerNorm, SoftmaxXent) take per trip of a pass.
const RowUnroll = 8

// PoolUnroll is how many positions of a window or cell the pooling
// kernels (Pool2D, Pool2DGrad) take per trip.
const PoolUnroll = 4

// LoopTrips is the trips, counted as gallivm counts them, of a pass over n
// elements that takes unroll elements per trip and then the rest one per
// trip: two loops, each with its exiting trip.
func LoopTrips(n, unroll int) int {
	if unroll <= 1 {
		return n + 1
	}
	return n/unroll + 1 + n%unroll + 1
}
