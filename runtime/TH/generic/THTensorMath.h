#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorMath.h"
#else

/* r_ is the result: it is resized like the input (TH convention) and may be the input itself. */
TH_API void THTensor_(fill)(THTensor *r_, real value);
TH_API void THTensor_(zero)(THTensor *r_);
TH_API void THTensor_(add)(THTensor *r_, THTensor *t, real value);
TH_API void THTensor_(mul)(THTensor *r_, THTensor *t, real value);
/* r_ = t + value * src */
TH_API void THTensor_(cadd)(THTensor *r_, THTensor *t, real value, THTensor *src);
/* r_ = t * src, element-wise */
TH_API void THTensor_(cmul)(THTensor *r_, THTensor *t, THTensor *src);
TH_API accreal THTensor_(sum)(THTensor *t);
TH_API accreal THTensor_(dot)(THTensor *t, THTensor *src);
/* Sets the elements of tensor where mask (same number of elements) is nonzero. */
TH_API void THTensor_(maskedFill)(THTensor *tensor, struct THByteTensor *mask, real value);
/* tensor = src's slices along dim at the positions in the vector index. */
TH_API void THTensor_(indexSelect)(THTensor *tensor, THTensor *src, int dim, struct THLongTensor *index);
/* r_ = beta * t + alpha * (m1 @ m2) */
TH_API void THTensor_(addmm)(THTensor *r_, real beta, THTensor *t, real alpha, THTensor *m1, THTensor *m2);

#endif
