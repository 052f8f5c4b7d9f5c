#ifndef THC_STORAGE_INC
#define THC_STORAGE_INC

#include "THCGeneral.h"

#define THCStorage TH_CONCAT_3(TH, CReal, Storage)
#define THCStorage_(NAME) TH_CONCAT_4(TH, CReal, Storage_, NAME)

#define THC_STORAGE_RESIZABLE 1

#include "generic/THCStorage.h"
#include "THCGenerateFloatTypes.h"

#endif
