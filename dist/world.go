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

// Local returns a Comm of one rank that needs no MPI: a data-parallel
// program runs alone, unchanged, where MPI is not built in (Init fails
// with ErrNoMPI) or not wanted. Its collectives complete at once; Close
// does nothing.
func Local() *Comm { return &Comm{w: localWorld{}, timeout: DefaultTimeout} }

// localWorld is a world of one rank.
type localWorld struct{}

func (localWorld) Rank() int                               { return 0 }
func (localWorld) Size() int                               { return 1 }
func (localWorld) LocalRank() int                          { return 0 }
func (localWorld) LocalSize() int                          { return 1 }
func (localWorld) AllReduceSum([]float32) (request, error) { return done{}, nil }
func (localWorld) AllGather(send, recv []byte) (request, error) {
	copy(recv, send)
	return done{}, nil
}
func (localWorld) Broadcast([]byte, int) (request, error) { return done{}, nil }
func (localWorld) Barrier() (request, error)              { return done{}, nil }
func (localWorld) Finalize() error                        { return nil }

// done is a request that has completed.
type done struct{}

func (done) Test() (bool, error) { return true, nil }
