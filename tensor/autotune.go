package tensor

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/wgpu"
)

// The matmul autotuner.
//
// MatMul chooses among four kernels (kernels.MatMul: tiled, register,
// vec4, small) with a heuristic (pickMatMul) built from lavapipe's
// measurements and one H200 run. Where tuning is on, the first product of
// a shape class on a device times the kernels that can compute it on that
// device instead, and every later product of the class takes the fastest.
// The choice is kept per device in memory and, where a cache file is
// given, on disk, keyed by the adapter, its driver and a hash of the
// kernels' sources.
//
// Every MatMul kernel sums each element's products in the order of k with
// one fused multiply-add per product (the k ranges of a split product
// continue in order from C): all kernels give the same bits, and tuning
// never changes a result (TestMatMulKernelsAgreeBitForBit,
// TestAutotunedProductsAgreeBitForBit).

// AutotuneMode says whether a device's products are tuned.
type AutotuneMode int

// The modes.
const (
	// AutotuneDefault tunes on GPUs (integrated, discrete or unknown
	// adapters) and not on CPU adapters (lavapipe, llvmpipe), whose
	// heuristic was measured on them and where timing a large product
	// costs a noticeable part of a second; WGT_AUTOTUNE=1 turns it on
	// everywhere.
	AutotuneDefault AutotuneMode = iota
	// AutotuneOn tunes on every adapter.
	AutotuneOn
	// AutotuneOff never tunes: every product takes the heuristic's
	// kernel, as with WGT_AUTOTUNE=0.
	AutotuneOff
)

func (m AutotuneMode) String() string {
	switch m {
	case AutotuneDefault:
		return "default"
	case AutotuneOn:
		return "on"
	case AutotuneOff:
		return "off"
	}
	return fmt.Sprintf("AutotuneMode(%d)", int(m))
}

// The default budgets of the autotuner (AutotuneOptions).
const (
	DefaultClassBudget  = 500 * time.Millisecond
	DefaultDeviceBudget = 10 * time.Second
)

// MaxAutotuneClasses is the most shape classes the autotuner keeps per
// device, in memory and in a cache file's section for an adapter: once a
// device holds that many, products of new classes take the heuristic's
// kernel untuned, and a file's entries past it are ignored.
const MaxAutotuneClasses = 1024

// AutotuneOptions configure a device's autotuner (SetAutotune).
type AutotuneOptions struct {
	// Mode turns tuning on or off; WGT_AUTOTUNE=0 in the environment
	// turns it off whatever Mode says (reproducible runs), and
	// WGT_AUTOTUNE=1 turns it on where Mode is AutotuneDefault.
	// WGT_MATMUL, which forces one kernel family, disables tuning.
	Mode AutotuneMode
	// CachePath is a JSON file that choices are loaded from when tuning
	// starts on the device and saved to (written to a temporary file and
	// renamed) after each class is tuned; other adapters' choices in it are
	// kept. "" takes WGT_AUTOTUNE_CACHE from the environment; with neither,
	// choices live in memory only. A file's entries are validated on load:
	// entries of another format, of other kernel sources (stale), of
	// another adapter or driver (foreign), malformed ones and those past
	// MaxAutotuneClasses are ignored and counted (AutotuneStats.Ignored),
	// never trusted.
	CachePath string
	// ClassBudget bounds the wall time of tuning one class (compiling the
	// candidates is not counted); 0 means DefaultClassBudget. A candidate
	// whose predicted time does not fit what is left is not timed, and a
	// class whose heuristic kernel alone would take more than half of it
	// is not tuned (its products take the heuristic's kernel).
	ClassBudget time.Duration
	// DeviceBudget bounds the wall time spent tuning on the device in
	// all, compiling included; 0 means DefaultDeviceBudget. Once it is
	// spent, new classes take the heuristic's kernel.
	DeviceBudget time.Duration
}

// AutotuneChoice is a shape class's kernel on a device.
type AutotuneChoice struct {
	// Class names the shape class: the transposes (n or t, A then B), M,
	// K and N each rounded up to a power of two, the batch count likewise,
	// and whether the Vec4 kernel fits ("v4") or not ("s"), e.g.
	// "nt/m128/k1024/n256/b1/v4".
	Class string
	// Kernel is the kernel chosen: "tiled", "register", "vec4" or "small".
	Kernel string
	// Heuristic is the kernel pickMatMul gives the product that was timed.
	Heuristic string
	// Times are the measured times of one product, per kernel timed.
	Times map[string]time.Duration
	// FromCache says the choice was loaded from the cache file.
	FromCache bool
}

// AutotuneStats are what a device's autotuner did.
type AutotuneStats struct {
	Enabled bool   // whether products on the device are tuned now
	Cache   string // the cache file, "" for none
	// Tuned counts classes timed on the device; Timings the candidate
	// kernels timed for them.
	Tuned, Timings int
	// Hits counts products that took a choice already made.
	Hits uint64
	// Deferred counts products that would have been tuned but took the
	// heuristic's kernel: a class too large for its budget, the device
	// budget spent, MaxAutotuneClasses reached, a Timer running on the
	// device (tuning waits for a product outside profiles), or a failure.
	Deferred uint64
	// Loaded counts the cache file's entries taken; Ignored those
	// rejected (stale, malformed, repeated, past the bound; all of a
	// file of another format, at least 1), or 1 for a file that could not
	// be read or parsed; Foreign the entries of other adapters' sections,
	// never used (the well-formed ones are kept when the file is
	// rewritten).
	Loaded, Ignored, Foreign int
	// Time is the wall time spent tuning, compiling included.
	Time time.Duration
	// Products counts the products recorded on the device, by kernel, tuned
	// or not.
	Products map[string]uint64
	// Choices are the classes' kernels, sorted by class.
	Choices []AutotuneChoice
	// Err is the last error of tuning, loading or saving the cache ("" for
	// none); none of them fails an op.
	Err string
}

// SetAutotune configures the autotuner of d's products, for every engine
// on d; the options apply from the next product on. A new CachePath is
// loaded at once (its entries validated, see AutotuneOptions). It fails
// with ErrArgument for an unknown mode or a negative budget, or a nil
// device. It is safe for concurrent use.
func SetAutotune(d *wgpu.Device, opts AutotuneOptions) error {
	const op = "set autotune"
	switch {
	case d == nil:
		return opErr(op, nil, ErrArgument, "nil device")
	case opts.Mode < AutotuneDefault || opts.Mode > AutotuneOff:
		return opErr(op, nil, ErrArgument, "unknown mode %d", int(opts.Mode))
	case opts.ClassBudget < 0 || opts.DeviceBudget < 0:
		return opErr(op, nil, ErrArgument, "negative budget (class %v, device %v)", opts.ClassBudget, opts.DeviceBudget)
	}
	t := tunerFor(d)
	t.tuneMu.Lock() // no tuning runs while the options and cache change
	defer t.tuneMu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.opts = opts
	if path := t.cachePathLocked(); path != t.loadedPath {
		t.loadLocked(path)
	}
	return nil
}

// Autotune reports what d's autotuner did. It is safe for concurrent use.
func Autotune(d *wgpu.Device) AutotuneStats {
	if d == nil {
		return AutotuneStats{}
	}
	t := tunerFor(d)
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.stats
	s.Enabled = t.enabledLocked()
	s.Cache = t.loadedPath
	s.Hits, s.Deferred = t.hits.Load(), t.deferred.Load()
	s.Products = map[string]uint64{}
	for i, kind := range matmulKinds {
		if n := t.products[i].Load(); n > 0 {
			s.Products[kind] = n
		}
	}
	for c, ch := range t.choices {
		ch.Class = c.String()
		ch.Times = maps(ch.Times)
		s.Choices = append(s.Choices, ch)
	}
	slices.SortFunc(s.Choices, func(a, b AutotuneChoice) int { return strings.Compare(a.Class, b.Class) })
	return s
}

// maps copies m.
func maps(m map[string]time.Duration) map[string]time.Duration {
	c := make(map[string]time.Duration, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// TuneMatMul tunes the shape class of a product of batches M×K times K×N
// matrices (transposed as MatMulT's flags say; batches 1 means rank-2
// operands) on scratch operands, as the first such product would, and
// returns the pipeline key (see KernelProfile) of the kernel products of
// that shape take on e's device: the tuned choice, or the heuristic's where
// tuning is off, forced (WGT_MATMUL) or deferred. Benchmarks call it
// before they time, so that no tuning lands in what they time. It returns
// an error only for a bad shape or an engine that cannot compute; a
// failure to tune falls back to the heuristic. Like every op, it is used by
// one goroutine at a time per engine.
func (e *Engine) TuneMatMul(M, K, N, batches int, transA, transB bool) (string, error) {
	const name = "tune matmul"
	site := callerSite()
	if err := e.usable(name); err != nil {
		return "", err
	}
	if min(M, K, N) < 0 || batches < 1 || K > kernels.MaxMatMulK {
		return "", opErr(name, nil, ErrShape, "M %d, K %d, N %d, batches %d", M, K, N, batches)
	}
	g := matmulGeom{M: M, K: K, N: N, batches: batches, base: kernels.MatMul{TransA: transA, TransB: transB}}
	as, bs := Shape{M, K}, Shape{K, N}
	if transA {
		as = Shape{K, M}
	}
	if transB {
		bs = Shape{N, K}
	}
	if batches > 1 {
		g.base.BatchRank, g.batchDims, g.aStrides, g.bStrides = 1, []uint32{uint32(batches)}, []uint32{1}, []uint32{1}
		as, bs = append(Shape{batches}, as...), append(Shape{batches}, bs...)
	}
	_, forced := forcedMatMulKernel()
	heur := pickMatMul(e.matMulKernel(), forced, g.base, M, K, N, batches)
	t := tunerFor(e.dev)
	t.mu.Lock()
	on := t.enabledLocked()
	t.mu.Unlock()
	if !on || M*N == 0 {
		return heur.Key(), nil
	}
	a := e.fill(site, name, Float32, 0.5, as)
	defer a.Dispose()
	b := e.fill(site, name, Float32, 0.25, bs)
	defer b.Dispose()
	o, bad := e.begin(name, site, a, b)
	if bad != nil {
		return "", bad.Err()
	}
	defer o.end()
	out, err := o.alloc(Shape{batches, M, N}, Float32)
	if err != nil {
		return "", err
	}
	defer out.Dispose()
	return o.matmulChoice(g, []*wgpu.Buffer{a.buf(), b.buf(), out.buf()}, false).Key(), nil
}

// matmulKinds are the MatMul kernels, as kernels.MatMul.Kind names them.
var matmulKinds = [...]string{"tiled", "register", "vec4", "small"}

// kindIndex is kind's index in matmulKinds, or -1.
func kindIndex(kind string) int { return slices.Index(matmulKinds[:], kind) }

// withKind returns base with the kernel named kind.
func withKind(base kernels.MatMul, kind string) kernels.MatMul {
	k := base
	k.Register, k.Vec4, k.Small = false, false, false
	switch kind {
	case "register":
		k.Register = true
	case "vec4":
		k.Vec4 = true
	case "small":
		k.Small = true
	}
	return k
}

// matmulClass is a shape class of products: what the choice of kernel
// depends on, with sizes rounded up to powers of two (0 stays 0).
type matmulClass struct {
	ta, tb     bool
	m, k, n, b int
	vec4       bool // the Vec4 kernel fits (kernels.Vec4Fits)
}

// classOf returns g's class.
func classOf(g matmulGeom) matmulClass {
	return matmulClass{ta: g.base.TransA, tb: g.base.TransB, m: pow2Up(g.M), k: pow2Up(g.K), n: pow2Up(g.N), b: pow2Up(g.batches),
		vec4: kernels.Vec4Fits(g.base.TransA, g.base.TransB, g.M, g.K, g.N)}
}

// pow2Up is n rounded up to a power of two; 0 for n ≤ 0.
func pow2Up(n int) int {
	if n <= 0 {
		return 0
	}
	return 1 << bits.Len(uint(n-1))
}

func (c matmulClass) String() string {
	tr := func(t bool) string {
		if t {
			return "t"
		}
		return "n"
	}
	v := "s"
	if c.vec4 {
		v = "v4"
	}
	return fmt.Sprintf("%s%s/m%d/k%d/n%d/b%d/%s", tr(c.ta), tr(c.tb), c.m, c.k, c.n, c.b, v)
}

// parseClass parses a class as String writes it; only the canonical
// spelling of a class with sizes that are powers of two (or 0) within
// MatMul's limits parses.
func parseClass(s string) (matmulClass, bool) {
	var c matmulClass
	f := strings.Split(s, "/")
	if len(f) != 6 || len(f[0]) != 2 {
		return c, false
	}
	flag := func(b byte) (bool, bool) { return b == 't', b == 't' || b == 'n' }
	var ok1, ok2 bool
	c.ta, ok1 = flag(f[0][0])
	c.tb, ok2 = flag(f[0][1])
	if !ok1 || !ok2 {
		return c, false
	}
	for i, p := range []struct {
		prefix string
		v      *int
		max    int
	}{{"m", &c.m, 1 << 31}, {"k", &c.k, pow2Up(kernels.MaxMatMulK)}, {"n", &c.n, 1 << 31}, {"b", &c.b, 1 << 31}} {
		num, ok := strings.CutPrefix(f[1+i], p.prefix)
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n < 0 || n > p.max || pow2Up(n) != n || strconv.Itoa(n) != num {
			return c, false
		}
		*p.v = n
	}
	switch f[5] {
	case "v4":
		c.vec4 = true
	case "s":
	default:
		return c, false
	}
	return c, c.String() == s
}

// allows reports whether kind is a kernel products of c may take.
func (c matmulClass) allows(kind string) bool {
	return kindIndex(kind) >= 0 && (kind != "vec4" || c.vec4)
}

// tuner is a device's autotuner: its options, its choices and what it
// did. One per device (tunerFor), shared by the device's engines.
type tuner struct {
	dev weak.Pointer[wgpu.Device]
	key cacheAdapter // the device's adapter, as the cache file names it
	cpu bool         // a CPU adapter

	// tuneMu is held while a class is tuned or the options change: one
	// tuning at a time per device, so that tunings do not time each other.
	tuneMu sync.Mutex

	mu         sync.Mutex // protects the fields below
	opts       AutotuneOptions
	loadedPath string // the cache file loaded, "" for none
	choices    map[matmulClass]AutotuneChoice
	stats      AutotuneStats // the counts besides hits, deferrals and products

	hits, deferred atomic.Uint64
	products       [len(matmulKinds)]atomic.Uint64
}

// tuners holds each device's tuner, by a weak pointer to the device: a
// device that is collected takes its tuner's entry with it.
var tuners sync.Map // weak.Pointer[wgpu.Device] → *tuner

// tunerFor returns d's tuner, making it on first use.
func tunerFor(d *wgpu.Device) *tuner {
	wp := weak.Make(d)
	if t, ok := tuners.Load(wp); ok {
		return t.(*tuner)
	}
	info := d.Info()
	t := &tuner{dev: wp, key: adapterKeyOf(info), cpu: info.Type == wgpu.AdapterCPU, choices: map[matmulClass]AutotuneChoice{}}
	got, loaded := tuners.LoadOrStore(wp, t)
	if !loaded {
		runtime.AddCleanup(d, func(wp weak.Pointer[wgpu.Device]) { tuners.Delete(wp) }, wp)
	}
	return got.(*tuner)
}

// count notes a product recorded with kernel k.
func (t *tuner) count(k kernels.MatMul) {
	if i := kindIndex(k.Kind()); i >= 0 {
		t.products[i].Add(1)
	}
}

// enabledLocked reports whether products are tuned now.
func (t *tuner) enabledLocked() bool {
	env := os.Getenv("WGT_AUTOTUNE")
	if _, forced := forcedMatMulKernel(); forced || env == "0" {
		return false
	}
	switch t.opts.Mode {
	case AutotuneOn:
		return true
	case AutotuneOff:
		return false
	}
	return env == "1" || !t.cpu
}

// cachePathLocked is the cache file the options name.
func (t *tuner) cachePathLocked() string {
	if t.opts.CachePath != "" {
		return t.opts.CachePath
	}
	return os.Getenv("WGT_AUTOTUNE_CACHE")
}

// budgetsLocked are the class and device budgets.
func (t *tuner) budgetsLocked() (class, device time.Duration) {
	return cmpOr(t.opts.ClassBudget, DefaultClassBudget), cmpOr(t.opts.DeviceBudget, DefaultDeviceBudget)
}

// cmpOr is v, or def where v is 0.
func cmpOr(v, def time.Duration) time.Duration {
	if v == 0 {
		return def
	}
	return v
}

// lookup returns the choice of c, and whether tuning is on; it loads the
// cache file the first time it is asked with tuning on.
func (t *tuner) lookup(c matmulClass) (kind string, ok, enabled bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.enabledLocked() {
		return "", false, false
	}
	if path := t.cachePathLocked(); path != t.loadedPath {
		t.loadLocked(path)
	}
	ch, ok := t.choices[c]
	return ch.Kernel, ok, true
}

// noteErr records err as the tuner's last error.
func (t *tuner) noteErr(err error) {
	t.mu.Lock()
	t.stats.Err = err.Error()
	t.mu.Unlock()
}

// minTuneWork is the least work (wgpu.Work, about a nanosecond of
// lavapipe) of the heuristic's kernel for a product to be tuned: smaller
// products take the heuristic's kernel, their time being mostly the
// dispatch's. Tests lower it; nothing else writes it.
var minTuneWork = 200_000.0

// Tuning parameters.
const (
	// gpuSpeedup is how many times faster than the work estimates a GPU
	// is taken to run before a product has been timed.
	gpuSpeedup = 50
	// minRun is the least predicted wall time of one measurement:
	// shorter products are repeated in one submission, so that the cost
	// of a submission and a wait is a small part of what is measured.
	minRun = 3 * time.Millisecond
	// maxReps bounds those repetitions, measurements the measurements of
	// each candidate (the fastest counts).
	maxReps, measurements = 16, 3
	// tuneMargin is how much faster than the heuristic's kernel another
	// must measure to be chosen, so that noise does not move a choice.
	tuneMargin = 0.05
	// syncTimeout bounds each wait for the device while tuning.
	syncTimeout = time.Minute
)

// matmulChoice returns the kernel of g's product: the kernel forced by
// WGT_MATMUL, or the class's tuned choice (tuning the class first, if it
// is new and tuning is on), or the heuristic's (pickMatMul). bufs are the
// product's operands and result, which tuning computes into: every kernel
// writes every element of the result, so that the product recorded after
// leaves no trace of it. count says to count the product in the
// tuner's figures.
func (o *op) matmulChoice(g matmulGeom, bufs []*wgpu.Buffer, count bool) kernels.MatMul {
	e := o.e
	family := e.matMulKernel()
	_, forced := forcedMatMulKernel()
	packed := g.base.AStorage != kernels.Word || g.base.BStorage != kernels.Word // every kernel reads them, untuned
	heur := pickMatMul(family, forced, g.base, g.M, g.K, g.N, g.batches)
	t := tunerFor(e.dev)
	k := heur
	if !forced && !packed {
		k = t.choose(o, g, heur, family, bufs)
	}
	if count {
		t.count(k)
	}
	return k
}

// choose is matmulChoice's choice where no kernel is forced.
func (t *tuner) choose(o *op, g matmulGeom, heur kernels.MatMul, family string, bufs []*wgpu.Buffer) kernels.MatMul {
	c := classOf(g)
	kind, ok, enabled := t.lookup(c)
	switch {
	case !enabled:
		return heur
	case ok:
		t.hits.Add(1)
		return withKind(g.base, kind)
	case matmulWork(heur, g.M, g.K, g.N, g.batches) < minTuneWork:
		return heur
	}
	t.tuneMu.Lock()
	defer t.tuneMu.Unlock()
	if kind, ok, _ := t.lookup(c); ok { // tuned while this waited
		t.hits.Add(1)
		return withKind(g.base, kind)
	}
	ch, err := t.tune(o, c, g, heur, bufs)
	if err != nil {
		t.deferred.Add(1)
		if err != errDeferred {
			t.noteErr(err)
		}
		return heur
	}
	return withKind(g.base, ch.Kernel)
}

// errDeferred is tune's error when it decided not to tune, which is no
// failure.
var errDeferred = fmt.Errorf("tuning deferred")

// candidates are the kernels that may compute g's product, the heuristic's
// first.
func candidates(c matmulClass, g matmulGeom, heur kernels.MatMul) []kernels.MatMul {
	cands := []kernels.MatMul{heur}
	for _, kind := range matmulKinds {
		if kind != heur.Kind() && c.allows(kind) {
			cands = append(cands, withKind(g.base, kind))
		}
	}
	return cands
}

// tune times the candidate kernels of class c on g's product and keeps
// the fastest as c's choice; the caller holds t.tuneMu. It returns
// errDeferred where it does not tune (see AutotuneStats.Deferred).
func (t *tuner) tune(o *op, c matmulClass, g matmulGeom, heur kernels.MatMul, bufs []*wgpu.Buffer) (AutotuneChoice, error) {
	d := o.e.dev
	t.mu.Lock()
	classBudget, deviceBudget := t.budgetsLocked()
	full := len(t.choices) >= MaxAutotuneClasses
	deviceLeft := deviceBudget - t.stats.Time
	path := t.cachePathLocked()
	t.mu.Unlock()
	if full || deviceLeft <= 0 {
		return AutotuneChoice{}, errDeferred
	}
	// work is a kernel's work estimate, the tiled kernel's scaled for GPUs
	// as pickMatMul scales it.
	work := func(k kernels.MatMul) float64 {
		w := matmulWork(k, g.M, g.K, g.N, g.batches)
		if !t.cpu && k.Kind() == "tiled" {
			w /= gpuTileAdvantage
		}
		return w
	}
	perWork := 1.0 // predicted nanoseconds per unit of work
	if !t.cpu {
		perWork = 1.0 / gpuSpeedup
	}
	if time.Duration(work(heur)*perWork) > classBudget/2 {
		return AutotuneChoice{}, errDeferred
	}
	// A Timer running on the device would record the tuning's dispatches
	// as the user's: wait for a product outside it.
	tm, err := d.StartTiming()
	if err != nil {
		return AutotuneChoice{}, errDeferred
	}
	ctx, cancel := context.WithTimeout(context.Background(), syncTimeout)
	defer cancel()
	if _, err := tm.Stop(ctx); err != nil { // waits for the work before
		return AutotuneChoice{}, err
	}
	began := time.Now()
	var timed time.Duration // wall time of the measurements
	defer func() {
		t.mu.Lock()
		t.stats.Time += time.Since(began)
		t.mu.Unlock()
	}()
	times := map[string]time.Duration{}
	var best time.Duration
	for i, k := range candidates(c, g, heur) {
		pred := time.Duration(work(k) * perWork)
		left := min(classBudget-timed, deviceLeft-time.Since(began))
		if pred > left {
			if i == 0 {
				return AutotuneChoice{}, errDeferred
			}
			continue
		}
		// Compile outside the timing, and run one workgroup of it, which
		// drivers that compile on first use (llvmpipe) compile then. The
		// class budget does not count it (the device budget does): a
		// compile slowed by a busy machine must not leave the later
		// candidates untimed.
		if err := o.recordMatMul(k, g, bufs, true); err != nil {
			return AutotuneChoice{}, err
		}
		if err := d.Sync(ctx); err != nil {
			return AutotuneChoice{}, err
		}
		var fastest time.Duration
		for m := range measurements {
			reps := max(1, min(maxReps, int(minRun/max(pred, 1))))
			left := min(classBudget-timed, deviceLeft-time.Since(began))
			if time.Duration(reps)*pred > left {
				break
			}
			start := time.Now()
			for range reps {
				if err := o.recordMatMul(k, g, bufs, false); err != nil {
					return AutotuneChoice{}, err
				}
			}
			if err := d.Sync(ctx); err != nil {
				return AutotuneChoice{}, err
			}
			took := time.Since(start)
			timed += took
			each := took / time.Duration(reps)
			if m == 0 || each < fastest {
				fastest = each
			}
			if i == 0 && m == 0 { // calibrate the predictions
				perWork = float64(each) / max(work(k), 1)
			}
			pred = fastest
			if best > 0 && fastest > 2*best {
				break // clearly slower: once is enough
			}
		}
		if fastest == 0 {
			if i == 0 {
				return AutotuneChoice{}, errDeferred
			}
			continue
		}
		times[k.Kind()] = fastest
		if best == 0 || fastest < best {
			best = fastest
		}
	}
	choice := fastestKind(times, heur.Kind())
	ch := AutotuneChoice{Class: c.String(), Kernel: choice, Heuristic: heur.Kind(), Times: times}
	t.mu.Lock()
	t.choices[c] = ch
	t.stats.Tuned++
	t.stats.Timings += len(times)
	var save []AutotuneChoice
	if path != "" {
		save = t.savableLocked()
	}
	t.mu.Unlock()
	if path != "" {
		if err := saveCache(path, t.key, save); err != nil {
			t.noteErr(err)
		}
	}
	return ch, nil
}

// fastestKind returns the kernel of times that measured fastest, unless it
// is less than tuneMargin faster than heur's: then heur.
func fastestKind(times map[string]time.Duration, heur string) string {
	fastest := heur
	for _, kind := range matmulKinds { // in a fixed order: ties go the same way every time
		if dt, ok := times[kind]; ok && (times[fastest] == 0 || dt < times[fastest]) {
			fastest = kind
		}
	}
	if h, ok := times[heur]; ok && float64(times[fastest]) > float64(h)*(1-tuneMargin) {
		return heur
	}
	return fastest
}

// savableLocked returns the choices to save, sorted by class.
func (t *tuner) savableLocked() []AutotuneChoice {
	var out []AutotuneChoice
	for c, ch := range t.choices {
		ch.Class = c.String()
		out = append(out, ch)
	}
	slices.SortFunc(out, func(a, b AutotuneChoice) int { return strings.Compare(a.Class, b.Class) })
	return out
}

// finiteDuration reports whether ns is a valid measured time in
// nanoseconds: finite, positive and under an hour.
func finiteDuration(ns float64) bool {
	return !math.IsNaN(ns) && ns > 0 && ns < float64(time.Hour)
}
