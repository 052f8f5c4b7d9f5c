/* The graph build's remaining per-cursor queries that went through ctypes from Python (the
 * seventeenth session's profile of THTensor.c's builds): linked into the _cwalk module, whose
 * functions it reads cursors through (_cwalk.h), and added to its methods at init.
 *
 * Each gives exactly what its Python twin (binding.PURE) gives:
 *   binary_operator(cursor), unary_operator(cursor) -> libclang's operator kind (an int)
 *   spelling(cursor)               -> binding.spelling: the text (None for NULL), kept on the cursor
 *   children(cursor)               -> list(cursor.get_children()), each keeping the unit
 */
#include <string.h>
#include "_cwalk.h"

static PyObject *str_spelling;

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
    CXString s = lib.cursor_spelling(c);
    const char *text = lib.get_cstring(s);
    res = text == NULL ? Py_NewRef(Py_None) : PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "strict");
    lib.dispose_string(s);
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

PyMethodDef cquery_methods[] = {
    {"binary_operator", binary_operator, METH_O, "binding.binary_operator, in C."},
    {"unary_operator", unary_operator, METH_O, "binding.unary_operator, in C."},
    {"spelling", spelling, METH_O, "binding.spelling, in C."},
    {"children", children, METH_O, "binding.children, in C."},
    {NULL, NULL, 0, NULL},
};

int cquery_init(void) {
    str_spelling = PyUnicode_InternFromString("_spelling");  /* the binding's own */
    return str_spelling == NULL ? -1 : 0;
}
