#ifndef TH_STORAGE_INC
#define TH_STORAGE_INC

#include "THGeneral.h"
#include "THAtomic.h"

#define THStorage TH_CONCAT_3(TH, Real, Storage)
#define THStorage_(NAME) TH_CONCAT_4(TH, Real, Storage_, NAME)

/* Storage flags. */
#define TH_STORAGE_RESIZABLE 1  /* resize may reallocate the data (set by every constructor) */

/* The shared, refcounted owner of the data of lazily cloned storages; private to THStorage.c. */
typedef struct THCOWContext THCOWContext;

#include "generic/THStorage.h"
#include "THGenerateAllTypes.h"

#include "generic/THStorageCopy.h"
#include "THGenerateAllTypes.h"

/* The size a view of nElement elements gets when `size` holds at most one -1 (seed 000's
 * newInferSize): a new storage with the -1 replaced. */
TH_API THLongStorage *THLongStorage_newInferSize(THLongStorage *size, ptrdiff_t nElement);

#endif
