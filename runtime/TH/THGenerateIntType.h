/* Instantiates TH_GENERIC_FILE once with real = int32_t. */
#ifndef TH_GENERIC_FILE
#error "define TH_GENERIC_FILE before including THGenerateIntType.h"
#endif

#define real int32_t
#define accreal int64_t
#define Real Int
#define TH_REAL_IS_INT
#line 1 TH_GENERIC_FILE
#include TH_GENERIC_FILE
#undef real
#undef accreal
#undef Real
#undef TH_REAL_IS_INT

#ifndef THGenerateManyTypes
#undef TH_GENERIC_FILE
#endif
