#ifndef THC_GENERIC_FILE
#define THC_GENERIC_FILE "generic/THCTensorMath.cu"
#else

void THCTensor_(fill)(THCState *state, THCTensor *self, real value)
{
  THCFillOp<real> op = {value};
  THC_pointwiseApply1<real>(state, self, THCTensor_(nElement)(state, self), op);
}

void THCTensor_(zero)(THCState *state, THCTensor *self)
{
  THCTensor_(fill)(state, self, (real)0);
}

void THCTensor_(add)(THCState *state, THCTensor *self, THCTensor *src, real value)
{
  THCTensor_(resizeAs)(state, self, src);
  THCAddOp<real> op = {value};
  THC_pointwiseApply2<real>(state, self, src, THCTensor_(nElement)(state, src), op);
}

void THCTensor_(mul)(THCState *state, THCTensor *self, THCTensor *src, real value)
{
  THCTensor_(resizeAs)(state, self, src);
  THCMulOp<real> op = {value};
  THC_pointwiseApply2<real>(state, self, src, THCTensor_(nElement)(state, src), op);
}

void THCTensor_(cadd)(THCState *state, THCTensor *self, THCTensor *src1, real value, THCTensor *src2)
{
  ptrdiff_t n = THCTensor_(nElement)(state, src1);
  THArgCheck(n == THCTensor_(nElement)(state, src2), 5, "sizes do not match: %td and %td elements",
             n, THCTensor_(nElement)(state, src2));
  THCTensor_(resizeAs)(state, self, src1);
  THCCAddOp<real> op = {value};
  THC_pointwiseApply3<real>(state, self, src1, src2, n, op);
}

void THCTensor_(cmul)(THCState *state, THCTensor *self, THCTensor *src1, THCTensor *src2)
{
  ptrdiff_t n = THCTensor_(nElement)(state, src1);
  THArgCheck(n == THCTensor_(nElement)(state, src2), 4, "sizes do not match: %td and %td elements",
             n, THCTensor_(nElement)(state, src2));
  THCTensor_(resizeAs)(state, self, src1);
  THC_pointwiseApply3<real>(state, self, src1, src2, n, THCCMulOp<real>());
}

accreal THCTensor_(sum)(THCState *state, THCTensor *self)
{
  return THCReduce_all<real, accreal, false>(state, self, self, THCTensor_(nElement)(state, self));
}

accreal THCTensor_(dot)(THCState *state, THCTensor *self, THCTensor *src)
{
  ptrdiff_t n = THCTensor_(nElement)(state, self);
  THArgCheck(n == THCTensor_(nElement)(state, src), 3, "sizes do not match: %td and %td elements",
             n, THCTensor_(nElement)(state, src));
  return THCReduce_all<real, accreal, true>(state, self, src, n);
}

#endif
