#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorCopy.c"
#else

void THTensor_(copy)(THTensor *tensor, THTensor *src)
{
  if (tensor == src)
    return;
  THTensor_(prepareWrite)(tensor);
  TH_TENSOR_APPLY2(real, tensor, real, src, *tensor_data = *src_data;)
}

#define IMPLEMENT_THTensor_COPY(TYPENAMESRC, TYPE_SRC) \
void THTensor_(copy##TYPENAMESRC)(THTensor *tensor, struct TH##TYPENAMESRC##Tensor *src) \
{ \
  THTensor_(prepareWrite)(tensor); \
  TH_TENSOR_APPLY2(real, tensor, TYPE_SRC, src, *tensor_data = (real)*src_data;) \
}

IMPLEMENT_THTensor_COPY(Byte, uint8_t)
IMPLEMENT_THTensor_COPY(Int, int32_t)
IMPLEMENT_THTensor_COPY(Long, int64_t)
IMPLEMENT_THTensor_COPY(Float, float)
IMPLEMENT_THTensor_COPY(Double, double)

#undef IMPLEMENT_THTensor_COPY

#endif
