package dist

// world is what dist needs of MPI_COMM_WORLD: its ranks and nonblocking
// collectives on host buffers, which Comm waits on with deadlines. The
// MPI binding (build tag mpi) provides it; without the tag, openWorld
// fails with ErrNoMPI.
type world interface {
	Rank() int
	Size() int
	LocalRank() int
	LocalSize() int
	AllReduceSum(buf []float32) (request, error)
	AllGather(send, recv []byte) (request, error)
	Broadcast(buf []byte, root int) (request, error)
	Barrier() (request, error)
	Finalize() error
}

// request is a collective in flight: Test moves it on and reports whether
// it is done; its buffers are the caller's again once it is (or fails).
type request interface {
	Test() (bool, error)
}
