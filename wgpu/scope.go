package wgpu

import "errors"

// ErrorFilter selects the errors an error scope captures, as WebGPU's
// GPUErrorFilter.
type ErrorFilter int

// The filters.
const (
	FilterValidation  ErrorFilter = iota // ErrValidation, ErrCompile, ErrLimit, ErrInvalidArgument
	FilterOutOfMemory                    // ErrOutOfMemory
	FilterInternal                       // everything else
)

type errorScope struct {
	filter ErrorFilter
	err    error // the first error captured
}

func (f ErrorFilter) matches(err error) bool {
	switch {
	case errors.Is(err, ErrOutOfMemory):
		return f == FilterOutOfMemory
	case errors.Is(err, ErrValidation), errors.Is(err, ErrCompile), errors.Is(err, ErrLimit), errors.Is(err, ErrInvalidArgument):
		return f == FilterValidation
	}
	return f == FilterInternal
}

// PushErrorScope opens a scope that captures errors matching filter that
// happen while no call can return them, such as a batch submission that
// failed after the dispatches in it were recorded. Errors a call returns
// are not also sent to scopes. On a nil or zero Device it does nothing.
func (d *Device) PushErrorScope(filter ErrorFilter) {
	if d.opened("push error scope") != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.scopes = append(d.scopes, errorScope{filter: filter})
}

// PopErrorScope closes the innermost scope and returns the first error it
// captured, or nil. Popping with no scope open returns an error wrapping
// ErrInvalidArgument, as does popping on a nil or zero Device.
func (d *Device) PopErrorScope() error {
	if err := d.opened("pop error scope"); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	n := len(d.scopes)
	if n == 0 {
		return newError("pop error scope", ErrInvalidArgument, "no scope is open")
	}
	s := d.scopes[n-1]
	d.scopes = d.scopes[:n-1]
	return s.err
}

// UncapturedErrors returns and forgets the errors that no scope captured,
// when Options.OnUncapturedError is nil; none for a nil or zero Device.
func (d *Device) UncapturedErrors() []error {
	if d.opened("uncaptured errors") != nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	errs := d.uncaptured
	d.uncaptured = nil
	return errs
}

// reportLocked sends an error no call can return to the innermost matching
// scope, else to the uncaptured-error handler, else keeps it.
func (d *Device) reportLocked(err error) {
	for i := len(d.scopes) - 1; i >= 0; i-- {
		if d.scopes[i].filter.matches(err) {
			if d.scopes[i].err == nil {
				d.scopes[i].err = err
			}
			return
		}
	}
	if h := d.opts.OnUncapturedError; h != nil {
		go h(err) // never under d.mu
		return
	}
	const keep = 64
	if len(d.uncaptured) < keep {
		d.uncaptured = append(d.uncaptured, err)
	}
}
