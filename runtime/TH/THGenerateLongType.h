/* Instantiates TH_GENERIC_FILE once with real = int64_t. */
#ifndef TH_GENERIC_FILE
#error "define TH_GENERIC_FILE before including THGenerateLongType.h"
#endif

#define real int64_t
#define accreal int64_t
#define Real Long
#define TH_REAL_IS_LONG
#line 1 TH_GENERIC_FILE
#include TH_GENERIC_FILE
#undef real
#undef accreal
#undef Real
#undef TH_REAL_IS_LONG

#ifndef THGenerateManyTypes
#undef TH_GENERIC_FILE
#endif
