// Declarations of the wgpu-native calls behind timed compute passes, which
// the binding cannot make: its ComputePassDescriptor leaves timestampWrites
// out (see timestamp.go).
#include "shim.h"

typedef struct WGPUCommandEncoderImpl *WGPUCommandEncoder;
typedef struct WGPUComputePipelineImpl *WGPUComputePipeline;
typedef struct WGPUBindGroupImpl *WGPUBindGroup;
typedef struct WGPUQuerySetImpl *WGPUQuerySet;

// wgt_timed_dispatch records, into encoder, a compute pass of its own that
// writes timestamps begin and end of query_set at its start and end, and
// dispatches pipeline over x*y*z workgroups with bind_group as group 0.
// It returns the validation error's type (0 when none) and copies its
// message into msg.
int wgt_timed_dispatch(WGPUDevice device, WGPUCommandEncoder encoder, WGPUComputePipeline pipeline, WGPUBindGroup bind_group,
	uint32_t x, uint32_t y, uint32_t z, WGPUQuerySet query_set, uint32_t begin, uint32_t end, char *msg, size_t msglen);
