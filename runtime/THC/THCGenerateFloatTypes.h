/* Instantiates THC_GENERIC_FILE for float (THCuda*) and double (THCudaDouble*), THC's naming:
 * Real names the CPU twin (THFloatTensor), CReal the CUDA type (THCudaTensor). */
#ifndef THC_GENERIC_FILE
#error "define THC_GENERIC_FILE before including THCGenerateFloatTypes.h"
#endif

#define real float
#define accreal double
#define Real Float
#define CReal Cuda
#define THC_REAL_IS_FLOAT
#line 1 THC_GENERIC_FILE
#include THC_GENERIC_FILE
#undef real
#undef accreal
#undef Real
#undef CReal
#undef THC_REAL_IS_FLOAT

#define real double
#define accreal double
#define Real Double
#define CReal CudaDouble
#define THC_REAL_IS_DOUBLE
#line 1 THC_GENERIC_FILE
#include THC_GENERIC_FILE
#undef real
#undef accreal
#undef Real
#undef CReal
#undef THC_REAL_IS_DOUBLE

#undef THC_GENERIC_FILE
