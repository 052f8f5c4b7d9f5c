#include "__refcheck_cuda_prelude.h"
