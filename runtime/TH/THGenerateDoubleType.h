/* Instantiates TH_GENERIC_FILE once with real = double. */
#ifndef TH_GENERIC_FILE
#error "define TH_GENERIC_FILE before including THGenerateDoubleType.h"
#endif

#define real double
#define accreal double
#define Real Double
#define TH_REAL_IS_DOUBLE
#line 1 TH_GENERIC_FILE
#include TH_GENERIC_FILE
#undef real
#undef accreal
#undef Real
#undef TH_REAL_IS_DOUBLE

#ifndef THGenerateManyTypes
#undef TH_GENERIC_FILE
#endif
