package wgpu

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/wgtensor/wgtensor/wgpu/internal/native"
)

// Backend is a native graphics API that WebGPU runs on.
type Backend int

// The backends. BackendAny lets Open choose.
const (
	BackendAny Backend = iota
	BackendVulkan
	BackendGL
	BackendMetal
	BackendDX12
)

var backendNames = [...]string{"any", "vulkan", "gl", "metal", "dx12"}

func (b Backend) String() string {
	if b >= 0 && int(b) < len(backendNames) {
		return backendNames[b]
	}
	return fmt.Sprintf("Backend(%d)", int(b))
}

// ParseBackend parses a backend name as WGT_BACKEND spells it: any, vulkan,
// gl (or opengl, gles), metal, dx12. Case does not matter.
func ParseBackend(s string) (Backend, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "any", "all":
		return BackendAny, nil
	case "vulkan", "vk":
		return BackendVulkan, nil
	case "gl", "opengl", "gles", "opengles":
		return BackendGL, nil
	case "metal":
		return BackendMetal, nil
	case "dx12", "d3d12":
		return BackendDX12, nil
	}
	return BackendAny, newError("parse backend "+strconv.Quote(s), ErrInvalidArgument, "want any, vulkan, gl, metal or dx12")
}

func backendOf(b native.Backend) Backend {
	switch b {
	case native.BackendVulkan:
		return BackendVulkan
	case native.BackendGL:
		return BackendGL
	case native.BackendMetal:
		return BackendMetal
	case native.BackendDX12:
		return BackendDX12
	}
	return BackendAny
}

// AdapterType says what kind of processor an adapter runs on.
type AdapterType int

// The adapter types.
const (
	AdapterUnknown AdapterType = iota
	AdapterCPU
	AdapterIntegrated
	AdapterDiscrete
)

func (t AdapterType) String() string {
	switch t {
	case AdapterCPU:
		return "cpu"
	case AdapterIntegrated:
		return "integrated"
	case AdapterDiscrete:
		return "discrete"
	}
	return "unknown"
}

func adapterTypeOf(t native.AdapterType) AdapterType {
	switch t {
	case native.AdapterCPU:
		return AdapterCPU
	case native.AdapterIntegrated:
		return AdapterIntegrated
	case native.AdapterDiscrete:
		return AdapterDiscrete
	}
	return AdapterUnknown
}

// PowerPreference orders adapters when several match.
type PowerPreference int

// The power preferences. PowerDefault prefers discrete GPUs, then integrated
// ones, then CPU adapters, and native backends over GL.
const (
	PowerDefault PowerPreference = iota
	PowerHigh
	PowerLow
)

// Limits are the device limits that matter to compute work. A 64-bit
// limit the adapter does not bound (an NVIDIA GPU's buffer size through
// Vulkan) reads as math.MaxInt64, and a device is granted as much: the
// driver's allocations are then what bounds it.
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

// AdapterInfo describes one adapter: what Adapters lists and what a Device
// reports about the adapter it runs on.
type AdapterInfo struct {
	Index    int         // position in Adapters' list
	Name     string      // the device's name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
	Backend  Backend     // the native API
	Type     AdapterType // cpu, integrated or discrete
	Driver   string      // the driver's description
	VendorID uint32
	DeviceID uint32
	Limits   Limits // the adapter's own limits; Device.Limits has what was granted
}

func (a AdapterInfo) String() string {
	return fmt.Sprintf("%s (%s, %s)", a.Name, a.Backend, a.Type)
}

// Matches reports whether the adapter is the one selector names, as
// Options.Adapter and WGT_ADAPTER spell it: "#N" is the adapter at index N
// of Adapters' list; anything else is a substring of its name or driver,
// case-insensitive. The empty selector matches every adapter.
func (a AdapterInfo) Matches(selector string) bool {
	if rest, ok := strings.CutPrefix(selector, "#"); ok {
		n, err := strconv.Atoi(rest)
		return err == nil && rest != "" && rest[0] != '+' && rest[0] != '-' && n == a.Index
	}
	return strings.Contains(strings.ToLower(a.Name+" "+a.Driver), strings.ToLower(selector))
}

func infoOf(index int, a *native.Adapter) AdapterInfo {
	info := a.Info()
	return AdapterInfo{
		Index:    index,
		Name:     info.Name,
		Backend:  backendOf(info.Backend),
		Type:     adapterTypeOf(info.Type),
		Driver:   info.Driver,
		VendorID: info.VendorID,
		DeviceID: info.DeviceID,
		Limits:   Limits(info.Limits),
	}
}

// glMu serialises every call into wgpu-native's GL backend. Its devices
// all share the EGL context of the process's one instance, and two threads
// making that context current at once fail with EGL's BadAccess, which
// wgpu-native turns into an abort of the process. So every GL device's mu
// is glMu (a GL device's driver polls hold it too), and Open and Adapters,
// which enumerate the GL adapters whatever the backend asked for, take it.
var glMu sync.Mutex

// Adapters lists every adapter wgpu-native finds on every backend.
// It is safe for concurrent use.
func Adapters() []AdapterInfo {
	glMu.Lock()
	defer glMu.Unlock()
	found := native.Adapters()
	infos := make([]AdapterInfo, len(found))
	for i, a := range found {
		infos[i] = infoOf(i, a)
		a.Release()
	}
	return infos
}

// choose returns the index of the best adapter among infos for the options,
// or -1. selector is what AdapterInfo.Matches takes.
func choose(infos []AdapterInfo, backend Backend, selector string, pref PowerPreference) int {
	var idx []int
	for i, a := range infos {
		if a.Backend == BackendAny { // null or unknown backends
			continue
		}
		if backend != BackendAny && a.Backend != backend {
			continue
		}
		if !a.Matches(selector) {
			continue
		}
		idx = append(idx, i)
	}
	if len(idx) == 0 {
		return -1
	}
	score := func(a AdapterInfo) int {
		s := 0
		switch a.Type {
		case AdapterDiscrete:
			s = 30
			if pref == PowerLow {
				s = 20
			}
		case AdapterIntegrated:
			s = 20
			if pref == PowerLow {
				s = 30
			}
		case AdapterCPU:
			s = 10
		}
		if a.Backend != BackendGL {
			s += 5
		}
		return s
	}
	sort.SliceStable(idx, func(i, j int) bool { return score(infos[idx[i]]) > score(infos[idx[j]]) })
	return idx[0]
}

// MarshalText writes b by name, so that reports in JSON say "vulkan".
func (b Backend) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText reads a name that ParseBackend accepts.
func (b *Backend) UnmarshalText(text []byte) error {
	v, err := ParseBackend(string(text))
	*b = v
	return err
}

// MarshalText writes t by name ("cpu", "discrete", ...).
func (t AdapterType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads a name that String writes.
func (t *AdapterType) UnmarshalText(text []byte) error {
	for v := AdapterUnknown; v <= AdapterDiscrete; v++ {
		if v.String() == string(text) {
			*t = v
			return nil
		}
	}
	return newError("parse adapter type "+strconv.Quote(string(text)), ErrInvalidArgument, "want cpu, integrated, discrete or unknown")
}
