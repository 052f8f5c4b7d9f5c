#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorMath.c"
#else

void THTensor_(fill)(THTensor *r_, real value)
{
  THTensor_(prepareWrite)(r_);
  /* One pass per collapsed section, as in seed 001. */
  TH_TENSOR_APPLY(real, r_,
                  for (int64_t k = 0; k < r__size; k++) r__data[k * r__stride] = value;
                  break;)
}

void THTensor_(zero)(THTensor *r_)
{
  THTensor_(fill)(r_, 0);
}

void THTensor_(add)(THTensor *r_, THTensor *t, real value)
{
  THTensor_(resizeAs)(r_, t);
  THTensor_(prepareWrite)(r_);
  TH_TENSOR_APPLY2(real, r_, real, t, *r__data = (real)(*t_data + value);)
}

void THTensor_(mul)(THTensor *r_, THTensor *t, real value)
{
  THTensor_(resizeAs)(r_, t);
  THTensor_(prepareWrite)(r_);
  TH_TENSOR_APPLY2(real, r_, real, t, *r__data = (real)(*t_data * value);)
}

void THTensor_(cadd)(THTensor *r_, THTensor *t, real value, THTensor *src)
{
  THArgCheck(THTensor_(nElement)(t) == THTensor_(nElement)(src), 4,
             "%td and %td elements", THTensor_(nElement)(t), THTensor_(nElement)(src));
  THTensor_(resizeAs)(r_, t);
  THTensor_(prepareWrite)(r_);
  TH_TENSOR_APPLY3(real, r_, real, t, real, src, *r__data = (real)(*t_data + value * *src_data);)
}

void THTensor_(cmul)(THTensor *r_, THTensor *t, THTensor *src)
{
  THArgCheck(THTensor_(nElement)(t) == THTensor_(nElement)(src), 3,
             "%td and %td elements", THTensor_(nElement)(t), THTensor_(nElement)(src));
  THTensor_(resizeAs)(r_, t);
  THTensor_(prepareWrite)(r_);
  TH_TENSOR_APPLY3(real, r_, real, t, real, src, *r__data = (real)(*t_data * *src_data);)
}

accreal THTensor_(sum)(THTensor *t)
{
  accreal sum = 0;
  TH_TENSOR_APPLY(real, t, sum += *t_data;)
  return sum;
}

accreal THTensor_(dot)(THTensor *t, THTensor *src)
{
  accreal sum = 0;
  TH_TENSOR_APPLY2(real, t, real, src, sum += (accreal)*t_data * (accreal)*src_data;)
  return sum;
}

void THTensor_(maskedFill)(THTensor *tensor, THByteTensor *mask, real value)
{
  THArgCheck(THTensor_(nElement)(tensor) == THByteTensor_nElement(mask), 2,
             "mask has %td elements, tensor %td", THByteTensor_nElement(mask), THTensor_(nElement)(tensor));
  THTensor_(prepareWrite)(tensor);
  TH_TENSOR_APPLY2(real, tensor, uint8_t, mask, if (*mask_data) *tensor_data = value;)
}

void THTensor_(indexSelect)(THTensor *tensor, THTensor *src, int dim, THLongTensor *index)
{
  THArgCheck(tensor != src, 1, "result and source must be distinct");
  THArgCheck(dim >= 0 && dim < src->nDimension, 3, "dimension %d out of range of %dD tensor",
             dim, src->nDimension);
  THArgCheck(index->nDimension == 1, 4, "index must be a vector, not %dD", index->nDimension);
  int64_t numel = index->size[0];
  for (int64_t i = 0; i < numel; i++) {
    int64_t at = THLongTensor_get1d(index, i);
    THArgCheck(at >= 0 && at < src->size[dim], 4, "index %" PRId64 " out of range for size %" PRId64,
               at, src->size[dim]);
  }

  THLongStorage *newSize = THTensor_(newSizeOf)(src);
  THLongStorage_set(newSize, dim, numel);
  THTensor_(resize)(tensor, newSize, NULL);
  THLongStorage_free(newSize);
  if (numel == 0)
    return;
  THTensor_(prepareWrite)(tensor);

  /* The positions, read once whatever index's strides. */
  int64_t *positions = THAlloc((ptrdiff_t)sizeof(int64_t) * numel);
  for (int64_t i = 0; i < numel; i++)
    positions[i] = THLongTensor_get1d(index, i);

  if (src->nDimension == 1) {
    /* Slices of a vector are elements, which select does not make. */
    real *out = tensor->storage->data + tensor->storageOffset;
    const real *in = src->storage->data + src->storageOffset;
    for (int64_t i = 0; i < numel; i++)
      out[i * tensor->stride[0]] = in[positions[i] * src->stride[0]];
    THFree(positions);
    return;
  }

  for (int64_t i = 0; i < numel; i++) {
    THTensor *tSlice = THTensor_(newSelect)(tensor, dim, i);
    THTensor *sSlice = THTensor_(newSelect)(src, dim, positions[i]);
    THTensor_(copy)(tSlice, sSlice);
    THTensor_(free)(tSlice);
    THTensor_(free)(sSlice);
  }
  THFree(positions);
}

void THTensor_(addmm)(THTensor *r_, real beta, THTensor *t, real alpha, THTensor *m1, THTensor *m2)
{
  THArgCheck(m1->nDimension == 2, 5, "matrix expected, got %dD tensor", m1->nDimension);
  THArgCheck(m2->nDimension == 2, 6, "matrix expected, got %dD tensor", m2->nDimension);
  THArgCheck(m1->size[1] == m2->size[0], 6, "size mismatch: %" PRId64 "x%" PRId64 " @ %" PRId64 "x%" PRId64,
             m1->size[0], m1->size[1], m2->size[0], m2->size[1]);
  THArgCheck(t->nDimension == 2 && t->size[0] == m1->size[0] && t->size[1] == m2->size[1], 3,
             "t must be %" PRId64 "x%" PRId64, m1->size[0], m2->size[1]);
  THArgCheck(r_ != m1 && r_ != m2, 1, "the result must not be one of the factors");

  int64_t n = m1->size[0], m = m1->size[1], p = m2->size[1];
  if (r_ != t) {
    THTensor_(resizeAs)(r_, t);
    THTensor_(copy)(r_, t);
  }

  /* The kernel wants row-major factors: copy them only when they are not (seed 000). */
  THTensor *a;
  if (!THTensor_(isContiguous)(m1)) {
    a = THTensor_(newContiguous)(m1);
  } else {
    THTensor_(retain)(m1);
    a = m1;
  }
  THTensor *b = THTensor_(newContiguous)(m2);
  /* The result is computed in place when r_ is contiguous; otherwise in a copy that
   * freeCopyTo writes back. */
  THTensor *result = THTensor_(newContiguous)(r_);

  if (n == 0 || p == 0) {
    THTensor_(free)(a);
    THTensor_(free)(b);
    THTensor_(freeCopyTo)(result, r_);
    return;
  }

  THTensor_(prepareWrite)(result);
  real *out = result->storage->data + result->storageOffset;
  const real *left = a->storage->data + a->storageOffset;
  const real *right = b->storage->data + b->storageOffset;
  accreal *row = THAlloc((ptrdiff_t)sizeof(accreal) * p);
  for (int64_t i = 0; i < n; i++) {
    for (int64_t k = 0; k < p; k++)
      row[k] = 0;
    for (int64_t j = 0; j < m; j++) {
      accreal lij = left[i * m + j];
      for (int64_t k = 0; k < p; k++)
        row[k] += lij * (accreal)right[j * p + k];
    }
    for (int64_t k = 0; k < p; k++) {
      /* beta == 0 ignores what r_ held, NaN included (BLAS semantics). */
      accreal kept = beta == 0 ? 0 : (accreal)beta * (accreal)out[i * p + k];
      out[i * p + k] = (real)(kept + (accreal)alpha * row[k]);
    }
  }
  THFree(row);

  THTensor_(free)(a);
  THTensor_(free)(b);
  THTensor_(freeCopyTo)(result, r_);
}

#endif
