#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THStorageCopy.h"
#else

/* Element-wise copies between storages of equal size, converting the type. */
TH_API void THStorage_(rawCopy)(THStorage *self, const real *src);
TH_API void THStorage_(copy)(THStorage *self, THStorage *src);
TH_API void THStorage_(copyByte)(THStorage *self, struct THByteStorage *src);
TH_API void THStorage_(copyInt)(THStorage *self, struct THIntStorage *src);
TH_API void THStorage_(copyLong)(THStorage *self, struct THLongStorage *src);
TH_API void THStorage_(copyFloat)(THStorage *self, struct THFloatStorage *src);
TH_API void THStorage_(copyDouble)(THStorage *self, struct THDoubleStorage *src);

#endif
