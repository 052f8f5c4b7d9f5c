#ifndef THC_TENSOR_INC
#define THC_TENSOR_INC

#include "THCStorage.h"

#define THCTensor TH_CONCAT_3(TH, CReal, Tensor)
#define THCTensor_(NAME) TH_CONCAT_4(TH, CReal, Tensor_, NAME)

/* The most dimensions a tensor may have: kernels carry sizes and strides by value. */
#define THC_MAX_DIMS 16

#include "generic/THCTensor.h"
#include "THCGenerateFloatTypes.h"

#include "generic/THCTensorCopy.h"
#include "THCGenerateFloatTypes.h"

#include "generic/THCTensorMath.h"
#include "THCGenerateFloatTypes.h"

#endif
