/* refcheck.frontend._cwalk: the graph build's per-cursor libclang queries without ctypes.
 *
 * An optional extension (setup.py builds it when a C compiler is there; refcheck/frontend/native.py
 * chooses it or the pure-Python twins in binding.py, which are the fallback and the tests' oracle).
 * It includes no clang header and links against no libclang: the few structs below are libclang's
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
 *   spellings(cursors)         -> [binding.spelling(c) for c in cursors], not kept on the cursors
 *   top_level(cursor)          -> (its children but the preprocessor's, its macro expansions)
 * and one that reads no cursor, for the instance keys (refcheck/reuse/instances.py):
 *   tokens(text)               -> instances.tokenize's list for an ASCII text, None for another
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* clang-c/Index.h, ABI-stable since libclang's first C API. */
typedef struct { int kind; int xdata; const void *data[3]; } CXCursor;
typedef struct { const void *ptr_data[2]; unsigned int_data; } CXSourceLocation;
typedef struct { const void *ptr_data[2]; unsigned begin_int_data; unsigned end_int_data; } CXSourceRange;
typedef struct { int kind; void *data[2]; } CXType;
typedef struct { const void *data; unsigned private_flags; } CXString;  /* clang-c/CXString.h */
typedef void *CXFile;
typedef void *CXClientData;
enum { CXChildVisit_Break = 0, CXChildVisit_Continue = 1, CXChildVisit_Recurse = 2 };
typedef int (*CXCursorVisitor)(CXCursor, CXCursor, CXClientData);

typedef unsigned (*visit_children_fn)(CXCursor, CXCursorVisitor, CXClientData);
typedef CXSourceLocation (*cursor_location_fn)(CXCursor);
typedef CXSourceRange (*cursor_extent_fn)(CXCursor);
typedef CXSourceLocation (*range_end_fn)(CXSourceRange);
typedef void (*instantiation_fn)(CXSourceLocation, CXFile *, unsigned *, unsigned *, unsigned *);
typedef CXCursor (*cursor_to_cursor_fn)(CXCursor);
typedef CXCursor (*null_cursor_fn)(void);
typedef CXType (*cursor_type_fn)(CXCursor);
typedef CXType (*canonical_type_fn)(CXType);
typedef void *CXEvalResult;
typedef CXEvalResult (*evaluate_fn)(CXCursor);
typedef int (*eval_int_fn)(CXEvalResult);
typedef unsigned long long (*eval_unsigned_fn)(CXEvalResult);
typedef long long (*eval_long_fn)(CXEvalResult);
typedef double (*eval_double_fn)(CXEvalResult);
typedef void (*eval_dispose_fn)(CXEvalResult);
typedef CXString (*cursor_spelling_fn)(CXCursor);
typedef const char *(*get_cstring_fn)(CXString);
typedef void (*dispose_string_fn)(CXString);

/* The order of the addresses the loader returns (binding._NATIVE_FUNCTIONS). */
static struct {
    visit_children_fn visit_children;
    cursor_location_fn cursor_location;
    cursor_extent_fn cursor_extent;
    range_end_fn range_start;
    range_end_fn range_end;
    instantiation_fn instantiation;
    cursor_to_cursor_fn referenced;
    cursor_to_cursor_fn semantic_parent;
    null_cursor_fn null_cursor;
    evaluate_fn evaluate;
    eval_int_fn eval_kind;
    eval_int_fn eval_is_unsigned;
    eval_unsigned_fn eval_unsigned;
    eval_long_fn eval_long;
    eval_double_fn eval_double;
    eval_dispose_fn eval_dispose;
    cursor_type_fn cursor_type;
    canonical_type_fn canonical_type;
    cursor_spelling_fn cursor_spelling;
    get_cstring_fn get_cstring;
    dispose_string_fn dispose_string;
} lib;
#define N_FUNCTIONS 21
static CXCursor null_cursor;

static PyObject *loader;       /* callable -> (tuple of N_FUNCTIONS addresses, the Cursor class) */
static PyObject *cursor_type;  /* clang.cindex.Cursor, a ctypes Structure of one CXCursor */
static PyObject *str_tu, *str_kids, *str_referenced, *str_semantic_parent;

static int load(void) {
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
static int read_cursor(PyObject *obj, CXCursor *out) {
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

static PyObject *new_cursor(const CXCursor *c);

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
#define MAX_KIND 1024
typedef struct {
    PyObject *out, *tu;
    char wanted[MAX_KIND];
    int failed;
} Picks;

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
    PyObject *it = p.out == NULL || p.tu == NULL ? NULL : PyObject_GetIter(kinds), *k;
    if (it == NULL)
        goto fail;
    while ((k = PyIter_Next(it)) != NULL) {
        long v = PyLong_AsLong(k);
        Py_DECREF(k);
        if (v == -1 && PyErr_Occurred())
            break;
        if (v >= 0 && v < MAX_KIND)
            p.wanted[v] = 1;
    }
    Py_DECREF(it);
    if (PyErr_Occurred() || keep(&c, &p) < 0)
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
static PyObject *new_cursor(const CXCursor *c) {
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

static int lookup_attr(PyObject *obj, PyObject *name, PyObject **out) {
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


/* ---- The instance keys' tokens (refcheck/reuse/instances.py) ---------------------------------
 * tokens(text): instances._TOKEN.findall(text) for an ASCII text (None for any other: the caller
 * tokenizes it with the regex), the same alternatives in the same order. write_tokens(...):
 * instances.write_tokens, the loop that spells a printed definition's tokens as the key does. */

static PyObject *punctuators[128];  /* one str per single-character token, shared */

static int is_space(unsigned char c) {  /* Python's \s on ASCII: str.isspace() */
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}
static int is_word(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* The length of a quoted literal starting at s[0] (its quote), or 0 where it does not close on
 * its line: the regex's `"(?:\\.|[^"\\\n])*"`. */
static Py_ssize_t quoted(const char *s, Py_ssize_t n) {
    char q = s[0];
    Py_ssize_t i = 1;
    while (i < n) {
        char c = s[i];
        if (c == q)
            return i + 1;
        if (c == '\\') {
            if (i + 1 >= n || s[i + 1] == '\n')
                return 0;
            i += 2;
        } else if (c == '\n') {
            return 0;
        } else {
            i++;
        }
    }
    return 0;
}

/* The length of the token at s[0] (not a blank). */
static Py_ssize_t token_length(const char *s, Py_ssize_t n) {
    unsigned char c = s[0], d = n > 1 ? s[1] : 0, e = n > 2 ? s[2] : 0;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
        Py_ssize_t i = 1;
        while (i < n && is_word(s[i]))
            i++;
        return i;
    }
    if (is_digit(c) || (c == '.' && is_digit(d))) {
        Py_ssize_t i = c == '.' ? 2 : 1;
        while (i < n) {
            unsigned char x = s[i];
            if ((x == 'e' || x == 'E' || x == 'p' || x == 'P') && i + 1 < n && (s[i + 1] == '+' || s[i + 1] == '-'))
                i += 2;
            else if (is_word(x) || x == '.')
                i++;
            else
                break;
        }
        return i;
    }
    if (c == '"' || c == '\'') {
        Py_ssize_t got = quoted(s, n);
        if (got)
            return got;
        return 1;  /* an unclosed quote: `\S` */
    }
    if ((c == '-' && (d == '>' || d == '-')) || (c == '+' && d == '+'))
        return 2;
    if ((c == '<' || c == '>') && d == c)
        return e == '=' ? 3 : 2;
    if (d == '=' && c != 0 && strchr("<>=!*/%+-&^|", c) != NULL)
        return 2;
    if ((c == '&' || c == '|') && d == c)
        return 2;
    if (c == '.' && d == '.' && e == '.')
        return 3;
    if (c == '#' && d == '#')
        return 2;
    return 1;
}

static PyObject *tokens(PyObject *self, PyObject *arg) {
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "_cwalk.tokens: not a str");
        return NULL;
    }
    if (!PyUnicode_IS_ASCII(arg))
        Py_RETURN_NONE;
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(arg, &n);
    if (s == NULL)
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    Py_ssize_t i = 0;
    for (;;) {
        while (i < n && is_space(s[i]))
            i++;
        if (i >= n)
            break;
        Py_ssize_t k = token_length(s + i, n - i);
        PyObject *t;
        if (k == 1 && punctuators[(unsigned char)s[i]] != NULL) {
            t = Py_NewRef(punctuators[(unsigned char)s[i]]);
        } else {
            t = PyUnicode_FromStringAndSize(s + i, k);
            if (t == NULL) {
                Py_DECREF(out);
                return NULL;
            }
        }
        int bad = PyList_Append(out, t);
        Py_DECREF(t);
        if (bad < 0) {
            Py_DECREF(out);
            return NULL;
        }
        i += k;
    }
    return out;
}

/* ---- The instance keys' passes over a printed definition's tokens ---------------------------
 * literal_ranges(tokens, type_words): instances.literal_ranges, the casts' and `sizeof(type)`s'
 * token ranges. write_tokens(...): instances.write_tokens, the loop that spells the tokens as the
 * key does. Each is one pass over a list of str with set and dict lookups, the Python twin's
 * order kept step for step; the Python definitions are the fallback and the oracle. */

static PyObject *erased_token;  /* ctokens.ERASED_TOKEN, "\x01" */
static PyObject *str_sizeof;

static int is_char(PyObject *t, Py_UCS4 c) {
    return PyUnicode_GET_LENGTH(t) == 1 && PyUnicode_READ_CHAR(t, 0) == c;
}

static int append_new(PyObject *list, PyObject *item) {  /* steals item */
    if (item == NULL)
        return -1;
    int bad = PyList_Append(list, item);
    Py_DECREF(item);
    return bad;
}

static int all_tokens_str(PyObject *tokens, const char *who) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(tokens); i++)
        if (!PyUnicode_Check(PyList_GET_ITEM(tokens, i))) {
            PyErr_Format(PyExc_TypeError, "%s: a token is not a str", who);
            return -1;
        }
    return 0;
}

/* Whether every token in [a, b) is in `words` (frozenset.issuperset of the slice). */
static int all_in(PyObject *tokens, Py_ssize_t a, Py_ssize_t b, PyObject *words) {
    for (Py_ssize_t k = a; k < b; k++) {
        int in = PySet_Contains(words, PyList_GET_ITEM(tokens, k));
        if (in <= 0)
            return in;
    }
    return 1;
}

static PyObject *literal_ranges(PyObject *self, PyObject *args) {
    PyObject *tokens, *words;
    if (!PyArg_ParseTuple(args, "O!O!:literal_ranges", &PyList_Type, &tokens, &PyFrozenSet_Type, &words)
            || all_tokens_str(tokens, "literal_ranges") < 0)
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(tokens), depth = 0;
    Py_ssize_t *opens = PyMem_Malloc((size_t)(n + 1) * sizeof *opens);
    PyObject *out = PyList_New(0);
    if (opens == NULL || out == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyList_GET_ITEM(tokens, i);
        if (is_char(t, '(')) {
            opens[depth++] = i;
        } else if (is_char(t, ')') && depth > 0) {
            Py_ssize_t o = opens[--depth];
            int typed = o + 1 < i ? all_in(tokens, o + 1, i, words) : 0;
            if (typed < 0)
                goto fail;
            if (typed) {
                if (append_new(out, Py_BuildValue("(nn)", o + 1, i)) < 0)
                    goto fail;
            } else if (o > 0 && PyUnicode_Compare(PyList_GET_ITEM(tokens, o - 1), str_sizeof) == 0) {
                goto none;
            }
        } else if (PyUnicode_Compare(t, str_sizeof) == 0
                   && (i + 1 >= n || !is_char(PyList_GET_ITEM(tokens, i + 1), '('))) {
            goto none;
        }
    }
    PyMem_Free(opens);
    return out;
none:
    PyMem_Free(opens);
    Py_DECREF(out);
    Py_RETURN_NONE;
fail:
    PyMem_Free(opens);
    Py_XDECREF(out);
    if (!PyErr_Occurred())
        PyErr_NoMemory();
    return NULL;
}

/* An erased word after the first of its run: runs[-1][1] += " " + t. */
static int extend_run(PyObject *runs, PyObject *t) {
    PyObject *run = PyList_GET_ITEM(runs, PyList_GET_SIZE(runs) - 1);
    if (!PyList_Check(run) || PyList_GET_SIZE(run) != 2) {
        PyErr_SetString(PyExc_TypeError, "write_tokens: a run is not [index, words]");
        return -1;
    }
    PyObject *words = PyUnicode_FromFormat("%U %U", PyList_GET_ITEM(run, 1), t);
    if (words == NULL)
        return -1;
    return PyList_SetItem(run, 1, words);
}

/* A file-scope name: the token shape_of gives it, or its number (given on first appearance), its
 * declarations queued. */
static int write_name(PyObject *out, PyObject *tokens, Py_ssize_t i, PyObject *t, int literal,
                      PyObject *type_names, PyObject *numbers, PyObject *queue, PyObject *shape_of, long depth) {
    PyObject *lit = literal ? Py_True : Py_False;
    if (shape_of != Py_None && depth > 0) {
        int named = PySequence_Contains(type_names, t);
        if (named < 0)
            return -1;
        if (named) {
            PyObject *got = PyObject_CallFunction(shape_of, "OnOO", tokens, i, t, lit);
            if (got == NULL)
                return -1;
            if (got != Py_None)
                return append_new(out, got);
            Py_DECREF(got);
        }
    }
    PyObject *number = PyDict_GetItemWithError(numbers, t);  /* borrowed */
    if (number == NULL) {
        if (PyErr_Occurred())
            return -1;
        PyObject *fresh = PyLong_FromSsize_t(PyDict_GET_SIZE(numbers));
        if (fresh == NULL || PyDict_SetItem(numbers, t, fresh) < 0) {
            Py_XDECREF(fresh);
            return -1;
        }
        number = fresh;
        Py_DECREF(fresh);  /* the dict holds it */
    }
    if (append_new(out, PyUnicode_FromFormat("\x02%S", number)) < 0)
        return -1;
    return append_new(queue, PyTuple_Pack(2, t, lit));
}

/* Marks the tokens inside `literal`'s (i, j) ranges (instances._inside). */
static int mark_inside(PyObject *literal, char *inside, Py_ssize_t n) {
    PyObject *seq = PySequence_Fast(literal, "write_tokens: literal is not a sequence");
    if (seq == NULL)
        return -1;
    for (Py_ssize_t r = 0; r < PySequence_Fast_GET_SIZE(seq); r++) {
        Py_ssize_t a, b;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, r), "nn:write_tokens literal range", &a, &b)) {
            Py_DECREF(seq);
            return -1;
        }
        for (Py_ssize_t k = a < 0 ? 0 : a; k < b && k < n; k++)
            inside[k] = 1;
    }
    Py_DECREF(seq);
    return 0;
}

static PyObject *write_tokens(PyObject *self, PyObject *args) {
    PyObject *tokens, *literal, *erased, *decls, *type_names, *numbers, *queue, *runs, *shape_of;
    int erase, keep_all, braced;
    if (!PyArg_ParseTuple(args, "O!pOpO!O!OO!O!OOp:write_tokens", &PyList_Type, &tokens, &erase, &literal, &keep_all,
                          &PyFrozenSet_Type, &erased, &PyDict_Type, &decls, &type_names, &PyDict_Type, &numbers,
                          &PyList_Type, &queue, &runs, &shape_of, &braced)
            || all_tokens_str(tokens, "write_tokens") < 0)
        return NULL;
    if (runs != Py_None && !PyList_Check(runs)) {
        PyErr_SetString(PyExc_TypeError, "write_tokens: runs must be None or a list");
        return NULL;
    }
    /* A private copy: the shape callback may not change what is read. */
    PyObject *toks = PyList_GetSlice(tokens, 0, PyList_GET_SIZE(tokens));
    Py_ssize_t n = toks == NULL ? 0 : PyList_GET_SIZE(toks);
    char *inside = toks == NULL ? NULL : PyMem_Calloc((size_t)n + 1, 1);
    PyObject *out = inside == NULL ? NULL : PyList_New(0);
    if (out == NULL || mark_inside(literal, inside, n) < 0)
        goto fail;
    int previous_erased = 0;
    long depth = braced ? 0 : 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyList_GET_ITEM(toks, i);
        if (braced && (is_char(t, '{') || is_char(t, '}')))
            depth += is_char(t, '{') ? 1 : -1;
        int keep = keep_all || inside[i];
        if (erase && !keep) {
            int e = PySet_Contains(erased, t);
            if (e < 0)
                goto fail;
            if (e) {
                if (!previous_erased) {
                    if (PyList_Append(out, erased_token) < 0)
                        goto fail;
                    if (runs != Py_None && append_new(runs, Py_BuildValue("[nO]", i, t)) < 0)
                        goto fail;
                } else if (runs != Py_None && PyList_GET_SIZE(runs) > 0 && extend_run(runs, t) < 0) {
                    goto fail;
                }
                previous_erased = 1;
                continue;
            }
        }
        previous_erased = 0;
        int named = PyDict_Contains(decls, t);
        if (named < 0)
            goto fail;
        if (named) {
            /* A pointer's layout does not depend on what it points to (instances.write_tokens). */
            int lit = keep && (i + 1 == n || !is_char(PyList_GET_ITEM(toks, i + 1), '*'));
            if (write_name(out, toks, i, t, lit, type_names, numbers, queue, shape_of, depth) < 0)
                goto fail;
        } else if (PyList_Append(out, t) < 0) {
            goto fail;
        }
    }
    PyMem_Free(inside);
    Py_DECREF(toks);
    return out;
fail:
    PyMem_Free(inside);
    Py_XDECREF(toks);
    Py_XDECREF(out);
    if (!PyErr_Occurred())
        PyErr_NoMemory();
    return NULL;
}

/* unevaluated.body_marks(tokens, start): from the body's `{` at `start`, each bracket's partner
 * (a dict both ways; None where they do not pair), where a statement may start (after ; : { } and
 * `for (`) and whether a `({` opens a statement expression. */
static int put_pair(PyObject *match, Py_ssize_t a, Py_ssize_t b) {
    PyObject *ka = PyLong_FromSsize_t(a), *kb = PyLong_FromSsize_t(b);
    int bad = ka == NULL || kb == NULL || PyDict_SetItem(match, ka, kb) < 0 || PyDict_SetItem(match, kb, ka) < 0;
    Py_XDECREF(ka);
    Py_XDECREF(kb);
    return bad ? -1 : 0;
}

static char bracket_of(PyObject *t) {  /* the mark a token is, 0 for any other */
    if (PyUnicode_GET_LENGTH(t) != 1)
        return 0;
    Py_UCS4 c = PyUnicode_READ_CHAR(t, 0);
    return (c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == ';' || c == ':') ? (char)c : 0;
}

static PyObject *body_marks(PyObject *self, PyObject *args) {
    PyObject *tokens;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "O!n:body_marks", &PyList_Type, &tokens, &start)
            || all_tokens_str(tokens, "body_marks") < 0)
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(tokens), depth = 0;
    Py_ssize_t *stack = PyMem_Malloc((size_t)(n + 1) * sizeof *stack);
    PyObject *match = PyDict_New(), *starts = PyList_New(0);
    int inner = 0, paired = 1;
    if (stack == NULL || match == NULL || starts == NULL)
        goto fail;
    for (Py_ssize_t i = start < 0 ? 0 : start; i < n; i++) {
        char c = bracket_of(PyList_GET_ITEM(tokens, i));
        if (c == 0)
            continue;
        /* The token before, the sentinel "\x00" before the first (unevaluated._Body's tok[-1]). */
        PyObject *before = i > 0 ? PyList_GET_ITEM(tokens, i - 1) : NULL;
        int opens_statements = 0;
        if (c == '(' || c == '[' || c == '{') {
            stack[depth++] = i;
            if (c == '(' && before != NULL && PyUnicode_CompareWithASCIIString(before, "for") == 0)
                opens_statements = 1;
            if (c == '{') {
                opens_statements = 1;
                inner = inner || (before != NULL && is_char(before, '('));
            }
        } else if (c == ')' || c == ']' || c == '}') {
            char want = c == ')' ? '(' : c == ']' ? '[' : '{';
            if (depth == 0 || bracket_of(PyList_GET_ITEM(tokens, stack[depth - 1])) != want) {
                paired = 0;
                break;
            }
            if (put_pair(match, stack[--depth], i) < 0)
                goto fail;
            opens_statements = c == '}';
        } else {
            opens_statements = 1;
        }
        if (opens_statements && append_new(starts, PyLong_FromSsize_t(i + 1)) < 0)
            goto fail;
    }
    PyMem_Free(stack);
    if (!paired || depth > 0)
        Py_SETREF(match, Py_NewRef(Py_None));
    return Py_BuildValue("(NNO)", match, starts, inner ? Py_True : Py_False);
fail:
    PyMem_Free(stack);
    Py_XDECREF(match);
    Py_XDECREF(starts);
    if (!PyErr_Occurred())
        PyErr_NoMemory();
    return NULL;
}

/* instances.folds_through_types(tokens, start, decls, type_words, condition_starts, assignments):
 * whether a const local that is no pointer, or a `?:` whose condition names no variable, follows
 * the body's `{` at `start`. tokens[i - 1] at i == 0 is the last token, as Python indexes. */
static int starts_word(PyObject *t) {  /* t[:1].isalpha() or t[:1] == "_" */
    if (PyUnicode_GET_LENGTH(t) == 0)
        return 0;
    Py_UCS4 c = PyUnicode_READ_CHAR(t, 0);
    return c == '_' || Py_UNICODE_ISALPHA(c);
}

static int is_ascii(PyObject *t, const char *s) {
    return PyUnicode_CompareWithASCIIString(t, s) == 0;
}

/* A const local that is no pointer from tokens[i] ("const"): 1, else 0, -1 on error. */
static int const_local(PyObject *tokens, Py_ssize_t i, Py_ssize_t n, PyObject *type_words) {
    Py_ssize_t j = i + 1;
    while (j < n) {
        PyObject *u = PyList_GET_ITEM(tokens, j);
        int typeish = PySet_Contains(type_words, u);
        if (typeish < 0)
            return -1;
        if (!(typeish || is_ascii(u, "static") || is_ascii(u, "register")) || is_char(u, '*'))
            break;
        j++;
    }
    if (j < n) {
        PyObject *u = PyList_GET_ITEM(tokens, j);
        return !is_char(u, '*') && starts_word(u);
    }
    return 0;
}

/* Whether the condition of the `?` at tokens[i] may be constant: 1, 0, -1 on error. */
static int constant_condition(PyObject *tokens, Py_ssize_t i, Py_ssize_t start, PyObject *decls,
                              PyObject *type_words, PyObject *condition_starts, PyObject *assignments) {
    Py_ssize_t depth = 0, k = i - 1;
    for (; k >= start; k--) {
        PyObject *u = PyList_GET_ITEM(tokens, k);
        if (is_char(u, ')') || is_char(u, ']')) {
            depth++;
            continue;
        }
        if (is_char(u, '(') || is_char(u, '[')) {
            if (depth == 0)
                break;
            depth--;
            continue;
        }
        if (depth == 0) {
            int ends = PySet_Contains(condition_starts, u);
            if (ends == 0)
                ends = PySet_Contains(assignments, u);
            if (ends < 0)
                return -1;
            if (ends)
                break;
        }
        if (starts_word(u) && !is_ascii(u, "sizeof")) {
            int known = PyDict_Contains(decls, u);
            if (known == 0)
                known = PySet_Contains(type_words, u);
            if (known < 0)
                return -1;
            if (!known)
                break;  /* a variable */
        }
    }
    if (k < start)
        return 1;
    PyObject *u = PyList_GET_ITEM(tokens, k);
    int got = PySet_Contains(condition_starts, u);
    if (got == 0)
        got = PySet_Contains(assignments, u);
    if (got == 0)
        got = is_char(u, '(') || is_char(u, '[');
    return got;
}

static PyObject *folds_through_types(PyObject *self, PyObject *args) {
    PyObject *tokens, *decls, *type_words, *condition_starts, *assignments;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "O!nO!O!O!O!:folds_through_types", &PyList_Type, &tokens, &start, &PyDict_Type,
                          &decls, &PyFrozenSet_Type, &type_words, &PyFrozenSet_Type, &condition_starts,
                          &PyFrozenSet_Type, &assignments)
            || all_tokens_str(tokens, "folds_through_types") < 0)
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(tokens);
    for (Py_ssize_t i = start < 0 ? 0 : start; i < n; i++) {
        PyObject *t = PyList_GET_ITEM(tokens, i);
        int got = 0;
        if (is_ascii(t, "const")) {
            if (!is_char(PyList_GET_ITEM(tokens, i > 0 ? i - 1 : n - 1), '*'))
                got = const_local(tokens, i, n, type_words);
        } else if (is_char(t, '?')) {
            got = constant_condition(tokens, i, start < 0 ? 0 : start, decls, type_words, condition_starts,
                                     assignments);
        }
        if (got < 0)
            return NULL;
        if (got)
            Py_RETURN_TRUE;
    }
    Py_RETURN_FALSE;
}

/* binding.spelling of each cursor: its text decoded strictly, None for libclang's NULL string. */
static PyObject *spellings(PyObject *self, PyObject *arg) {
    if (load() < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(arg, "_cwalk.spellings: not a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        CXCursor c;
        if (read_cursor(PySequence_Fast_GET_ITEM(seq, i), &c) < 0) {
            Py_CLEAR(out);
            break;
        }
        CXString s = lib.cursor_spelling(c);
        const char *text = lib.get_cstring(s);
        PyObject *name = text == NULL ? Py_NewRef(Py_None) : PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "strict");
        lib.dispose_string(s);
        if (name == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, name);
    }
    Py_DECREF(seq);
    return out;
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
    {"tokens", tokens, METH_O, "instances._TOKEN.findall of an ASCII text, in C; None for another."},
    {"literal_ranges", literal_ranges, METH_VARARGS, "instances.literal_ranges, in C."},
    {"write_tokens", write_tokens, METH_VARARGS, "instances.write_tokens, in C."},
    {"folds_through_types", folds_through_types, METH_VARARGS, "instances.folds_through_types, in C."},
    {"body_marks", body_marks, METH_VARARGS, "unevaluated.body_marks, in C."},
    {"spellings", spellings, METH_O, "binding.spellings, in C."},
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
    for (int c = 33; c < 127; c++) {
        char one = (char)c;
        if ((punctuators[c] = PyUnicode_FromStringAndSize(&one, 1)) == NULL)
            return NULL;
        PyUnicode_InternInPlace(&punctuators[c]);
    }
    if ((erased_token = PyUnicode_FromString("\x01")) == NULL || (str_sizeof = PyUnicode_InternFromString("sizeof")) == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    /* The digest of the source it was built from: native.py refuses a module built from another
     * (an editable install whose .c changed since). */
    if (m != NULL && PyModule_AddStringConstant(m, "SOURCE_DIGEST", REFCHECK_CWALK_SOURCE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
