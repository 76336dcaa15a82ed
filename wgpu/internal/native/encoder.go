package native

import "github.com/cogentcore/webgpu/wgpu"

// Encoder records a batch of compute dispatches and buffer copies into one
// command buffer. Consecutive dispatches share a compute pass; a copy ends
// the pass. An Encoder is used under its device's lock.
type Encoder struct {
	raw  *wgpu.CommandEncoder
	pass *wgpu.ComputePassEncoder // the open pass, or nil
}

// CommandBuffer is a finished batch, ready to submit.
type CommandBuffer struct{ raw *wgpu.CommandBuffer }

// Release lets go of a command buffer that will not be submitted.
func (c *CommandBuffer) Release() { c.raw.Release() }

// NewEncoder starts a batch.
func (d *Device) NewEncoder(label string) (*Encoder, error) {
	raw, err := d.raw.CreateCommandEncoder(&wgpu.CommandEncoderDescriptor{Label: label})
	if err != nil {
		return nil, classify(err)
	}
	return &Encoder{raw: raw}, nil
}

// Dispatch records p over groups workgroups with bg as its bind group 0.
func (e *Encoder) Dispatch(p *Pipeline, bg *BindGroup, groups [3]uint32) {
	if e.pass == nil {
		e.pass = e.raw.BeginComputePass(nil)
	}
	e.pass.SetPipeline(p.raw)
	e.pass.SetBindGroup(0, bg.raw, nil)
	e.pass.DispatchWorkgroups(groups[0], groups[1], groups[2])
}

// Copy records a copy of size bytes (a multiple of 4) from src at
// srcOffset to dst at dstOffset. An error leaves the encoder invalid, and
// Finish reports it again.
func (e *Encoder) Copy(src *Buffer, srcOffset uint64, dst *Buffer, dstOffset, size uint64) error {
	e.endPass()
	return classify(e.raw.CopyBufferToBuffer(src.raw, srcOffset, dst.raw, dstOffset, size))
}

// endPass ends the open compute pass: a pass must be ended and released
// before anything else is recorded and before the encoder's Finish.
func (e *Encoder) endPass() {
	if e.pass != nil {
		_ = e.pass.End() // an error here surfaces at Finish
		e.pass.Release()
		e.pass = nil
	}
}

// Finish ends the batch and releases the encoder: the command buffer to
// submit, or the error that invalidated the batch.
func (e *Encoder) Finish() (*CommandBuffer, error) {
	e.endPass()
	raw, err := e.raw.Finish(nil)
	e.raw.Release()
	if err != nil {
		if raw != nil {
			raw.Release()
		}
		return nil, classify(err)
	}
	return &CommandBuffer{raw: raw}, nil
}

// Discard drops the batch unsubmitted and releases the encoder.
func (e *Encoder) Discard() {
	e.endPass()
	e.raw.Release()
}
