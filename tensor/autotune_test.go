package tensor_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// tunedEngine opens a device with tuning on (and opts besides) and an
// engine on it.
func tunedEngine(t *testing.T, opts tensor.AutotuneOptions) *tensor.Engine {
	t.Helper()
	t.Setenv("WGT_MATMUL", "")
	t.Setenv("WGT_AUTOTUNE", "")
	if opts.CachePath == "" {
		t.Setenv("WGT_AUTOTUNE_CACHE", "")
	}
	e := testgpu.Engine(t)
	opts.Mode = tensor.AutotuneOn
	require.NoError(t, tensor.SetAutotune(e.Device(), opts))
	return e
}

// product computes a·b (as shapes as and bs, transposed as ta and tb say)
// of random values on e and returns the result and the operands.
func product(t *testing.T, e *tensor.Engine, r *rand.Rand, as, bs []int, ta, tb bool) (got, av, bv []float32) {
	t.Helper()
	av, bv = randF32(r, size(as), -1, 1), randF32(r, size(bs), -1, 1)
	a, b := e.FromFloat32s(av, as...), e.FromFloat32s(bv, bs...)
	defer a.Dispose()
	defer b.Dispose()
	c := e.MatMulT(a, b, ta, tb)
	defer c.Dispose()
	require.NoError(t, c.Err())
	return f32s(t, c), av, bv
}

// productKeys returns the pipeline keys of the matmul dispatches of a·b on
// e (under a profile, where nothing is tuned).
func productKeys(t *testing.T, e *tensor.Engine, as, bs []int) []string {
	t.Helper()
	a, b := e.Fill(tensor.Float32, 1, as...), e.Fill(tensor.Float32, 1, bs...)
	defer a.Dispose()
	defer b.Dispose()
	p, err := e.Profile(ctxT(t), func() error {
		c := e.MatMul(a, b)
		defer c.Dispose()
		return e.Flush() // before c goes: a product nobody holds is not computed
	})
	require.NoError(t, err)
	var keys []string
	for _, d := range p.Dispatches {
		if d.Kernel == "matmul" && !slices.Contains(keys, d.Key) {
			keys = append(keys, d.Key)
		}
	}
	return keys
}

// kindOf is the kernel named in a matmul pipeline key.
func kindOf(key string) string { return strings.Split(key, "/")[1] }

// The first product of a class times its candidates (more than one, each
// a real kernel that computes it) and keeps the fastest; later products of
// the class, of other shapes in it too, take that choice without timing
// again, and run it.
func TestAutotuneTimesTheCandidatesOnceAndKeepsTheChoice(t *testing.T) {
	e := tunedEngine(t, tensor.AutotuneOptions{})
	d := e.Device()
	r := rand.New(rand.NewPCG(1, 1))
	got, av, bv := product(t, e, r, []int{200, 256}, []int{256, 192}, false, false)
	checkMatMul64(t, got, av, bv, 200, 256, 192, false, false)
	s := tensor.Autotune(d)
	require.True(t, s.Enabled)
	require.Equal(t, 1, s.Tuned, "%+v", s)
	require.Len(t, s.Choices, 1)
	ch := s.Choices[0]
	assert.Equal(t, tensor.AutotuneClass(200, 256, 192, 1, false, false), ch.Class)
	assert.GreaterOrEqual(t, len(ch.Times), 2, "candidates timed: %v", ch.Times)
	assert.Contains(t, ch.Times, ch.Kernel, "the choice was timed")
	for kind, dt := range ch.Times {
		assert.Contains(t, []string{"tiled", "register", "vec4", "small"}, kind)
		assert.Positive(t, dt)
		if kind != ch.Heuristic {
			continue
		}
		assert.LessOrEqual(t, ch.Times[ch.Kernel], dt, "the choice is no slower than the heuristic's")
	}
	assert.Equal(t, s.Timings, len(ch.Times))
	assert.Positive(t, s.Time)
	t.Logf("%s: %s (heuristic %s) %v, tuning took %v", ch.Class, ch.Kernel, ch.Heuristic, ch.Times, s.Time)

	// Another shape of the class: no timing, the choice.
	got, av, bv = product(t, e, r, []int{256, 252}, []int{252, 160}, false, false)
	checkMatMul64(t, got, av, bv, 256, 252, 160, false, false)
	s2 := tensor.Autotune(d)
	assert.Equal(t, 1, s2.Tuned)
	assert.Equal(t, s.Timings, s2.Timings)
	assert.Equal(t, s.Time, s2.Time, "no more time spent tuning")
	assert.Equal(t, s.Hits+1, s2.Hits)
	assert.Equal(t, []string{"matmul/" + ch.Kernel + "/false/false/b0"}, productKeys(t, e, []int{256, 252}, []int{252, 160}))
	// Products are counted by kernel: the two above and the profiled one.
	assert.Equal(t, uint64(3), tensor.Autotune(d).Products[ch.Kernel])
}

// checkMatMul64 checks got against a float64 product of av and bv, within
// the bound of a sum of K float32 products with one rounding each:
// |error| ≤ (K+1)·2⁻²⁴·Σ|a·b|.
func checkMatMul64(t *testing.T, got, av, bv []float32, M, K, N int, ta, tb bool) {
	t.Helper()
	require.Len(t, got, M*N)
	for i := range M {
		for j := range N {
			var sum, abs float64
			for k := range K {
				ai, bi := i*K+k, k*N+j
				if ta {
					ai = k*M + i
				}
				if tb {
					bi = j*K + k
				}
				p := float64(av[ai]) * float64(bv[bi])
				sum += p
				abs += math.Abs(p)
			}
			bound := float64(K+1) * 0x1p-24 * abs
			if g := float64(got[i*N+j]); math.Abs(g-sum) > bound {
				t.Fatalf("[%d,%d] of %d×%d·%d×%d T(%v,%v): got %v, want %v within %v", i, j, M, K, K, N, ta, tb, g, sum, bound)
			}
		}
	}
}

// Tuning never changes a result: at the edge shapes (empty, 1, odd, past
// the tiles and a tile's k step), each transpose, products of a tuned
// engine give the bits of the heuristic's kernel, within the documented
// bound of a float64 product.
func TestAutotunedProductsAgreeBitForBit(t *testing.T) {
	defer tensor.SetMinTuneWork(0)() // tune every product, however small
	tuned := tunedEngine(t, tensor.AutotuneOptions{})
	plain := testgpu.Engine(t)
	require.NoError(t, tensor.SetAutotune(plain.Device(), tensor.AutotuneOptions{Mode: tensor.AutotuneOff}))
	for _, c := range [][3]int{{1, 1, 1}, {3, 5, 7}, {1, 300, 1}, {65, 17, 129}, {129, 33, 67}, {130, 64, 128}, {0, 5, 3}, {4, 0, 6}} {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			M, K, N := c[0], c[1], c[2]
			as, bs := transposedShape([]int{M, K}, tr[0]), transposedShape([]int{K, N}, tr[1])
			seed := uint64(M*1000 + K*10 + N)
			want, _, _ := product(t, plain, rand.New(rand.NewPCG(seed, 9)), as, bs, tr[0], tr[1])
			got, av, bv := product(t, tuned, rand.New(rand.NewPCG(seed, 9)), as, bs, tr[0], tr[1])
			assert.Equal(t, float32Bits(want), float32Bits(got), "%d×%d·%d×%d T%v", M, K, K, N, tr)
			checkMatMul64(t, got, av, bv, M, K, N, tr[0], tr[1])
		}
	}
	s := tensor.Autotune(tuned.Device())
	assert.GreaterOrEqual(t, s.Tuned, 10, "classes tuned: %+v", s.Choices)
	for _, ch := range s.Choices {
		t.Logf("%s: %s (heuristic %s) %v", ch.Class, ch.Kernel, ch.Heuristic, ch.Times)
	}
	assert.Zero(t, tensor.Autotune(plain.Device()).Tuned)
}

// Off means the heuristic's kernel and no timing: by the option, by
// WGT_AUTOTUNE=0 whatever the option, and by default on CPU adapters.
func TestAutotuneOffTakesTheHeuristicsKernel(t *testing.T) {
	as, bs := []int{200, 256}, []int{256, 192}
	want := "matmul/vec4/false/false/b0"
	if e := testgpu.Engine(t); e.Device().Info().Type != wgpu.AdapterCPU {
		want = "matmul/tiled/false/false/b0"
	}
	for _, c := range []struct {
		name string
		env  string
		mode tensor.AutotuneMode
	}{
		{"option", "", tensor.AutotuneOff},
		{"environment", "0", tensor.AutotuneOn},
		{"default", "", tensor.AutotuneDefault},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("WGT_AUTOTUNE", c.env)
			t.Setenv("WGT_MATMUL", "")
			e := testgpu.Engine(t)
			require.NoError(t, tensor.SetAutotune(e.Device(), tensor.AutotuneOptions{Mode: c.mode}))
			if c.mode == tensor.AutotuneDefault && e.Device().Info().Type != wgpu.AdapterCPU {
				t.Skip("tuning is on by default on GPUs")
			}
			product(t, e, rand.New(rand.NewPCG(2, 2)), as, bs, false, false)
			key, err := e.TuneMatMul(200, 256, 192, 1, false, false)
			require.NoError(t, err)
			assert.Equal(t, want, key)
			assert.Equal(t, []string{want}, productKeys(t, e, as, bs))
			s := tensor.Autotune(e.Device())
			assert.False(t, s.Enabled)
			assert.Zero(t, s.Tuned)
			assert.Zero(t, s.Time)
			assert.Empty(t, s.Choices)
			assert.Equal(t, uint64(2), s.Products["vec4"]+s.Products["tiled"])
		})
	}
}

// While a Timer runs (a profile) nothing is tuned: the tuning's dispatches
// would land in the profile. The product takes the heuristic's kernel and
// the class is tuned by the next product outside it. A class budget too
// small for the product leaves it untuned too.
func TestAutotuneDefersUnderAProfileAndPastItsBudget(t *testing.T) {
	e := tunedEngine(t, tensor.AutotuneOptions{})
	d := e.Device()
	as, bs := []int{200, 256}, []int{256, 192}
	keys := productKeys(t, e, as, bs)
	require.Len(t, keys, 1, "only the product's own kernel ran in the profile")
	s := tensor.Autotune(d)
	assert.Zero(t, s.Tuned)
	assert.Equal(t, uint64(1), s.Deferred)
	product(t, e, rand.New(rand.NewPCG(3, 3)), as, bs, false, false)
	assert.Equal(t, 1, tensor.Autotune(d).Tuned)

	require.NoError(t, tensor.SetAutotune(d, tensor.AutotuneOptions{Mode: tensor.AutotuneOn, ClassBudget: time.Nanosecond}))
	product(t, e, rand.New(rand.NewPCG(3, 3)), []int{300, 512}, []int{512, 256}, false, false)
	s = tensor.Autotune(d)
	assert.Equal(t, 1, s.Tuned)
	assert.Equal(t, uint64(2), s.Deferred)
	require.Error(t, tensor.SetAutotune(d, tensor.AutotuneOptions{ClassBudget: -1}))
	require.Error(t, tensor.SetAutotune(d, tensor.AutotuneOptions{Mode: 7}))
	require.Error(t, tensor.SetAutotune(nil, tensor.AutotuneOptions{}))
}

// TuneMatMul tunes a class on scratch operands (freed: the leak check),
// and products of the class then take the kernel it names.
func TestTuneMatMulNamesTheKernelProductsTake(t *testing.T) {
	e := tunedEngine(t, tensor.AutotuneOptions{})
	for _, c := range []struct {
		M, K, N, batches int
		ta, tb           bool
	}{{256, 256, 256, 1, false, false}, {64, 32, 64, 16, false, true}, {128, 300, 96, 1, true, false}} {
		key, err := e.TuneMatMul(c.M, c.K, c.N, c.batches, c.ta, c.tb)
		require.NoError(t, err)
		as, bs := transposedShape([]int{c.M, c.K}, c.ta), transposedShape([]int{c.K, c.N}, c.tb)
		if c.batches > 1 {
			as, bs = append([]int{c.batches}, as...), append([]int{c.batches}, bs...)
		}
		a, b := e.Fill(tensor.Float32, 1, as...), e.Fill(tensor.Float32, 1, bs...)
		p, err := e.Profile(ctxT(t), func() error {
			out := e.MatMulT(a, b, c.ta, c.tb)
			defer out.Dispose()
			return e.Flush()
		})
		require.NoError(t, err)
		assert.Equal(t, key, p.Total("matmul").Key, "%+v", c)
		a.Dispose()
		b.Dispose()
	}
	assert.Equal(t, 3, tensor.Autotune(e.Device()).Tuned)
	_, err := e.TuneMatMul(1, -1, 1, 1, false, false)
	assert.ErrorIs(t, err, tensor.ErrShape)
	_, err = e.TuneMatMul(1, 1, 1, 0, false, false)
	assert.ErrorIs(t, err, tensor.ErrShape)
}

// Two engines on one device tuning the same class at once: it is timed
// once, both products are right, and the race detector sees no race.
func TestAutotuneConcurrentEnginesTuneAClassOnce(t *testing.T) {
	e0 := tunedEngine(t, tensor.AutotuneOptions{})
	d := e0.Device()
	engines := []*tensor.Engine{e0, testgpu.EngineOn(t, d), testgpu.EngineOn(t, d)}
	var wg sync.WaitGroup
	results := make([][]float32, len(engines))
	errs := make([]error, len(engines))
	av, bv := randF32(rand.New(rand.NewPCG(4, 4)), 200*256, -1, 1), randF32(rand.New(rand.NewPCG(5, 5)), 256*192, -1, 1)
	for i, e := range engines {
		wg.Go(func() {
			a, b := e.FromFloat32s(av, 200, 256), e.FromFloat32s(bv, 256, 192)
			defer a.Dispose()
			defer b.Dispose()
			c := e.MatMul(a, b)
			defer c.Dispose()
			results[i], errs[i] = c.Float32s(ctxT(t))
		})
	}
	wg.Wait()
	for i := range engines {
		require.NoError(t, errs[i])
		checkMatMul64(t, results[i], av, bv, 200, 256, 192, false, false)
		assert.Equal(t, float32Bits(results[0]), float32Bits(results[i]))
	}
	s := tensor.Autotune(d)
	assert.Equal(t, 1, s.Tuned)
	assert.Equal(t, uint64(2), s.Hits)
}

// cacheFile is the autotuner's cache file, as a test reads and writes it.
type cacheFile struct {
	Format  int            `json:"format"`
	Devices []cacheSection `json:"devices"`
}

type cacheSection struct {
	Adapter json.RawMessage `json:"adapter"`
	Kernels string          `json:"kernels"`
	Entries []cacheEntry    `json:"entries"`
}

type cacheEntry struct {
	Class     string             `json:"class"`
	Kernel    string             `json:"kernel"`
	Heuristic string             `json:"heuristic,omitempty"`
	Ns        map[string]float64 `json:"ns"`
}

func readCacheFile(t *testing.T, path string) cacheFile {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var cf cacheFile
	require.NoError(t, json.Unmarshal(data, &cf), "%s", data)
	return cf
}

func writeCacheFile(t *testing.T, path string, cf any) {
	t.Helper()
	data, err := json.Marshal(cf)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// A choice saved to the cache file is taken on the next device of the
// adapter without timing; the file keeps other adapters' sections.
func TestAutotuneCacheFileIsReused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tune.json")
	foreign := cacheSection{Adapter: json.RawMessage(`{"name":"Some GPU","driver":"x","backend":"vulkan","type":"discrete","vendor":4318,"device":1}`),
		Kernels: "whatever", Entries: []cacheEntry{{Class: "nn/m256/k256/n256/b1/v4", Kernel: "small", Ns: map[string]float64{"small": 1}}}}
	writeCacheFile(t, path, cacheFile{Format: 1, Devices: []cacheSection{foreign}})
	e := tunedEngine(t, tensor.AutotuneOptions{CachePath: path})
	s := tensor.Autotune(e.Device())
	assert.Equal(t, 1, s.Foreign)
	assert.Zero(t, s.Loaded)
	product(t, e, rand.New(rand.NewPCG(6, 6)), []int{200, 256}, []int{256, 192}, false, false)
	s = tensor.Autotune(e.Device())
	require.Equal(t, 1, s.Tuned, "a foreign entry is not used: %+v", s)
	require.Empty(t, s.Err)
	cf := readCacheFile(t, path)
	require.Len(t, cf.Devices, 2)
	adapter, kernels := tensor.AutotuneCacheKey(e.Device())
	assert.JSONEq(t, string(adapter), string(cf.Devices[0].Adapter))
	assert.Equal(t, kernels, cf.Devices[0].Kernels)
	require.Len(t, cf.Devices[0].Entries, 1)
	assert.Equal(t, s.Choices[0].Kernel, cf.Devices[0].Entries[0].Kernel)
	assert.JSONEq(t, string(foreign.Adapter), string(cf.Devices[1].Adapter), "the foreign section is kept")

	// A second device loads it and times nothing.
	e2 := tunedEngine(t, tensor.AutotuneOptions{CachePath: path})
	s2 := tensor.Autotune(e2.Device())
	assert.Equal(t, 1, s2.Loaded)
	assert.Zero(t, s2.Ignored)
	product(t, e2, rand.New(rand.NewPCG(6, 6)), []int{200, 256}, []int{256, 192}, false, false)
	s2 = tensor.Autotune(e2.Device())
	assert.Zero(t, s2.Tuned)
	assert.Equal(t, uint64(1), s2.Hits)
	require.Len(t, s2.Choices, 1)
	assert.True(t, s2.Choices[0].FromCache)
	assert.Equal(t, s.Choices[0].Kernel, s2.Choices[0].Kernel)
	assert.Equal(t, []string{"matmul/" + s.Choices[0].Kernel + "/false/false/b0"}, productKeys(t, e2, []int{200, 256}, []int{256, 192}))
}

// A corrupt, stale, foreign or malformed entry is ignored, never trusted:
// the class is timed anew and the file rewritten with what was measured.
// Past MaxAutotuneClasses entries are ignored too.
func TestAutotuneCacheFileIsValidated(t *testing.T) {
	e := testgpu.Engine(t)
	adapter, kernels := tensor.AutotuneCacheKey(e.Device())
	class := tensor.AutotuneClass(200, 256, 192, 1, false, false)
	// A lie: "small" for the class, which would run if trusted.
	lie := cacheEntry{Class: class, Kernel: "small", Ns: map[string]float64{"small": 1}}
	mine := func(kernels string, es ...cacheEntry) cacheFile {
		return cacheFile{Format: 1, Devices: []cacheSection{{Adapter: adapter, Kernels: kernels, Entries: es}}}
	}
	var otherDriver map[string]any
	require.NoError(t, json.Unmarshal(adapter, &otherDriver))
	otherDriver["driver"] = "Mesa 99"
	otherAdapter, err := json.Marshal(otherDriver)
	require.NoError(t, err)
	many := make([]cacheEntry, 0, tensor.MaxAutotuneClasses+5)
	for m := 1; len(many) < cap(many); m++ {
		for k := 1; k <= 1<<10 && len(many) < cap(many); k *= 2 {
			for n := 1; n <= 1<<10 && len(many) < cap(many); n *= 2 {
				many = append(many, cacheEntry{Class: fmt.Sprintf("nn/m%d/k%d/n%d/b1/s", 1<<m, k, n), Kernel: "register", Ns: map[string]float64{"register": 5}})
			}
		}
	}
	for _, c := range []struct {
		name             string
		file             any // written as JSON, or raw bytes
		ignored, foreign int
		loaded           int
	}{
		{"garbage", []byte("{\"format\": 1, \"devices\": [{"), 1, 0, 0},
		{"not json at all", []byte("\x00\x01 tuned!"), 1, 0, 0},
		{"trailing data", []byte(`{"format":1,"devices":[]} {}`), 1, 0, 0},
		{"another format", cacheFile{Format: 2, Devices: mine(kernels, lie).Devices}, 1, 0, 0},
		{"stale kernels", mine("0123456789abcdef01234567", lie), 1, 0, 0},
		{"another driver", cacheFile{Format: 1, Devices: []cacheSection{{Adapter: otherAdapter, Kernels: kernels, Entries: []cacheEntry{lie}}}}, 0, 1, 0},
		{"malformed entries", mine(kernels,
			cacheEntry{Class: strings.Replace(class, "/m256", "/m200", 1), Kernel: "small", Ns: map[string]float64{"small": 1}}, // not a class
			cacheEntry{Class: class + "/", Kernel: "small", Ns: map[string]float64{"small": 1}},
			cacheEntry{Class: strings.Replace(class, "/v4", "/s", 1), Kernel: "vec4", Ns: map[string]float64{"vec4": 1}}, // vec4 cannot
			cacheEntry{Class: class, Kernel: "fast", Ns: map[string]float64{"fast": 1}},
			cacheEntry{Class: class, Kernel: "small", Ns: map[string]float64{"small": -1}},
			cacheEntry{Class: class, Kernel: "small", Ns: map[string]float64{"small": 1e300}},
			cacheEntry{Class: class, Kernel: "small", Ns: map[string]float64{}},
			cacheEntry{Class: class, Kernel: "small", Ns: map[string]float64{"small": 100, "vec4": 10}}, // not the fastest
		), 8, 0, 0},
		{"too many", mine(kernels, many...), 5, 0, tensor.MaxAutotuneClasses},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tune.json")
			if raw, ok := c.file.([]byte); ok {
				require.NoError(t, os.WriteFile(path, raw, 0o644))
			} else {
				writeCacheFile(t, path, c.file)
			}
			e := tunedEngine(t, tensor.AutotuneOptions{CachePath: path})
			d := e.Device()
			s := tensor.Autotune(d)
			assert.Equal(t, c.ignored, s.Ignored, "ignored: %+v", s.Err)
			assert.Equal(t, c.foreign, s.Foreign)
			assert.Equal(t, c.loaded, s.Loaded)
			assert.LessOrEqual(t, len(s.Choices), tensor.MaxAutotuneClasses)
			if c.loaded >= tensor.MaxAutotuneClasses {
				// Bounded: a new class is not tuned once the device is full.
				product(t, e, rand.New(rand.NewPCG(7, 7)), []int{200, 256}, []int{256, 192}, false, false)
				s = tensor.Autotune(d)
				assert.Zero(t, s.Tuned)
				assert.Equal(t, uint64(1), s.Deferred)
				assert.Len(t, s.Choices, tensor.MaxAutotuneClasses)
				return
			}
			got, av, bv := product(t, e, rand.New(rand.NewPCG(7, 7)), []int{200, 256}, []int{256, 192}, false, false)
			checkMatMul64(t, got, av, bv, 200, 256, 192, false, false)
			s = tensor.Autotune(d)
			require.Equal(t, 1, s.Tuned, "the entry was not trusted")
			require.Len(t, s.Choices, 1)
			assert.False(t, s.Choices[0].FromCache)
			assert.Contains(t, s.Choices[0].Times, s.Choices[0].Kernel, "the choice was measured")
			// Rewritten: what the device measured, and nothing untrusted.
			cf := readCacheFile(t, path)
			assert.Equal(t, 1, cf.Format)
			require.NotEmpty(t, cf.Devices)
			assert.JSONEq(t, string(adapter), string(cf.Devices[0].Adapter))
			assert.Equal(t, kernels, cf.Devices[0].Kernels)
			require.Len(t, cf.Devices[0].Entries, 1)
			assert.Equal(t, s.Choices[0].Kernel, cf.Devices[0].Entries[0].Kernel)
			assert.Len(t, cf.Devices, 1+c.foreign)
		})
	}
}
