// <driver_types.h> for emulator builds: the runtime's types live in
// cuemu/types.h and cuemu/device_types.h; the umbrella header defines
// __DRIVER_TYPES_H__ as the real header does.
#include "cuemu/cuemu.h"
