/* Instantiates TH_GENERIC_FILE for every floating-point type. */
#ifndef TH_GENERIC_FILE
#error "define TH_GENERIC_FILE before including THGenerateFloatTypes.h"
#endif

#ifndef THGenerateManyTypes
#define THFloatLocalGenerateManyTypes
#define THGenerateManyTypes
#endif

#define TH_REAL_IS_FLOATING
#include "THGenerateFloatType.h"
#include "THGenerateDoubleType.h"
#undef TH_REAL_IS_FLOATING

#ifdef THFloatLocalGenerateManyTypes
#undef THFloatLocalGenerateManyTypes
#undef THGenerateManyTypes
#undef TH_GENERIC_FILE
#endif
