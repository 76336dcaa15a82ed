package tidy_test

import (
	"context"
	"os"
	"os/exec"
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// node is a result type that can hold cycles and long chains.
type node struct {
	T    *tensor.Tensor
	Next *node
	Any  any
}

// inChild runs the test named name in a child process with childEnv set,
// and fails if the child fails or dies: a stack overflow is fatal, and must
// not take the rest of the suite down with it. It reports whether this is
// the child, which then runs the test's body.
func inChild(t *testing.T, name string) bool {
	t.Helper()
	const childEnv = "TIDY_TEST_CHILD"
	if os.Getenv(childEnv) == name {
		debug.SetMaxStack(16 << 20) // overflow quickly, not after a gigabyte
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+name)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child test failed: %v\n%.4000s", err, out)
	}
	return false
}

// TestRunResultWithCycle: issue 10 item 6. tidy.Run, Keep and Dispose walk
// results with pointer cycles (the walk recursed forever and overflowed
// the stack) and long chains (deep recursion) in bounded stack.
func TestRunResultWithCycle(t *testing.T) {
	if !inChild(t, "TestRunResultWithCycle") {
		return
	}
	e := testgpu.Engine(t)
	res, err := tidy.Run(e, func() (*node, error) {
		n := &node{T: e.Ones(tensor.Float32, 2)}
		n.Next = n
		n.Any = []any{n, map[string]any{"self": n}}
		e.Zeros(tensor.Float32, 2) // disposed
		return n, nil
	})
	require.NoError(t, err)
	assert.Equal(t, 1, e.NumTensors(), "the result is kept, the rest disposed")
	tidy.Keep(res)
	assert.True(t, res.T.Kept())
	tidy.Dispose(res)
	assert.Zero(t, e.NumTensors())

	// A slice that holds itself, through an interface.
	self := []any{nil}
	self[0] = self
	tidy.Dispose(self)

	// A chain far longer than a recursive walk's stack allows here.
	chain, err := tidy.Run(e, func() (*node, error) {
		head := &node{T: e.Ones(tensor.Float32, 1)}
		for range 200_000 {
			head = &node{Next: head}
		}
		return head, nil
	})
	require.NoError(t, err)
	assert.Equal(t, 1, e.NumTensors())
	tidy.Dispose(chain)
	assert.Zero(t, e.NumTensors())
}

// layer is a Disposable that holds tensors.
type layer struct{ W, B *tensor.Tensor }

func (l *layer) Dispose() { tidy.Dispose([]*tensor.Tensor{l.W, l.B}) }

// group is a Disposable whose dynamic type cannot be a map key.
type group []*tensor.Tensor

func (g group) Dispose() { tidy.Dispose([]*tensor.Tensor(g)) }

// TestRunKeepsWhatDisposableResultsHold: returning a Disposable that holds
// tensors keeps those tensors (they were disposed with the scope, leaving
// the result hollow), and a Disposable that is not comparable (a slice
// type) does not panic Run.
func TestRunKeepsWhatDisposableResultsHold(t *testing.T) {
	e := testgpu.Engine(t)
	l, err := tidy.Run(e, func() (*layer, error) {
		return &layer{W: e.Ones(tensor.Float32, 2, 2), B: e.Zeros(tensor.Float32, 2)}, nil
	})
	require.NoError(t, err)
	assert.False(t, l.W.IsDisposed(), "the layer's tensors survive the scope")
	assert.False(t, l.B.IsDisposed())
	tidy.Dispose(l)
	assert.Zero(t, e.NumTensors())

	var g group
	assert.NotPanics(t, func() {
		g, err = tidy.Run(e, func() (group, error) {
			e.Zeros(tensor.Float32, 3) // disposed
			return group{e.Ones(tensor.Float32, 1)}, nil
		})
	})
	require.NoError(t, err)
	require.Len(t, g, 1)
	assert.False(t, g[0].IsDisposed())
	assert.Equal(t, 1, e.NumTensors(), "the scope still disposed the rest")
	tidy.Dispose(g)
	assert.Zero(t, e.NumTensors())
}

// TestNilScoperAndFunction: Run and Do with a nil Scoper or a nil function
// return ErrNil instead of panicking.
func TestNilScoperAndFunction(t *testing.T) {
	e := testgpu.Engine(t)
	assert.NotPanics(t, func() {
		_, err := tidy.Run(nil, func() (int, error) { return 1, nil })
		assert.ErrorIs(t, err, tidy.ErrNil)
		_, err = tidy.Run[int](e, nil)
		assert.ErrorIs(t, err, tidy.ErrNil)
		assert.ErrorIs(t, tidy.Do(e, nil), tidy.ErrNil)
		assert.ErrorIs(t, tidy.Do(nil, func() error { return nil }), tidy.ErrNil)
	})
	assert.Zero(t, e.NumTensors())
}
