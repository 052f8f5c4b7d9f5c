#include "THCTensor.h"

#include "generic/THCTensor.cu"
#include "THCGenerateFloatTypes.h"
