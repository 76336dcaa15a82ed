// Declarations of the few wgpu-native entry points that the runtime calls
// directly, bypassing github.com/cogentcore/webgpu where that binding keeps
// callback user data in Go memory nothing keeps alive (see shim.go).
#include <stddef.h>
#include <stdint.h>

typedef struct WGPUDeviceImpl *WGPUDevice;
typedef struct WGPUBufferImpl *WGPUBuffer;
typedef struct WGPUQueueImpl *WGPUQueue;

// wgt_map asks for the first size bytes of buffer to be mapped in mode
// (WGPUMapMode: 1 read, 2 write); the outcome is reported through
// wgtMapDone(status, id). It returns the validation error's type (0 when
// none) and copies its message into msg.
int wgt_map(WGPUDevice device, WGPUBuffer buffer, uint32_t mode, size_t size, uintptr_t id, char *msg, size_t msglen);

// wgt_work_done asks to be told through wgtWorkDone(status, id) when the
// work submitted to queue so far has finished.
void wgt_work_done(WGPUQueue queue, uintptr_t id);
