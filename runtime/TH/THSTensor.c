#include "THSTensor.h"

#include <inttypes.h>
#include <string.h>

#include "generic/THSTensor.c"
#include "THGenerateAllTypes.h"
