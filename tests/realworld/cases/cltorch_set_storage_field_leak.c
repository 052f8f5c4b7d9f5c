/* hughperkins/cltorch src/lib/THClTensor.cpp, THClTensor_rawSet (the storage part of :set())
 * https://github.com/hughperkins/cltorch/issues/64 "Memory leak when calling :set()" (2016-04-15)
 * Bug: the tensor's old storage was released only when the new storage was non-NULL, so
 * `t:set()` with no storage leaked it. cutorch's THCTensor.c releases it first, unconditionally.
 * The leaked reference is held in a field, which refcheck by design does not track. */
#include "TH.h"

// buggy: the old storage is dropped without a release when storage is NULL
void THFloatTensor_rawSetStorage_buggy(THFloatTensor *self, THFloatStorage *storage,
                                       ptrdiff_t storageOffset)
{
  if (self->storage != storage) {
    if (storage) {
      if (self->storage)
        THFloatStorage_free(self->storage);
      self->storage = storage;
      THFloatStorage_retain(self->storage);
    } else {
      self->storage = NULL; // expect: RC001
    }
  }
  self->storageOffset = storageOffset;
}

// clean: release the old storage first, whatever replaces it
void THFloatTensor_rawSetStorage_fixed(THFloatTensor *self, THFloatStorage *storage,
                                       ptrdiff_t storageOffset)
{
  if (self->storage != storage) {
    if (self->storage)
      THFloatStorage_free(self->storage);
    if (storage) {
      THFloatStorage_retain(storage);
      self->storage = storage;
    } else {
      self->storage = NULL;
    }
  }
  self->storageOffset = storageOffset;
}
