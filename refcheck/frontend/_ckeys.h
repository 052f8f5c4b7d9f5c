/* The instance keys' compiled passes (refcheck/frontend/_ckeys.c), linked into the _cwalk module:
 * its functions are added to the module's at its init. */
#ifndef REFCHECK_CKEYS_H
#define REFCHECK_CKEYS_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>

extern PyMethodDef ckeys_methods[];
int ckeys_init(void);

#endif
