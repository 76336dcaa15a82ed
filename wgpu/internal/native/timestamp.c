#include "timestamp.h"

// From wgpu-native's webgpu.h, which ships inside the binding's module.
typedef struct WGPUComputePassEncoderImpl *WGPUComputePassEncoder;
typedef struct {
	WGPUQuerySet querySet;
	uint32_t beginningOfPassWriteIndex;
	uint32_t endOfPassWriteIndex;
} WGPUComputePassTimestampWrites;
typedef struct {
	void const *nextInChain;
	char const *label;
	WGPUComputePassTimestampWrites const *timestampWrites;
} WGPUComputePassDescriptor;
WGPUComputePassEncoder wgpuCommandEncoderBeginComputePass(WGPUCommandEncoder encoder, WGPUComputePassDescriptor const *descriptor);
void wgpuComputePassEncoderSetPipeline(WGPUComputePassEncoder pass, WGPUComputePipeline pipeline);
void wgpuComputePassEncoderSetBindGroup(WGPUComputePassEncoder pass, uint32_t index, WGPUBindGroup group, size_t dynamicOffsetCount, uint32_t const *dynamicOffsets);
void wgpuComputePassEncoderDispatchWorkgroups(WGPUComputePassEncoder pass, uint32_t x, uint32_t y, uint32_t z);
void wgpuComputePassEncoderEnd(WGPUComputePassEncoder pass);
void wgpuComputePassEncoderRelease(WGPUComputePassEncoder pass);
void wgpuDevicePushErrorScope(WGPUDevice device, uint32_t filter);
void wgpuDevicePopErrorScope(WGPUDevice device, WGPUErrorCallback callback, void *userdata);

int wgt_timed_dispatch(WGPUDevice device, WGPUCommandEncoder encoder, WGPUComputePipeline pipeline, WGPUBindGroup bind_group,
	uint32_t x, uint32_t y, uint32_t z, WGPUQuerySet query_set, uint32_t begin, uint32_t end, char *msg, size_t msglen) {
	WGPUComputePassTimestampWrites writes = {query_set, begin, end};
	WGPUComputePassDescriptor desc = {NULL, NULL, &writes};
	error_box box = {0, msg, msglen};
	wgpuDevicePushErrorScope(device, WGT_ERROR_FILTER_VALIDATION);
	WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, &desc);
	wgpuComputePassEncoderSetPipeline(pass, pipeline);
	wgpuComputePassEncoderSetBindGroup(pass, 0, bind_group, 0, NULL);
	wgpuComputePassEncoderDispatchWorkgroups(pass, x, y, z);
	wgpuComputePassEncoderEnd(pass);
	wgpuComputePassEncoderRelease(pass);
	wgpuDevicePopErrorScope(device, wgt_catch_error, &box);
	return (int)box.type;
}
