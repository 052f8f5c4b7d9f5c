/* Instantiates TH_GENERIC_FILE for every integer type. */
#ifndef TH_GENERIC_FILE
#error "define TH_GENERIC_FILE before including THGenerateIntTypes.h"
#endif

#ifndef THGenerateManyTypes
#define THIntLocalGenerateManyTypes
#define THGenerateManyTypes
#endif

#define TH_REAL_IS_INTEGRAL
#include "THGenerateByteType.h"
#include "THGenerateIntType.h"
#include "THGenerateLongType.h"
#undef TH_REAL_IS_INTEGRAL

#ifdef THIntLocalGenerateManyTypes
#undef THIntLocalGenerateManyTypes
#undef THGenerateManyTypes
#undef TH_GENERIC_FILE
#endif
