#include "THTensor.h"

#include <inttypes.h>

#include "generic/THTensorMath.c"
#include "THGenerateAllTypes.h"
