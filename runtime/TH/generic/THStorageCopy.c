#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THStorageCopy.c"
#else

void THStorage_(rawCopy)(THStorage *self, const real *src)
{
  THStorage_(materialize)(self);
  for (ptrdiff_t i = 0; i < self->size; i++)
    self->data[i] = src[i];
}

void THStorage_(copy)(THStorage *self, THStorage *src)
{
  THArgCheck(self->size == src->size, 2, "size mismatch: %td and %td", self->size, src->size);
  THStorage_(rawCopy)(self, src->data);
}

#define IMPLEMENT_THStorage_COPY(TYPENAMESRC) \
void THStorage_(copy##TYPENAMESRC)(THStorage *self, struct TH##TYPENAMESRC##Storage *src) \
{ \
  THArgCheck(self->size == src->size, 2, "size mismatch: %td and %td", self->size, src->size); \
  THStorage_(materialize)(self); \
  for (ptrdiff_t i = 0; i < self->size; i++) \
    self->data[i] = (real)src->data[i]; \
}

IMPLEMENT_THStorage_COPY(Byte)
IMPLEMENT_THStorage_COPY(Int)
IMPLEMENT_THStorage_COPY(Long)
IMPLEMENT_THStorage_COPY(Float)
IMPLEMENT_THStorage_COPY(Double)

#undef IMPLEMENT_THStorage_COPY

#endif
