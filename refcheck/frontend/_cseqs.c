/* The `_cwalk` queries over a sequence of cursors (binding.spellings, outside_system, among,
 * definitions, extents_raw): a unit's top level or a definition's expansions read in one call
 * instead of a ctypes call per cursor. Split from _cwalk.c; linked into the same module. */
#include "_cwalk.h"

#include <string.h>

/* [each(c) for c in cursors] as a list: NULL (an error set) where a cursor is not one or `each` fails. */
static PyObject *mapped(PyObject *arg, const char *what, PyObject *(*each)(CXCursor)) {
    if (load() < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(arg, what);
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        CXCursor c;
        PyObject *item = read_cursor(PySequence_Fast_GET_ITEM(seq, i), &c) < 0 ? NULL : each(c);
        if (item == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, item);
    }
    Py_DECREF(seq);
    return out;
}

/* binding.spelling of a cursor: its text decoded strictly, None for libclang's NULL string. */
PyObject *spelling_of(CXCursor c) {
    CXString s = lib.cursor_spelling(c);
    const char *text = lib.get_cstring(s);
    PyObject *name = text == NULL ? Py_NewRef(Py_None) : PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "strict");
    lib.dispose_string(s);
    return name;
}

static PyObject *spellings(PyObject *self, PyObject *arg) {
    return mapped(arg, "_cwalk.spellings: not a sequence", spelling_of);
}

/* binding.outside_system: the cursors with a file whose file `system_file` (asked once per CXFile,
 * as an int) does not call a system one and whose location clang does not place in a system header. */
static PyObject *outside_system(PyObject *self, PyObject *args) {
    PyObject *cursors, *system_file;
    if (!PyArg_ParseTuple(args, "OO", &cursors, &system_file) || load() < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(cursors, "_cwalk.outside_system: not a sequence");
    if (seq == NULL)
        return NULL;
    PyObject *out = PyList_New(0), *files = PyDict_New();
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; out != NULL && files != NULL && i < n; i++) {
        PyObject *obj = PySequence_Fast_GET_ITEM(seq, i);
        CXCursor c;
        if (read_cursor(obj, &c) < 0)
            goto fail;
        CXSourceLocation loc = lib.cursor_location(c);
        CXFile file = NULL;
        unsigned line, column, offset;
        lib.instantiation(loc, &file, &line, &column, &offset);
        if (file == NULL)
            continue;
        PyObject *key = PyLong_FromVoidPtr(file);
        if (key == NULL)
            goto fail;
        PyObject *known = PyDict_GetItemWithError(files, key);  /* borrowed */
        if (known == NULL && !PyErr_Occurred()) {
            PyObject *said = PyObject_CallOneArg(system_file, key);
            int truth = said == NULL ? -1 : PyObject_IsTrue(said);
            Py_XDECREF(said);
            known = truth < 0 ? NULL : truth ? Py_True : Py_False;
            if (known != NULL && PyDict_SetItem(files, key, known) < 0)
                known = NULL;
        }
        Py_DECREF(key);
        if (known == NULL)
            goto fail;
        if (known == Py_False && !lib.in_system_header(loc) && PyList_Append(out, obj) < 0)
            goto fail;
    }
    Py_XDECREF(files);
    Py_DECREF(seq);
    return out;
fail:
    Py_XDECREF(out);
    Py_XDECREF(files);
    Py_DECREF(seq);
    return NULL;
}

/* The cursors of a sequence that `keep` accepts, in order, the same objects: the filters of a
 * unit's top level (~8,600 cursors on a GLib unit, ~4,300 on a CPython one), where a Python step
 * per cursor was most of the walk. */
typedef int (*keep_fn)(const CXCursor *, const char *wanted);

static PyObject *filtered(PyObject *cursors, keep_fn keep_it, const char *wanted) {
    PyObject *seq = PySequence_Fast(cursors, "_cwalk: not a sequence");
    if (seq == NULL)
        return NULL;
    PyObject *out = PyList_New(0);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        PyObject *obj = PySequence_Fast_GET_ITEM(seq, i);
        CXCursor c;
        if (read_cursor(obj, &c) < 0 || (keep_it(&c, wanted) && PyList_Append(out, obj) < 0))
            Py_CLEAR(out);
    }
    Py_DECREF(seq);
    return out;
}

static int of_wanted_kind(const CXCursor *c, const char *wanted) {
    return c->kind >= 0 && c->kind < MAX_KIND && wanted[c->kind];
}

static int is_definition(const CXCursor *c, const char *wanted) {
    return lib.is_definition(*c) != 0;
}

static PyObject *among(PyObject *self, PyObject *args) {
    PyObject *cursors, *kinds;
    char wanted[MAX_KIND] = {0};
    if (!PyArg_ParseTuple(args, "OO", &cursors, &kinds) || read_kinds(kinds, wanted) < 0)
        return NULL;
    return filtered(cursors, of_wanted_kind, wanted);
}

static PyObject *definitions(PyObject *self, PyObject *arg) {
    if (load() < 0)
        return NULL;
    return filtered(arg, is_definition, NULL);
}

/* binding.extent_raw of a cursor: the raw (begin, end) of its CXSourceRange, for a unit's macro
 * expansions (33,000 on THTensor.c, a ctypes call each: ~20 ms of its instance keys' set-up). */
static PyObject *extent_raw_of(CXCursor c) {
    CXSourceRange r = lib.cursor_extent(c);
    return Py_BuildValue("(kk)", (unsigned long)r.begin_int_data, (unsigned long)r.end_int_data);
}

static PyObject *extents_raw(PyObject *self, PyObject *arg) {
    return mapped(arg, "_cwalk.extents_raw: not a sequence", extent_raw_of);
}

PyMethodDef cseqs_methods[] = {
    {"spellings", spellings, METH_O, "binding.spellings, in C."},
    {"outside_system", outside_system, METH_VARARGS, "binding.outside_system, in C."},
    {"among", among, METH_VARARGS, "binding.among, in C."},
    {"definitions", definitions, METH_O, "binding.definitions, in C."},
    {"extents_raw", extents_raw, METH_O, "binding.extents_raw, in C."},
    {NULL, NULL, 0, NULL},
};
