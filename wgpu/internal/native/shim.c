#include <string.h>

#include "shim.h"

// From wgpu-native's webgpu.h, which ships inside the binding's module.
typedef void (*WGPUBufferMapAsyncCallback)(uint32_t status, void *userdata);
typedef void (*WGPUQueueOnSubmittedWorkDoneCallback)(uint32_t status, void *userdata);
void wgpuBufferMapAsync(WGPUBuffer buffer, uint32_t mode, size_t offset, size_t size, WGPUBufferMapAsyncCallback callback, void *userdata);
void wgpuQueueOnSubmittedWorkDone(WGPUQueue queue, WGPUQueueOnSubmittedWorkDoneCallback callback, void *userdata);
void wgpuDevicePushErrorScope(WGPUDevice device, uint32_t filter);
void wgpuDevicePopErrorScope(WGPUDevice device, WGPUErrorCallback callback, void *userdata);

// Implemented in Go (shim.go).
extern void wgtMapDone(uint32_t status, uintptr_t id);
extern void wgtWorkDone(uint32_t status, uintptr_t id);

static void map_done(uint32_t status, void *userdata) { wgtMapDone(status, (uintptr_t)userdata); }
static void work_done(uint32_t status, void *userdata) { wgtWorkDone(status, (uintptr_t)userdata); }

void wgt_catch_error(uint32_t type, char const *message, void *userdata) {
	error_box *box = userdata;
	box->type = type;
	if (type != 0 && message != NULL && box->len > 0) {
		strncpy(box->msg, message, box->len - 1);
		box->msg[box->len - 1] = 0;
	}
}

int wgt_map(WGPUDevice device, WGPUBuffer buffer, uint32_t mode, size_t size, uintptr_t id, char *msg, size_t msglen) {
	error_box box = {0, msg, msglen};
	wgpuDevicePushErrorScope(device, WGT_ERROR_FILTER_VALIDATION);
	wgpuBufferMapAsync(buffer, mode, 0, size, map_done, (void *)id);
	wgpuDevicePopErrorScope(device, wgt_catch_error, &box);
	return (int)box.type;
}

void wgt_work_done(WGPUQueue queue, uintptr_t id) {
	wgpuQueueOnSubmittedWorkDone(queue, work_done, (void *)id);
}
