// Package dist trains a model data-parallel over MPI: several processes
// (ranks), each with its own device, hold the same model, each runs the
// forward and backward passes on its share of a batch, and the gradients
// are averaged over the ranks before every optimizer step, as PyTorch's
// DistributedDataParallel does. WebGPU has no path from one device to
// another, so gradients travel through host memory; MPI moves them
// between processes and machines, as clusters already run it (mpirun on
// a laptop, a hostfile across machines, the MPI Operator on Kubernetes).
//
// # Overview
//
//	c, err := dist.Init(dist.Options{Timeout: time.Minute})
//	defer c.Close()
//	d, err := wgpu.Open(ctx, dist.AdapterFor(c, wgpu.Options{})) // the machine's GPUs shared among its ranks
//	e := tensor.New(d)
//	// ... build the model and its optimizer from the same seed on every rank
//	ddp, err := dist.NewDataParallel(ctx, c, e, opt, nil) // checks the models agree, copies rank 0's weights
//	for step := range steps {
//		x, y := myShareOf(batch, c.Rank(), c.Size())
//		loss, grads, err := grad.ValueAndGrad(e, forward(x, y), params, &grad.Options{Ready: ddp.Ready})
//		err = ddp.Step(ctx, grads) // the ranks' mean gradient, then opt.Step
//	}
//
// launched as `mpirun -np 4 ./train`. A program started without mpirun
// is a job of one rank, so the same binary trains alone.
//
// # Building with MPI
//
// The binding to the MPI library (Open MPI's libmpi, found by pkg-config
// as ompi-c) is cgo, built only with the build tag mpi: `go build -tags
// mpi`, with Debian's openmpi-bin and libopenmpi-dev installed. Without
// the tag the module builds and tests everywhere, and Init fails with
// ErrNoMPI saying so.
//
// # What a step exchanges
//
// The gradients are exchanged in buckets of BucketBytes (PyTorch's 25 MB
// by default), the parameters taken in reverse (the order backward
// finishes them). With DataParallel.Ready as grad.Options.Ready, each
// bucket's readback starts as soon as its last gradient is final and its
// all-reduce as soon as the readback is in, while backward computes the
// rest; Step waits for what is left, writes the means into the gradients
// and steps the optimizer. Stats says how long the exchange took and how
// much of it ran while backward did.
//
// The default all-reduce sums in the order MPI chooses: the ranks agree
// with each other bit for bit (Open MPI gives every rank the same sums,
// as the standard advises; the tests check it) and with one process on
// the whole batch within float32's rounding.
// DataParallelOptions.FixedOrder sums in rank order instead (an
// all-gather), the same bits from run to run.
//
// # Faults
//
// A rank that dies or stalls must not hang the others. Every collective
// is started nonblocking and polled against Options.Timeout: past it,
// the call returns ErrTimeout; an MPI error (errors return, they do not
// abort) returns ErrFault. Either breaks the Comm, since MPI cannot take
// back a collective in flight: the process should exit, without
// MPI_Finalize (Close skips it after a fault). Under Open MPI's mpirun a
// rank that dies takes the job down with it unless mpirun is given
// --enable-recovery, which lets the others report their error first.
// Ranks whose models differ in names, dtypes or shapes are refused by
// NewDataParallel on every rank, naming the first difference
// (ErrMismatch).
//
// # Memory
//
// The gradients stay where backward made them and are overwritten in
// place with the means; the readbacks' staging buffers come from the
// device's pool and are counted in Engine.Memory like any other; each
// bucket's host copy is made once and reused. A training loop's memory is
// flat from step to step, and Close and the optimizer's Dispose leave
// nothing live.
//
// # Checkpoints
//
// Rank 0 writes, every rank loads after a Barrier:
//
//	if c.Rank() == 0 {
//		err = checkpoint.SaveFile(ctx, path, params, checkpoint.SaveOptions{Optimizer: opt})
//	}
//	err = c.Barrier(ctx)
//	_, err = checkpoint.LoadFile(ctx, e, path, params, checkpoint.LoadOptions{Optimizer: opt})
//
// # Concurrency
//
// A Comm's methods are safe from any goroutine, but every rank must start
// the same collectives in the same order. A DataParallel belongs to its
// engine's goroutine, as ops do.
package dist
