#include "THTensor.h"

#include <inttypes.h>
#include <string.h>

#include "generic/THTensor.c"
#include "THGenerateAllTypes.h"
