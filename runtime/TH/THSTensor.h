#ifndef THS_TENSOR_INC
#define THS_TENSOR_INC

#include "THTensor.h"

#define THSTensor TH_CONCAT_3(THS, Real, Tensor)
#define THSTensor_(NAME) TH_CONCAT_4(THS, Real, Tensor_, NAME)

/* Sparse tensors index with Long tensors whatever their value type (seed 000's THIndexTensor). */
#define THIndexTensor THLongTensor
#define THIndexTensor_(NAME) TH_CONCAT_2(THLongTensor_, NAME)

#include "generic/THSTensor.h"
#include "THGenerateAllTypes.h"

#endif
