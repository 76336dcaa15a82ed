package native

import (
	"os"
	"strings"
	"sync"

	"github.com/cogentcore/webgpu/wgpu"
)

// Backend is the native graphics API an adapter runs on.
type Backend int

// The backends. BackendOther covers null and unknown backends.
const (
	BackendOther Backend = iota
	BackendVulkan
	BackendGL
	BackendMetal
	BackendDX12
)

// AdapterType says what kind of processor an adapter runs on.
type AdapterType int

// The adapter types.
const (
	AdapterUnknown AdapterType = iota
	AdapterCPU
	AdapterIntegrated
	AdapterDiscrete
)

// Limits are the device limits that matter to compute work.
type Limits struct {
	MaxBufferSize                     uint64
	MaxStorageBufferBindingSize       uint64
	MaxUniformBufferBindingSize       uint64
	MaxStorageBuffersPerShaderStage   uint32
	MaxComputeWorkgroupStorageSize    uint32
	MaxComputeInvocationsPerWorkgroup uint32
	MaxComputeWorkgroupSizeX          uint32
	MaxComputeWorkgroupSizeY          uint32
	MaxComputeWorkgroupSizeZ          uint32
	MaxComputeWorkgroupsPerDimension  uint32
	MinStorageBufferOffsetAlignment   uint32
	MinUniformBufferOffsetAlignment   uint32
}

// AdapterInfo describes an adapter.
type AdapterInfo struct {
	Name     string // the device's name, or the driver's where the name is only a number
	Backend  Backend
	Type     AdapterType
	Driver   string // the driver's description
	VendorID uint32
	DeviceID uint32
	Limits   Limits // the adapter's own
}

// Adapter is an adapter found by Adapters. Release it unless a Device
// took it.
type Adapter struct{ raw *wgpu.Adapter }

var shared struct {
	once sync.Once
	inst *wgpu.Instance
}

// instance returns the process's one WebGPU instance. It is never released:
// on the GL backend every instance shares one EGL display, and releasing
// any instance terminates it under the devices of the others.
func instance() *wgpu.Instance {
	shared.once.Do(func() {
		quiet()
		shared.inst = wgpu.CreateInstance(nil) // never a descriptor: BINDING.md
	})
	return shared.inst
}

// quiet turns wgpu-native's stderr logging off: every error reaches the
// caller through a returned error, so nothing needs to be only logged.
// WGT_WGPU_LOG=warn (or error, info, debug, trace) turns it back on.
func quiet() {
	level := wgpu.LogLevelOff
	switch strings.ToLower(os.Getenv("WGT_WGPU_LOG")) {
	case "error":
		level = wgpu.LogLevelError
	case "warn":
		level = wgpu.LogLevelWarn
	case "info":
		level = wgpu.LogLevelInfo
	case "debug":
		level = wgpu.LogLevelDebug
	case "trace":
		level = wgpu.LogLevelTrace
	}
	wgpu.SetLogLevel(level)
}

// Adapters lists the adapters of every backend, in wgpu-native's order,
// which is stable within a process. The GL adapters are among them
// whatever the caller wants, so callers hold the GL lock.
func Adapters() []*Adapter {
	const all = wgpu.InstanceBackendVulkan | wgpu.InstanceBackendGL | wgpu.InstanceBackendMetal | wgpu.InstanceBackendDX12
	found := instance().EnumerateAdapters(&wgpu.InstanceEnumerateAdapterOptons{Backends: all})
	adapters := make([]*Adapter, len(found))
	for i, a := range found {
		adapters[i] = &Adapter{raw: a}
	}
	return adapters
}

// Release lets go of an adapter no Device took.
func (a *Adapter) Release() { a.raw.Release() }

// Info describes the adapter.
func (a *Adapter) Info() AdapterInfo {
	info := a.raw.GetInfo()
	name := info.Name
	if name == "" || strings.HasPrefix(name, "0x") {
		name = info.DriverDescription
	}
	if name == "" {
		name = info.VendorName
	}
	return AdapterInfo{
		Name:     name,
		Backend:  backendOf(info.BackendType),
		Type:     adapterTypeOf(info.AdapterType),
		Driver:   info.DriverDescription,
		VendorID: info.VendorId,
		DeviceID: info.DeviceId,
		Limits:   limitsOf(a.raw.GetLimits().Limits),
	}
}

func backendOf(t wgpu.BackendType) Backend {
	switch t {
	case wgpu.BackendTypeVulkan:
		return BackendVulkan
	case wgpu.BackendTypeOpenGL, wgpu.BackendTypeOpenGLES:
		return BackendGL
	case wgpu.BackendTypeMetal:
		return BackendMetal
	case wgpu.BackendTypeD3D12:
		return BackendDX12
	}
	return BackendOther
}

func adapterTypeOf(t wgpu.AdapterType) AdapterType {
	switch t {
	case wgpu.AdapterTypeCPU:
		return AdapterCPU
	case wgpu.AdapterTypeIntegratedGPU:
		return AdapterIntegrated
	case wgpu.AdapterTypeDiscreteGPU:
		return AdapterDiscrete
	}
	return AdapterUnknown
}

func limitsOf(l wgpu.Limits) Limits {
	l = boundedLimits(l)
	return Limits{
		MaxBufferSize:                     l.MaxBufferSize,
		MaxStorageBufferBindingSize:       l.MaxStorageBufferBindingSize,
		MaxUniformBufferBindingSize:       l.MaxUniformBufferBindingSize,
		MaxStorageBuffersPerShaderStage:   l.MaxStorageBuffersPerShaderStage,
		MaxComputeWorkgroupStorageSize:    l.MaxComputeWorkgroupStorageSize,
		MaxComputeInvocationsPerWorkgroup: l.MaxComputeInvocationsPerWorkgroup,
		MaxComputeWorkgroupSizeX:          l.MaxComputeWorkgroupSizeX,
		MaxComputeWorkgroupSizeY:          l.MaxComputeWorkgroupSizeY,
		MaxComputeWorkgroupSizeZ:          l.MaxComputeWorkgroupSizeZ,
		MaxComputeWorkgroupsPerDimension:  l.MaxComputeWorkgroupsPerDimension,
		MinStorageBufferOffsetAlignment:   l.MinStorageBufferOffsetAlignment,
		MinUniformBufferOffsetAlignment:   l.MinUniformBufferOffsetAlignment,
	}
}

// GLBufferCount returns how many buffers wgpu-native's GL registry holds,
// from the instance's report, and whether there is one: the report counts
// only the GL hub, so on other backends it says nothing (BINDING.md). The
// count covers every GL device of the process. Callers hold the GL lock.
func GLBufferCount() (uint64, bool) {
	r := instance().GenerateReport()
	if r.Gl == nil {
		return 0, false
	}
	return r.Gl.Buffers.NumAllocated, true
}
