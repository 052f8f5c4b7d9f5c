/* The instance keys' tokenizer (refcheck/reuse/instances.py's `tokenize`), linked into the
 * _cwalk module: its function is added to the module's at its init. */
#ifndef REFCHECK_CTOKENS_H
#define REFCHECK_CTOKENS_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>

extern PyMethodDef ctokens_methods[];
int ctokens_init(void);

#endif
