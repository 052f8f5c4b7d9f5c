/* The instance keys' compiled passes (refcheck/frontend/_ckeys.c and _cconds.c), linked into the
 * _cwalk module: their functions are added to the module's at its init. */
#ifndef REFCHECK_CKEYS_H
#define REFCHECK_CKEYS_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>

extern PyMethodDef ckeys_methods[];
int ckeys_init(void);
extern PyMethodDef cconds_methods[];  /* _cconds.c */

/* Token tests both files use (inline: each file is its own translation unit). */
static inline int is_char(PyObject *t, Py_UCS4 c) {
    return PyUnicode_GET_LENGTH(t) == 1 && PyUnicode_READ_CHAR(t, 0) == c;
}

static inline int starts_word(PyObject *t) {  /* t[:1].isalpha() or t[:1] == "_" */
    if (PyUnicode_GET_LENGTH(t) == 0)
        return 0;
    Py_UCS4 c = PyUnicode_READ_CHAR(t, 0);
    return c == '_' || Py_UNICODE_ISALPHA(c);
}

static inline int is_ascii(PyObject *t, const char *s) {
    return PyUnicode_CompareWithASCIIString(t, s) == 0;
}

static inline int all_tokens_str(PyObject *tokens, const char *who) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(tokens); i++)
        if (!PyUnicode_Check(PyList_GET_ITEM(tokens, i))) {
            PyErr_Format(PyExc_TypeError, "%s: a token is not a str", who);
            return -1;
        }
    return 0;
}

/* The index of the first token from j on that is neither `*` nor a qualifier; -1 on error. */
static inline Py_ssize_t past_qualifiers(PyObject *tokens, Py_ssize_t j, PyObject *qualifiers) {
    Py_ssize_t n = PyList_GET_SIZE(tokens);
    for (; j < n; j++) {
        PyObject *u = PyList_GET_ITEM(tokens, j);
        int q = is_char(u, '*') ? 1 : PySet_Contains(qualifiers, u);
        if (q < 0)
            return -1;
        if (!q)
            break;
    }
    return j;
}

#endif
