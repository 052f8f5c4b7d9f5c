/* The graph build's remaining per-cursor queries that went through ctypes from Python (the
 * seventeenth session's profile of THTensor.c's builds): linked into the _cwalk module, whose
 * functions it reads cursors through (_cwalk.h), and added to its methods at init.
 *
 * Each gives exactly what its Python twin (binding.PURE) gives:
 *   binary_operator(cursor), unary_operator(cursor) -> libclang's operator kind (an int)
 *   spelling(cursor)               -> binding.spelling: the text (None for NULL), kept on the cursor
 *   children(cursor)               -> list(cursor.get_children()), each keeping the unit
 *   strip(cursor[, through])       -> clangutil.strip: the last child while the kind is in `through`
 *                                     (listings from `_refcheck_kids`, else set_listing's callable)
 */
#include <string.h>
#include "_cwalk.h"

static PyObject *str_spelling, *str_kids, *listing, *stripped;

/* binding.binary_operator / unary_operator: libclang's operator kind of the cursor (clangutil.binop
 * and unop read it through their tables and keep the spelling on the cursor). */
static PyObject *operator_of(PyObject *arg, int binary) {
    CXCursor c;
    if (load() < 0 || read_cursor(arg, &c) < 0)
        return NULL;
    return PyLong_FromLong((binary ? lib.binary_operator : lib.unary_operator)(c));
}

static PyObject *binary_operator(PyObject *self, PyObject *arg) {
    return operator_of(arg, 1);
}

static PyObject *unary_operator(PyObject *self, PyObject *arg) {
    return operator_of(arg, 0);
}

/* binding.spelling: decoded strictly, None for libclang's NULL string, kept as `_spelling`. */
static PyObject *spelling(PyObject *self, PyObject *arg) {
    PyObject *res;
    CXCursor c;
    if (load() < 0)
        return NULL;
    int found = lookup_attr(arg, str_spelling, &res);
    if (found != 0)
        return found < 0 ? NULL : res;
    if (read_cursor(arg, &c) < 0)
        return NULL;
    res = spelling_of(c);
    if (res == NULL)
        return NULL;
    if (PyObject_SetAttr(arg, str_spelling, res) < 0) {
        Py_DECREF(res);
        return NULL;
    }
    return res;
}

typedef struct {
    PyObject *out, *parent, *tu;  /* tu: the parent's, read at its first child (as the binding reads it) */
    int failed;
} Kids;

static int one_child(CXCursor child, CXCursor parent, CXClientData data) {
    Kids *k = (Kids *)data;
    if (k->tu == NULL && (k->tu = PyObject_GetAttr(k->parent, str_tu)) == NULL) {
        k->failed = 1;
        return CXChildVisit_Break;
    }
    PyObject *obj = new_cursor(&child);
    if (obj == NULL || PyObject_SetAttr(obj, str_tu, k->tu) < 0 || PyList_Append(k->out, obj) < 0) {
        Py_XDECREF(obj);
        k->failed = 1;
        return CXChildVisit_Break;
    }
    Py_DECREF(obj);
    return CXChildVisit_Continue;
}

/* `list(c.get_children())`: one visit, no Python callback per child (the binding's asks libclang
 * for the null cursor per child, for an assert). Each child keeps the unit, as the binding's do. */
static PyObject *children(PyObject *self, PyObject *arg) {
    CXCursor c;
    if (load() < 0 || read_cursor(arg, &c) < 0)
        return NULL;
    Kids k = {PyList_New(0), arg, NULL, 0};
    PyObject *result = NULL;
    if (k.out != NULL) {
        lib.visit_children(c, one_child, &k);
        if (!k.failed)
            result = Py_NewRef(k.out);
    }
    Py_XDECREF(k.out);
    Py_XDECREF(k.tu);
    return result;
}

/* clangutil.strip, step for step: while the cursor's kind id is in `through` (a set of ints), its
 * children (the walk's `_refcheck_kids`, else clangutil.kids, given by set_listing); none: that cursor,
 * else the last child. The build's most called helper (663,000 asks on THTensor.c). */
static PyObject *strip(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 1 || nargs > 2 || (nargs == 1 && stripped == NULL)) {
        PyErr_SetString(PyExc_TypeError, "_cwalk.strip: (cursor, through=the set_listing default)");
        return NULL;
    }
    PyObject *c = Py_NewRef(args[0]), *through = nargs == 2 ? args[1] : stripped;
    if (load() < 0)
        goto fail;
    for (;;) {
        CXCursor raw;
        if (read_cursor(c, &raw) < 0)
            goto fail;
        PyObject *kind = PyLong_FromLong(raw.kind);
        int in = kind == NULL ? -1 : PySequence_Contains(through, kind);
        Py_XDECREF(kind);
        if (in < 0)
            goto fail;
        if (!in)
            return c;
        PyObject *kids;
        if (lookup_attr(c, str_kids, &kids) < 0)
            goto fail;
        if (kids == Py_None)
            Py_CLEAR(kids);
        if (kids == NULL) {
            if (listing == NULL) {
                PyErr_SetString(PyExc_RuntimeError, "_cwalk.strip: no listing set (clangutil sets it)");
                goto fail;
            }
            if ((kids = PyObject_CallOneArg(listing, c)) == NULL)
                goto fail;
        }
        Py_ssize_t n = PySequence_Size(kids);
        if (n <= 0) {
            Py_DECREF(kids);
            if (n < 0)
                goto fail;
            return c;
        }
        PyObject *last = PySequence_GetItem(kids, n - 1);
        Py_DECREF(kids);
        if (last == NULL)
            goto fail;
        Py_SETREF(c, last);
    }
fail:
    Py_DECREF(c);
    return NULL;
}

/* (clangutil.kids, clangutil.STRIPPED): strip's listing of a cursor outside the walk, its default set. */
static PyObject *set_listing(PyObject *self, PyObject *args) {
    PyObject *call, *through;
    if (!PyArg_ParseTuple(args, "OO", &call, &through))
        return NULL;
    if (!PyCallable_Check(call)) {
        PyErr_SetString(PyExc_TypeError, "_cwalk.set_listing: not callable");
        return NULL;
    }
    Py_XSETREF(listing, Py_NewRef(call));
    Py_XSETREF(stripped, Py_NewRef(through));
    Py_RETURN_NONE;
}

PyMethodDef cquery_methods[] = {
    {"strip", (PyCFunction)(void (*)(void))strip, METH_FASTCALL, "clangutil.strip, in C."},
    {"set_listing", set_listing, METH_VARARGS, "strip's listing of a cursor (clangutil.kids) and default set."},
    {"binary_operator", binary_operator, METH_O, "binding.binary_operator, in C."},
    {"unary_operator", unary_operator, METH_O, "binding.unary_operator, in C."},
    {"spelling", spelling, METH_O, "binding.spelling, in C."},
    {"children", children, METH_O, "binding.children, in C."},
    {NULL, NULL, 0, NULL},
};

int cquery_init(void) {
    str_spelling = PyUnicode_InternFromString("_spelling");  /* the binding's own */
    str_kids = PyUnicode_InternFromString("_refcheck_kids");  /* binding.KIDS */
    return str_spelling == NULL || str_kids == NULL ? -1 : 0;
}
