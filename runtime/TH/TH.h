#ifndef TH_INC
#define TH_INC

/* Everything TH offers: general utilities, storages, tensors with their math, sparse tensors. */
#include "THGeneral.h"
#include "THStorage.h"
#include "THTensor.h"
#include "THSTensor.h"

#endif
