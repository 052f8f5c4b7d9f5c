#include "THTensor.h"

#include "generic/THTensorCopy.c"
#include "THGenerateAllTypes.h"
