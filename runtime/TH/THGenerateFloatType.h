/* Instantiates TH_GENERIC_FILE once with real = float. */
#ifndef TH_GENERIC_FILE
#error "define TH_GENERIC_FILE before including THGenerateFloatType.h"
#endif

#define real float
#define accreal double
#define Real Float
#define TH_REAL_IS_FLOAT
#line 1 TH_GENERIC_FILE
#include TH_GENERIC_FILE
#undef real
#undef accreal
#undef Real
#undef TH_REAL_IS_FLOAT

#ifndef THGenerateManyTypes
#undef TH_GENERIC_FILE
#endif
