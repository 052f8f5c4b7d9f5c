/* Instantiates TH_GENERIC_FILE once with real = uint8_t. */
#ifndef TH_GENERIC_FILE
#error "define TH_GENERIC_FILE before including THGenerateByteType.h"
#endif

#define real uint8_t
#define accreal int64_t
#define Real Byte
#define TH_REAL_IS_BYTE
#line 1 TH_GENERIC_FILE
#include TH_GENERIC_FILE
#undef real
#undef accreal
#undef Real
#undef TH_REAL_IS_BYTE

#ifndef THGenerateManyTypes
#undef TH_GENERIC_FILE
#endif
