/* Instantiates TH_GENERIC_FILE for every TH type: Byte, Int, Long, Float, Double. */
#ifndef TH_GENERIC_FILE
#error "define TH_GENERIC_FILE before including THGenerateAllTypes.h"
#endif

#ifndef THGenerateManyTypes
#define THAllLocalGenerateManyTypes
#define THGenerateManyTypes
#endif

#include "THGenerateIntTypes.h"
#include "THGenerateFloatTypes.h"

#ifdef THAllLocalGenerateManyTypes
#undef THAllLocalGenerateManyTypes
#undef THGenerateManyTypes
#undef TH_GENERIC_FILE
#endif
