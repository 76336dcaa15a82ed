// Declarations of the few wgpu-native entry points that the runtime calls
// directly, bypassing github.com/cogentcore/webgpu where that binding keeps
// callback user data in Go memory nothing keeps alive (see shim.go).
#include <stddef.h>
#include <stdint.h>

typedef struct WGPUDeviceImpl *WGPUDevice;
typedef struct WGPUBufferImpl *WGPUBuffer;
typedef struct WGPUQueueImpl *WGPUQueue;

// From webgpu.h: the callback of wgpuDevicePopErrorScope and the
// validation filter (WGPUErrorFilter_Validation is 0; 1 is out-of-memory,
// which let validation errors through to wgpu-native's uncaptured-error
// handler, and that aborts the process).
typedef void (*WGPUErrorCallback)(uint32_t type, char const *message, void *userdata);
enum { WGT_ERROR_FILTER_VALIDATION = 0 };

// error_box receives the error an error scope caught: its type (0 when
// none) and its message, cut to len bytes.
typedef struct {
	uint32_t type;
	char *msg;
	size_t len;
} error_box;

// wgt_catch_error is the WGPUErrorCallback that fills the error_box its
// userdata points to.
void wgt_catch_error(uint32_t type, char const *message, void *userdata);

// wgt_map asks for the first size bytes of buffer to be mapped in mode
// (WGPUMapMode: 1 read, 2 write); the outcome is reported through
// wgtMapDone(status, id). It returns the validation error's type (0 when
// none) and copies its message into msg.
int wgt_map(WGPUDevice device, WGPUBuffer buffer, uint32_t mode, size_t size, uintptr_t id, char *msg, size_t msglen);

// wgt_work_done asks to be told through wgtWorkDone(status, id) when the
// work submitted to queue so far has finished.
void wgt_work_done(WGPUQueue queue, uintptr_t id);
