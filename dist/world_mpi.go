//go:build mpi

package dist

import "github.com/wgtensor/wgtensor/dist/internal/mpi"

// mpiWorld adapts the binding's World to world.
type mpiWorld struct{ *mpi.World }

func openWorld() (world, error) {
	w, err := mpi.Open()
	if err != nil {
		return nil, err
	}
	return mpiWorld{w}, nil
}

func (w mpiWorld) AllReduceSum(buf []float32) (request, error) {
	return wrap(w.World.AllReduceSum(buf))
}
func (w mpiWorld) AllGather(send, recv []byte) (request, error) {
	return wrap(w.World.AllGather(send, recv))
}
func (w mpiWorld) Broadcast(buf []byte, root int) (request, error) {
	return wrap(w.World.Broadcast(buf, root))
}
func (w mpiWorld) Barrier() (request, error) { return wrap(w.World.Barrier()) }

// wrap returns r as a request; a nil *mpi.Request is a nil request.
func wrap(r *mpi.Request, err error) (request, error) {
	if err != nil {
		return nil, err
	}
	return r, nil
}

// mpiBuiltIn: the binding is built in.
const mpiBuiltIn = true
