/* refcheck.frontend._cwalk: the graph build's per-cursor libclang queries without ctypes.
 *
 * An optional extension (setup.py builds it when a C compiler is there; refcheck/frontend/native.py
 * chooses it or the pure-Python twins in binding.py, which are the fallback and the tests' oracle).
 * It includes no clang header and links against no libclang: the few structs of _cwalk.h are libclang's
 * stable C ABI (clang-c/Index.h, CXString.h), and the functions are called through pointers that
 * binding.py reads from the libclang the clang.cindex binding has already loaded and hands over once
 * through a loader callable (set_loader), on the first query.
 *
 * Each function reads and returns exactly what its Python twin in binding.py does:
 *   place(cursor)              -> (file pointer or 0, line, column, offset)
 *   extent_places(cursor)      -> (place of the extent's start, place of its end)
 *   children_by_key(fn, found) -> found, filled as binding.children_by_key fills it
 *   of_kinds(top, kinds)       -> the cursors of those kind ids in top's pre-order (binding.of_kinds)
 *   referenced(cursor), semantic_parent(cursor) -> None or a Cursor, kept on the cursor
 *   folded(cursor, as_typed)   -> what clang_Cursor_Evaluate folds it to (binding.folded)
 *   canonical_kind(cursor)     -> the TypeKind id of its canonical type (binding.canonical_kind)
 *   top_level(cursor)          -> (its children but the preprocessor's, its macro expansions)
 * and, from _cseqs.c (cseqs_methods), the queries over a sequence of cursors:
 *   spellings(cursors)         -> [binding.spelling(c) for c in cursors], not kept on the cursors
 *   outside_system(cursors, system_file) -> those outside system headers (binding.outside_system)
 *   among(cursors, kinds)      -> those whose kind id is in kinds, in order (binding.among)
 *   definitions(cursors)       -> those clang says are definitions, in order (binding.definitions)
 *   extents_raw(cursors)       -> [binding.extent_raw(c) for c in cursors]
 * with the build's last ctypes queries from _cquery.c (cquery_methods: binary_operator,
 * unary_operator, spelling, children),
 * and one that reads no cursor, for the instance keys (refcheck/reuse/instances.py):
 *   tokens(text)               -> instances.tokenize's list for an ASCII text, None for another
 * with the keys' other passes over those tokens, from _ckeys.c and _cconds.c (ckeys_methods,
 * cconds_methods, added at init).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include "_cwalk.h"
#include "_ckeys.h"
#include "_ctokens.h"

Lib lib;
static CXCursor null_cursor;

static PyObject *loader;       /* callable -> (tuple of N_FUNCTIONS addresses, the Cursor class) */
PyObject *cursor_type;
PyObject *str_tu;
static PyObject *str_kids, *str_referenced, *str_semantic_parent;

int load(void) {
    if (cursor_type != NULL)
        return 0;
    if (loader == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_cwalk: no loader set (binding.py sets it)");
        return -1;
    }
    PyObject *got = PyObject_CallNoArgs(loader);
    if (got == NULL)
        return -1;
    PyObject *addresses, *type;
    if (!PyArg_ParseTuple(got, "O!O", &PyTuple_Type, &addresses, &type)
            || PyTuple_GET_SIZE(addresses) != N_FUNCTIONS) {
        Py_DECREF(got);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "_cwalk: the loader gave the wrong number of functions");
        return -1;
    }
    void *pointers[N_FUNCTIONS];
    for (Py_ssize_t i = 0; i < N_FUNCTIONS; i++) {
        pointers[i] = PyLong_AsVoidPtr(PyTuple_GET_ITEM(addresses, i));
        if (pointers[i] == NULL) {
            Py_DECREF(got);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_RuntimeError, "_cwalk: a libclang function was not found");
            return -1;
        }
    }
    memcpy(&lib, pointers, sizeof lib);
    null_cursor = lib.null_cursor();
    Py_INCREF(type);
    cursor_type = type;
    Py_DECREF(got);
    return 0;
}

/* A ctypes Cursor's CXCursor, through the buffer protocol (ctypes' public interface to its memory). */
int read_cursor(PyObject *obj, CXCursor *out) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0)
        return -1;
    int ok = view.len == (Py_ssize_t)sizeof(CXCursor);
    if (ok)
        memcpy(out, view.buf, sizeof(CXCursor));
    PyBuffer_Release(&view);
    if (!ok) {
        PyErr_SetString(PyExc_TypeError, "_cwalk: not a CXCursor");
        return -1;
    }
    return 0;
}

/* binding._place: the instantiation location, the file as an int (0 for none). */
static PyObject *place_of(CXSourceLocation loc) {
    CXFile file = NULL;
    unsigned line = 0, column = 0, offset = 0;
    lib.instantiation(loc, &file, &line, &column, &offset);
    PyObject *f = file ? PyLong_FromVoidPtr(file) : PyLong_FromLong(0);
    if (f == NULL)
        return NULL;
    return Py_BuildValue("(NIII)", f, line, column, offset);
}

static PyObject *place(PyObject *self, PyObject *arg) {
    CXCursor c;
    if (load() < 0 || read_cursor(arg, &c) < 0)
        return NULL;
    return place_of(lib.cursor_location(c));
}

static PyObject *extent_places(PyObject *self, PyObject *arg) {
    CXCursor c;
    if (load() < 0 || read_cursor(arg, &c) < 0)
        return NULL;
    CXSourceRange r = lib.cursor_extent(c);
    PyObject *start = place_of(lib.range_start(r));
    if (start == NULL)
        return NULL;
    PyObject *end = place_of(lib.range_end(r));
    if (end == NULL) {
        Py_DECREF(start);
        return NULL;
    }
    return Py_BuildValue("(NN)", start, end);
}


/* The walk's state: binding.children_by_key's locals. */
typedef struct {
    PyObject *found, *root, *strays, *tu;
    int failed;
} Walk;

static PyObject *key_of(const CXCursor *c) {
    return PyBytes_FromStringAndSize((const char *)c, sizeof *c);
}

/* One cursor of the walk; binding.children_by_key's `visit`, step for step. */
static int visit_one(CXCursor child, CXCursor parent, Walk *w) {
    PyObject *key = key_of(&parent);
    if (key == NULL)
        return -1;
    PyObject *siblings = PyDict_GetItemWithError(w->found, key);  /* borrowed */
    if (siblings == NULL) {
        if (PyErr_Occurred() || PyList_Append(w->strays, key) < 0) {
            Py_DECREF(key);
            return -1;
        }
        if (PyList_GET_SIZE(w->root) > 0) {
            Py_DECREF(key);
            return CXChildVisit_Break;
        }
        siblings = w->root;
        if (PyDict_SetItem(w->found, key, siblings) < 0) {
            Py_DECREF(key);
            return -1;
        }
    }
    Py_DECREF(key);
    PyObject *child_key = key_of(&child);
    if (child_key == NULL)
        return -1;
    PyObject *obj = new_cursor(&child);
    PyObject *kids = PyList_New(0);
    int rc = obj != NULL && kids != NULL ? 0 : -1;
    if (rc == 0 && (PyObject_SetAttr(obj, str_tu, w->tu) < 0 || PyList_Append(siblings, obj) < 0
                    || PyDict_SetItem(w->found, child_key, kids) < 0
                    || PyObject_SetAttr(obj, str_kids, kids) < 0))
        rc = -1;
    Py_XDECREF(obj);
    Py_XDECREF(kids);
    Py_DECREF(child_key);
    return rc < 0 ? -1 : CXChildVisit_Recurse;
}

static int visitor(CXCursor child, CXCursor parent, CXClientData data) {
    Walk *w = (Walk *)data;
    int rc = visit_one(child, parent, w);
    if (rc < 0) {
        w->failed = 1;
        return CXChildVisit_Break;
    }
    return rc;
}

static PyObject *children_by_key(PyObject *self, PyObject *args) {
    PyObject *fn, *found;
    if (!PyArg_ParseTuple(args, "OO!", &fn, &PyDict_Type, &found))
        return NULL;
    CXCursor c;
    if (load() < 0 || read_cursor(fn, &c) < 0)
        return NULL;
    Walk w = {found, PyList_New(0), PyList_New(0), PyObject_GetAttr(fn, str_tu), 0};
    PyObject *result = NULL, *key = key_of(&c);
    if (w.root == NULL || w.strays == NULL || w.tu == NULL || key == NULL
            || PyDict_SetItem(found, key, w.root) < 0)
        goto done;
    lib.visit_children(c, visitor, &w);
    if (w.failed)
        goto done;
    /* The walk broke off where a stray parent's children are not the root's. */
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(w.strays); i++) {
        PyObject *got = PyDict_GetItemWithError(found, PyList_GET_ITEM(w.strays, i));
        if (got == NULL && PyErr_Occurred())
            goto done;
        if (got != w.root) {
            PyDict_Clear(found);
            break;
        }
    }
    Py_INCREF(found);
    result = found;
done:
    Py_XDECREF(key);
    Py_XDECREF(w.root);
    Py_XDECREF(w.strays);
    Py_XDECREF(w.tu);
    return result;
}

/* binding.of_kinds' walk: a cursor object only for the kinds asked, none for the rest. */
typedef struct {
    PyObject *out, *tu;
    char wanted[MAX_KIND];
    int failed;
} Picks;

/* Marks in `wanted` (MAX_KIND flags) the kind ids the iterable `kinds` names, ids outside the
 * table ignored: 0, or -1 with an error set. */
int read_kinds(PyObject *kinds, char *wanted) {
    PyObject *it = PyObject_GetIter(kinds), *k;
    if (it == NULL)
        return -1;
    while ((k = PyIter_Next(it)) != NULL) {
        long v = PyLong_AsLong(k);
        Py_DECREF(k);
        if (v == -1 && PyErr_Occurred())
            break;
        if (v >= 0 && v < MAX_KIND)
            wanted[v] = 1;
    }
    Py_DECREF(it);
    return PyErr_Occurred() ? -1 : 0;
}

static int keep(const CXCursor *c, Picks *p) {
    if (c->kind < 0 || c->kind >= MAX_KIND || !p->wanted[c->kind])
        return 0;
    PyObject *obj = new_cursor(c);
    int rc = obj == NULL || PyObject_SetAttr(obj, str_tu, p->tu) < 0 || PyList_Append(p->out, obj) < 0 ? -1 : 0;
    Py_XDECREF(obj);
    return rc;
}

static int pick(CXCursor child, CXCursor parent, CXClientData data) {
    Picks *p = (Picks *)data;
    if (keep(&child, p) < 0) {
        p->failed = 1;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}

static PyObject *of_kinds(PyObject *self, PyObject *args) {
    PyObject *top, *kinds;
    if (!PyArg_ParseTuple(args, "OO", &top, &kinds))
        return NULL;
    CXCursor c;
    if (load() < 0 || read_cursor(top, &c) < 0)
        return NULL;
    Picks p = {PyList_New(0), PyObject_GetAttr(top, str_tu), {0}, 0};
    if (p.out == NULL || p.tu == NULL || read_kinds(kinds, p.wanted) < 0 || keep(&c, &p) < 0)
        goto fail;
    lib.visit_children(c, pick, &p);
    if (p.failed)
        goto fail;
    Py_DECREF(p.tu);
    return p.out;
fail:
    Py_XDECREF(p.out);
    Py_XDECREF(p.tu);
    return NULL;
}

/* binding.top_level's visit: the detailed record's cursors (CXCursor_MacroDefinition 501,
 * _MacroExpansion 502, _InclusionDirective 503) apart, the expansions kept aside. */
typedef struct {
    PyObject *top, *expansions, *tu;
    int failed;
} Tops;

static int top_one(CXCursor child, CXCursor parent, CXClientData data) {
    Tops *t = (Tops *)data;
    if (child.kind >= 501 && child.kind <= 503 && child.kind != 502)
        return CXChildVisit_Continue;
    PyObject *obj = new_cursor(&child);
    /* The declarations keep their unit (as get_children's do); the expansions do not: an attribute
     * gives each an instance dict, 11 MB over THTensor.c's expansions, and no walk asks them for it. */
    if (obj == NULL || (child.kind != 502 && PyObject_SetAttr(obj, str_tu, t->tu) < 0)
            || PyList_Append(child.kind == 502 ? t->expansions : t->top, obj) < 0) {
        Py_XDECREF(obj);
        t->failed = 1;
        return CXChildVisit_Break;
    }
    Py_DECREF(obj);
    return CXChildVisit_Continue;
}

static PyObject *top_level(PyObject *self, PyObject *arg) {
    CXCursor c;
    if (load() < 0 || read_cursor(arg, &c) < 0)
        return NULL;
    Tops t = {PyList_New(0), PyList_New(0), PyObject_GetAttr(arg, str_tu), 0};
    PyObject *result = NULL;
    if (t.top != NULL && t.expansions != NULL && t.tu != NULL) {
        lib.visit_children(c, top_one, &t);
        if (!t.failed)
            result = PyTuple_Pack(2, t.top, t.expansions);
    }
    Py_XDECREF(t.top);
    Py_XDECREF(t.expansions);
    Py_XDECREF(t.tu);
    return result;
}

/* A fresh Cursor holding `c` (Cursor.from_buffer_copy). */
PyObject *new_cursor(const CXCursor *c) {
    PyObject *obj = PyObject_CallNoArgs(cursor_type);
    if (obj == NULL)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_WRITABLE) < 0) {
        Py_DECREF(obj);
        return NULL;
    }
    int ok = view.len == (Py_ssize_t)sizeof *c;
    if (ok)
        memcpy(view.buf, c, sizeof *c);
    PyBuffer_Release(&view);
    if (!ok) {
        PyErr_SetString(PyExc_TypeError, "_cwalk: the Cursor class is not one CXCursor");
        Py_DECREF(obj);
        return NULL;
    }
    return obj;
}

int lookup_attr(PyObject *obj, PyObject *name, PyObject **out) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyObject_GetOptionalAttr(obj, name, out);
#else
    return _PyObject_LookupAttr(obj, name, out);
#endif
}

/* binding._cursor_of: kept on the cursor under `attr`, None for the null cursor, the unit kept. */
static PyObject *cursor_of(PyObject *arg, PyObject *attr, cursor_to_cursor_fn fn) {
    PyObject *res;
    CXCursor c;
    if (load() < 0)
        return NULL;
    int found = lookup_attr(arg, attr, &res);
    if (found != 0)
        return found < 0 ? NULL : res;
    if (read_cursor(arg, &c) < 0)
        return NULL;
    CXCursor got = fn(c);
    if (memcmp(&got, &null_cursor, sizeof got) == 0) {
        res = Py_NewRef(Py_None);
    } else {
        res = new_cursor(&got);
        PyObject *tu = res == NULL ? NULL : PyObject_GetAttr(arg, str_tu);
        int failed = tu == NULL || PyObject_SetAttr(res, str_tu, tu) < 0;
        Py_XDECREF(tu);
        if (failed) {
            Py_XDECREF(res);
            return NULL;
        }
    }
    if (PyObject_SetAttr(arg, attr, res) < 0) {
        Py_DECREF(res);
        return NULL;
    }
    return res;
}

/* `lib` is filled by load(): read its members only after it (the first query of a worker may be
 * one of these, before any walk: the may-raise scan's qualified_name on a unit from the cache). */
static PyObject *referenced(PyObject *self, PyObject *arg) {
    if (load() < 0)
        return NULL;
    return cursor_of(arg, str_referenced, lib.referenced);
}

static PyObject *semantic_parent(PyObject *self, PyObject *arg) {
    if (load() < 0)
        return NULL;
    return cursor_of(arg, str_semantic_parent, lib.semantic_parent);
}

/* binding.folded: an integer (as unsigned where clang says so and `as_typed`), a double where
 * `as_typed`, else None. */
static PyObject *folded(PyObject *self, PyObject *args) {
    PyObject *arg;
    int as_typed;
    CXCursor c;
    if (!PyArg_ParseTuple(args, "Op", &arg, &as_typed) || load() < 0 || read_cursor(arg, &c) < 0)
        return NULL;
    CXEvalResult res = lib.evaluate(c);
    if (res == NULL)
        Py_RETURN_NONE;
    PyObject *out;
    int kind = lib.eval_kind(res);
    if (kind == 1) {  /* CXEval_Int */
        if (as_typed && lib.eval_is_unsigned(res))
            out = PyLong_FromUnsignedLongLong(lib.eval_unsigned(res));
        else
            out = PyLong_FromLongLong(lib.eval_long(res));
    } else if (kind == 2 && as_typed) {  /* CXEval_Float */
        out = PyFloat_FromDouble(lib.eval_double(res));
    } else {
        out = Py_NewRef(Py_None);
    }
    lib.eval_dispose(res);
    return out;
}

static PyObject *canonical_kind(PyObject *self, PyObject *arg) {
    CXCursor c;
    if (load() < 0 || read_cursor(arg, &c) < 0)
        return NULL;
    return PyLong_FromLong(lib.canonical_type(lib.cursor_type(c)).kind);
}


static PyObject *set_loader(PyObject *self, PyObject *arg) {
    if (!PyCallable_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "_cwalk.set_loader: not callable");
        return NULL;
    }
    Py_XSETREF(loader, Py_NewRef(arg));
    Py_CLEAR(cursor_type);  /* the next query loads again */
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"place", place, METH_O, "binding.place, in C."},
    {"extent_places", extent_places, METH_O, "binding.extent_places, in C."},
    {"children_by_key", children_by_key, METH_VARARGS, "binding.children_by_key, in C."},
    {"of_kinds", of_kinds, METH_VARARGS, "binding.of_kinds, in C."},
    {"referenced", referenced, METH_O, "binding.referenced, in C."},
    {"semantic_parent", semantic_parent, METH_O, "binding.semantic_parent, in C."},
    {"folded", folded, METH_VARARGS, "binding.folded, in C."},
    {"canonical_kind", canonical_kind, METH_O, "binding.canonical_kind, in C."},
    {"top_level", top_level, METH_O, "binding.top_level, in C."},
    {"set_loader", set_loader, METH_O,
     "The callable giving (libclang function addresses, Cursor class), called on the first query."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cwalk", NULL, -1, methods};

#ifndef REFCHECK_CWALK_SOURCE
#define REFCHECK_CWALK_SOURCE ""
#endif

PyMODINIT_FUNC PyInit__cwalk(void) {
    str_tu = PyUnicode_InternFromString("_tu");
    str_kids = PyUnicode_InternFromString("_refcheck_kids");  /* binding.KIDS */
    str_referenced = PyUnicode_InternFromString("_referenced");
    str_semantic_parent = PyUnicode_InternFromString("_semantic_parent");
    if (str_tu == NULL || str_kids == NULL || str_referenced == NULL || str_semantic_parent == NULL)
        return NULL;
    if (ctokens_init() < 0 || ckeys_init() < 0 || cquery_init() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && (PyModule_AddFunctions(m, ckeys_methods) < 0 || PyModule_AddFunctions(m, cconds_methods) < 0
                      || PyModule_AddFunctions(m, cseqs_methods) < 0
                      || PyModule_AddFunctions(m, cgraph_methods) < 0
                      || PyModule_AddFunctions(m, cquery_methods) < 0
                      || PyModule_AddFunctions(m, ctokens_methods) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    /* The digest of the source it was built from: native.py refuses a module built from another
     * (an editable install whose .c changed since). */
    if (m != NULL && PyModule_AddStringConstant(m, "SOURCE_DIGEST", REFCHECK_CWALK_SOURCE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
