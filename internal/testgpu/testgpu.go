// Package testgpu opens the device tests run on and checks, when each test
// ends, that the test left nothing behind.
//
// The test device is lavapipe (Mesa's software Vulkan driver) unless
// WGT_BACKEND or WGT_ADAPTER choose another (see DefaultOptions). With no matching adapter a
// test is skipped, or fails when WGT_REQUIRE_GPU=1, as in CI: a GPU test
// must never pass by skipping there.
//
// Every device opened here is leak-checked in t.Cleanup: pending readbacks
// are settled, then no buffer may be live, the pool's figures must add up,
// and Close must report nothing.
package testgpu

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// DefaultOptions are the options Open uses: lavapipe on Vulkan, unless
// WGT_BACKEND or WGT_ADAPTER choose another backend or adapter. Here, unlike
// in wgpu.Open, the environment overrides the defaults: it chooses the
// device of every test.
func DefaultOptions() wgpu.Options {
	opts := wgpu.Options{Backend: wgpu.BackendVulkan, Adapter: "llvmpipe"}
	if v := os.Getenv("WGT_BACKEND"); v != "" {
		// A name ParseBackend refuses leaves the backend unset, so that
		// wgpu.Open reads WGT_BACKEND itself and reports it.
		opts.Backend, _ = wgpu.ParseBackend(v)
	}
	if v := os.Getenv("WGT_ADAPTER"); v != "" {
		opts.Adapter = v
	}
	return opts
}

// RequireGPU reports whether WGT_REQUIRE_GPU asks for a missing adapter to
// fail tests instead of skipping them.
func RequireGPU() bool { return os.Getenv("WGT_REQUIRE_GPU") == "1" }

// Tool returns the path of the program name on PATH. Where it is missing
// the test is skipped, or fails when WGT_REQUIRE_TOOLS=1, as in CI: the
// tools (naga, go, python3) are CI's, not the GPU's, so a GPU machine that
// lacks them runs the rest with WGT_REQUIRE_GPU=1 alone.
func Tool(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("WGT_REQUIRE_TOOLS") == "1" {
		t.Fatalf("WGT_REQUIRE_TOOLS=1 and %s is not on PATH", name)
	}
	t.Skipf("%s is not on PATH", name)
	return ""
}

// Torch returns the path of a Python interpreter that imports torch:
// python3 on PATH, or Debian's /usr/bin/python3 (where python3-torch
// installs it) when PATH's lacks it. Where neither does the test is
// skipped, or fails when WGT_REQUIRE_TORCH=1, as in CI, whose scripts
// install python3-torch.
func Torch(t testing.TB) string {
	t.Helper()
	var tried []string
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(py)
		if err != nil {
			continue
		}
		tried = append(tried, path)
		if exec.Command(path, "-c", "import torch").Run() == nil {
			return path
		}
	}
	if os.Getenv("WGT_REQUIRE_TORCH") == "1" {
		t.Fatalf("WGT_REQUIRE_TORCH=1 and no Python imports torch (tried %v): apt-get install python3-torch", tried)
	}
	t.Skipf("no Python imports torch (tried %v): apt-get install python3-torch to run this test", tried)
	return ""
}

// MPIRun returns the path of mpirun, for the tests of package dist that
// start ranks. Without it the test is skipped, or fails when
// WGT_REQUIRE_MPI=1, as in CI, whose scripts/mpi.sh installs Open MPI.
func MPIRun(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("mpirun"); err == nil {
		return p
	}
	if os.Getenv("WGT_REQUIRE_MPI") == "1" {
		t.Fatalf("WGT_REQUIRE_MPI=1 and mpirun is not on PATH: bash scripts/mpi.sh installs Open MPI")
	}
	t.Skipf("mpirun is not on PATH: apt-get install openmpi-bin libopenmpi-dev (bash scripts/mpi.sh) to run this test")
	return ""
}

// Open opens the test device with DefaultOptions and registers its leak
// check and Close with t.Cleanup.
func Open(t testing.TB) *wgpu.Device {
	t.Helper()
	return OpenWith(t, DefaultOptions())
}

// OpenWith is Open with explicit options. As in wgpu.Open, WGT_BACKEND and
// WGT_ADAPTER fill in only what opts leave unset; start from DefaultOptions
// for options the environment chooses.
func OpenWith(t testing.TB, opts wgpu.Options) *wgpu.Device {
	t.Helper()
	d := OpenUnchecked(t, opts)
	t.Cleanup(func() { CheckAndClose(t, d) })
	return d
}

// OpenUnchecked opens a device like OpenWith but leaves closing it to the
// test: for tests of Close itself.
func OpenUnchecked(t testing.TB, opts wgpu.Options) *wgpu.Device {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := wgpu.Open(ctx, opts)
	if errors.Is(err, wgpu.ErrNoAdapter) {
		if RequireGPU() {
			t.Fatalf("WGT_REQUIRE_GPU=1 and no adapter: %v (install lavapipe: apt-get install -y mesa-vulkan-drivers libvulkan1)", err)
		}
		t.Skipf("no adapter: %v", err)
	}
	if err != nil {
		t.Fatalf("open device: %v", err)
	}
	return d
}

// Timeout bounds how long the leak check waits for pending work.
const Timeout = time.Minute

// CheckAndClose settles d's pending work, fails t if any buffer is still
// live or the pool's figures do not add up, and closes d.
func CheckAndClose(t testing.TB, d *wgpu.Device) {
	t.Helper()
	if err := Settle(d, Timeout); err != nil && !closedOrLost(err) {
		t.Errorf("leak check: settling pending work: %v", err)
	}
	for _, b := range d.LiveBuffers() {
		t.Errorf("leak check: buffer %d (%d B, %s) still live, created at %s", b.ID, b.Size, b.Usage, b.Site)
	}
	if err := CheckPoolStats(d.Pool().Stats()); err != nil {
		t.Errorf("leak check: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("leak check: close: %v", err)
	}
}

// Settle submits d's recorded work and polls until no readback is pending
// and every upload buffer is ready again, or until timeout.
func Settle(d *wgpu.Device, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := d.Sync(ctx); err != nil {
		return err
	}
	for st := d.Stats(); st.PendingReadbacks > 0 || st.PendingUploads > 0; st = d.Stats() {
		if err := d.Poll(true); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return errors.New("readbacks still pending after " + timeout.String())
		}
	}
	return nil
}

func closedOrLost(err error) bool {
	return errors.Is(err, wgpu.ErrClosed) || errors.Is(err, wgpu.ErrDeviceLost)
}

// CheckPoolStats returns an error if the pool's figures are inconsistent.
func CheckPoolStats(s wgpu.PoolStats) error {
	switch {
	case s.ReservedBytes != s.LiveBytes+s.PooledBytes:
		return errors.New("pool: reserved bytes != live + pooled: " + s.String())
	case s.Allocs-s.Frees != uint64(s.LiveBuffers+s.PooledBuffers):
		return errors.New("pool: allocs - frees != live + pooled buffers: " + s.String())
	case s.PeakLiveBytes < s.LiveBytes || s.PeakReservedBytes < s.ReservedBytes:
		return errors.New("pool: a peak is below its current value: " + s.String())
	}
	return nil
}

// Engine opens the test device and an engine on it. At cleanup it fails t
// if any tensor is still live (naming where each was created), then runs
// the device's leak check and closes it.
func Engine(t testing.TB) *tensor.Engine {
	t.Helper()
	return EngineOn(t, Open(t))
}

// EngineOn returns an engine on d whose tensors are leak-checked at
// cleanup, before d's own check (cleanups run last-registered first).
func EngineOn(t testing.TB, d *wgpu.Device) *tensor.Engine {
	t.Helper()
	e := tensor.New(d)
	t.Cleanup(func() {
		for _, ti := range e.LiveTensors() {
			t.Errorf("leak check: tensor %d (%s %v, %d B) still live, created at %s", ti.ID, ti.DType, ti.Shape, ti.Bytes, ti.Site.Chain())
		}
	})
	return e
}

// NoPanic runs f and turns a panic into a failure of t naming what ran, so
// that one regression does not take the rest of the suite down with it.
func NoPanic(t testing.TB, name string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panicked: %v", name, r)
		}
	}()
	f()
}
