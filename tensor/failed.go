package tensor

// Failed returns a tensor carrying err that holds no memory, as the result
// of an op that refused its inputs does: ops on it return err again, its
// readbacks reject with it, and tidy.Run returns it. It is for code built
// from the engine's ops (layers, losses) that finds its input wrong before
// it runs any op, so that it reports its own error in tensor's error model
// instead of the error of the op that would fail later. A nil err gives
// ErrArgument. Failed allocates nothing and runs nothing, so it is safe
// from any goroutine.
func (e *Engine) Failed(err error) *Tensor {
	if err == nil {
		err = opErr("failed", nil, ErrArgument, "Failed called with a nil error")
	}
	return e.errTensor(err)
}
