package tensor

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/wgpu"
)

// The autotuner's cache file: JSON, a section per adapter, each holding
// the choices made on that adapter and driver by kernels of one version.
//
//	{"format": 1, "devices": [{"adapter": {...}, "kernels": "…", "entries": [
//	    {"class": "nn/m1024/k1024/n1024/b1/v4", "kernel": "vec4",
//	     "heuristic": "vec4", "ns": {"vec4": 61234567, "register": 150012345}}]}]}
//
// Nothing in it is trusted: a file of another format is ignored whole; a
// section of this adapter whose kernel version differs (the kernels
// changed since) is ignored whole; an entry whose class is not a
// canonical class, whose kernel cannot compute its class or is not the
// one its times make fastest, whose times are not finite positive
// durations, that repeats a class, or that comes past
// MaxAutotuneClasses is ignored. Sections of other adapters are never
// used, only kept when the file is rewritten (up to maxCacheDevices).

// cacheFormat is the file's format version.
const cacheFormat = 1

// Bounds of the cache file: its size (a larger file is not read), and its
// sections.
const (
	maxCacheBytes   = 4 << 20
	maxCacheDevices = 16
)

// cacheAdapter identifies an adapter and driver in the cache file.
type cacheAdapter struct {
	Name    string `json:"name"`
	Driver  string `json:"driver"`
	Backend string `json:"backend"`
	Type    string `json:"type"`
	Vendor  uint32 `json:"vendor"`
	Device  uint32 `json:"device"`
}

// adapterKeyOf is info's key.
func adapterKeyOf(info wgpu.AdapterInfo) cacheAdapter {
	return cacheAdapter{Name: info.Name, Driver: info.Driver, Backend: info.Backend.String(), Type: info.Type.String(),
		Vendor: info.VendorID, Device: info.DeviceID}
}

type cacheFile struct {
	Format  int            `json:"format"`
	Devices []cacheSection `json:"devices"`
}

type cacheSection struct {
	Adapter cacheAdapter `json:"adapter"`
	Kernels string       `json:"kernels"`
	Entries []cacheEntry `json:"entries"`
}

type cacheEntry struct {
	Class     string             `json:"class"`
	Kernel    string             `json:"kernel"`
	Heuristic string             `json:"heuristic,omitempty"`
	Ns        map[string]float64 `json:"ns"`
}

// kernelVersion is a hash of the source of every MatMul kernel the tuner
// chooses among, and of the tuner's own format: a choice made by other
// kernels is stale.
var kernelVersion = sync.OnceValue(func() string {
	h := sha256.New()
	fmt.Fprintf(h, "wgtensor matmul autotune %d\n", cacheFormat)
	for _, kind := range matmulKinds {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			for rank := range 2 {
				k := withKind(kernels.MatMul{TransA: tr[0], TransB: tr[1], BatchRank: rank}, kind)
				io.WriteString(h, k.Key()+"\n"+k.Spec().Source)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
})

// readCache reads and parses the file at path; a missing file is an empty
// one (nil, nil).
func readCache(path string) (*cacheFile, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCacheBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxCacheBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxCacheBytes)
	}
	var cf cacheFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&cf); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the JSON object")
	}
	if cf.Format != cacheFormat {
		return &cf, fmt.Errorf("format %d; this library reads %d", cf.Format, cacheFormat)
	}
	return &cf, nil
}

// entries counts the entries of every section of cf.
func (cf *cacheFile) entries() int {
	n := 0
	for _, s := range cf.Devices {
		n += len(s.Entries)
	}
	return n
}

// validEntry returns e as a choice, or false if it is not to be trusted.
func validEntry(e cacheEntry) (matmulClass, AutotuneChoice, bool) {
	c, ok := parseClass(e.Class)
	if !ok || !c.allows(e.Kernel) || (e.Heuristic != "" && !c.allows(e.Heuristic)) || len(e.Ns) == 0 {
		return c, AutotuneChoice{}, false
	}
	times := map[string]time.Duration{}
	for kind, ns := range e.Ns {
		if !c.allows(kind) || !finiteDuration(ns) {
			return c, AutotuneChoice{}, false
		}
		times[kind] = time.Duration(ns)
	}
	heur := e.Heuristic
	if heur == "" {
		heur = e.Kernel
	}
	if _, ok := times[e.Kernel]; !ok || fastestKind(times, heur) != e.Kernel {
		return c, AutotuneChoice{}, false
	}
	return c, AutotuneChoice{Class: e.Class, Kernel: e.Kernel, Heuristic: e.Heuristic, Times: times, FromCache: true}, true
}

// loadLocked loads the choices of t's adapter from the file at path ("" for
// none), replacing those loaded from another file before; choices tuned on
// the device stay. The caller holds t.mu.
func (t *tuner) loadLocked(path string) {
	for c, ch := range t.choices {
		if ch.FromCache {
			delete(t.choices, c)
		}
	}
	t.loadedPath = path
	t.stats.Loaded, t.stats.Ignored, t.stats.Foreign = 0, 0, 0
	if path == "" {
		return
	}
	cf, err := readCache(path)
	if err != nil {
		t.stats.Err = fmt.Sprintf("autotune cache %s ignored: %v", path, err)
		t.stats.Ignored = 1
		if cf != nil {
			t.stats.Ignored = max(1, cf.entries())
		}
		return
	}
	if cf == nil {
		return
	}
	seen := false
	for _, s := range cf.Devices {
		if s.Adapter != t.key {
			t.stats.Foreign += len(s.Entries)
			continue
		}
		if seen || s.Kernels != kernelVersion() {
			t.stats.Ignored += len(s.Entries) // a repeated or stale section
			continue
		}
		seen = true
		for _, e := range s.Entries {
			c, ch, ok := validEntry(e)
			_, dup := t.choices[c]
			if !ok || dup || len(t.choices) >= MaxAutotuneClasses {
				t.stats.Ignored++
				continue
			}
			t.choices[c] = ch
			t.stats.Loaded++
		}
	}
}

// saveCache writes choices as key's section of the file at path, keeping
// the well-formed sections of other adapters it holds (up to
// maxCacheDevices in all): to a temporary file beside it, renamed over it.
func saveCache(path string, key cacheAdapter, choices []AutotuneChoice) error {
	mine := cacheSection{Adapter: key, Kernels: kernelVersion()}
	for _, ch := range choices[:min(len(choices), MaxAutotuneClasses)] {
		e := cacheEntry{Class: ch.Class, Kernel: ch.Kernel, Heuristic: ch.Heuristic, Ns: map[string]float64{}}
		for kind, dt := range ch.Times {
			e.Ns[kind] = float64(dt)
		}
		mine.Entries = append(mine.Entries, e)
	}
	out := cacheFile{Format: cacheFormat, Devices: []cacheSection{mine}}
	if old, err := readCache(path); err == nil && old != nil {
		for _, s := range old.Devices {
			if s.Adapter != key && s.Adapter.Name != "" && len(s.Entries) <= MaxAutotuneClasses && len(out.Devices) < maxCacheDevices {
				out.Devices = append(out.Devices, s)
			}
		}
	}
	data, err := json.MarshalIndent(out, "", "\t")
	if err != nil {
		return err
	}
	if len(data) > maxCacheBytes {
		out.Devices = out.Devices[:1] // the others made it too large
		if data, err = json.MarshalIndent(out, "", "\t"); err != nil {
			return err
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("autotune cache: %w", err)
	}
	_, err = tmp.Write(append(data, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("autotune cache: %w", err)
	}
	return nil
}
