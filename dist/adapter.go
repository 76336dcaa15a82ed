package dist

import (
	"os"
	"strconv"

	"github.com/wgtensor/wgtensor/wgpu"
)

// AdapterFor returns opts with Adapter set to the adapter this rank
// should open, where neither opts nor WGT_ADAPTER names one: on a machine
// with several GPUs, rank r of the machine (LocalRank) takes GPU r modulo
// their number, discrete ones first, so that each GPU has its share of
// the ranks. Only adapters of one backend count, so that a GPU seen
// through Vulkan and GL is one GPU: opts.Backend (or WGT_BACKEND), else
// the first adapter's. CPU adapters (lavapipe, llvmpipe) count only where
// there is no GPU. With no adapter at all, opts is returned as it is, and
// wgpu.Open reports ErrNoAdapter.
func AdapterFor(c *Comm, opts wgpu.Options) wgpu.Options {
	if opts.Adapter != "" || os.Getenv("WGT_ADAPTER") != "" {
		return opts
	}
	backend := opts.Backend
	if backend == wgpu.BackendAny {
		backend, _ = wgpu.ParseBackend(os.Getenv("WGT_BACKEND"))
	}
	if i := pickAdapter(wgpu.Adapters(), backend, c.LocalRank()); i >= 0 {
		opts.Adapter = "#" + strconv.Itoa(i)
	}
	return opts
}

// pickAdapter returns the index (in Adapters' list) of the adapter local
// rank takes among list, of backend (BackendAny: the first adapter's),
// or -1 where there is none.
func pickAdapter(list []wgpu.AdapterInfo, backend wgpu.Backend, local int) int {
	if len(list) == 0 {
		return -1
	}
	if backend == wgpu.BackendAny {
		backend = list[0].Backend
	}
	var ofType [3][]int // discrete, integrated, cpu (and other)
	for _, a := range list {
		if a.Backend != backend {
			continue
		}
		switch a.Type {
		case wgpu.AdapterDiscrete:
			ofType[0] = append(ofType[0], a.Index)
		case wgpu.AdapterIntegrated:
			ofType[1] = append(ofType[1], a.Index)
		default:
			ofType[2] = append(ofType[2], a.Index)
		}
	}
	choice := append(ofType[0], ofType[1]...)
	if len(choice) == 0 {
		choice = ofType[2]
	}
	if len(choice) == 0 {
		return -1
	}
	return choice[local%len(choice)]
}
