/* The class key's writer (refcheck/reuse/renaming.py `_Writer.value` and its per-class emitters)
 * in C: a built graph's values appended to the key's list of pieces, the same pieces joined to the
 * same text. The key's cost was a Python call per value of every op of every graph (about 1.6 ms a
 * graph on torch7's THTensor.c, 0.37 s of its check). Linked into `_cwalk`; renaming.py keeps the
 * Python writer as the fallback and the oracle (tests/test_native.py). Needs no libclang. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_cwalk.h"

/* The text written so far, UTF-8, made one str at the end: one object per call, not one per piece. */
typedef struct {
    char *p;
    size_t n, cap;
} Buffer;

/* What a call writes with: the text, the sets (compared apart), the IR's classes by type
 * (-> ("%code(", field names)), the Location class, the files' codes and the function that gives a
 * new file one, and the one that describes a class not met yet (None where it is no dataclass). */
typedef struct {
    Buffer b;
    PyObject *sets, *classes, *location, *codes, *code, *describe;
} Env;

/* 0 written, 1 the key cannot describe it (renaming._Unshared, or a string holding a delimiter), -1 an error. */
static int write_value(Env *e, PyObject *v);

static int put(Env *e, const char *s, size_t n) {
    if (e->b.n + n > e->b.cap) {
        size_t cap = e->b.cap ? e->b.cap : 4096;
        while (cap < e->b.n + n)
            cap *= 2;
        char *p = PyMem_Realloc(e->b.p, cap);
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        e->b.p = p, e->b.cap = cap;
    }
    memcpy(e->b.p + e->b.n, s, n);
    e->b.n += n;
    return 0;
}

/* str(x) of an object the key formats (an int, a node): small ints without a str object. */
static int put_str(Env *e, PyObject *x) {
    if (PyLong_CheckExact(x)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (!overflow && !(v == -1 && PyErr_Occurred())) {
            char digits[32];
            int n = snprintf(digits, sizeof digits, "%lld", v);
            return put(e, digits, (size_t)n);
        }
        PyErr_Clear();
    }
    PyObject *text = PyObject_Str(x);
    if (text == NULL)
        return -1;
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(text, &n);
    int r = u == NULL ? -1 : put(e, u, (size_t)n);
    Py_DECREF(text);
    return r;
}

/* renaming._code(x): the process's code of a file, node kind or edge attribute (`codes.get(x) or code(x)`). */
static int put_code(Env *e, PyObject *x) {
    PyObject *got = PyDict_GetItemWithError(e->codes, x);  /* borrowed; codes start at 1 */
    if (got != NULL)
        return put_str(e, got);
    if (PyErr_Occurred() || (got = PyObject_CallOneArg(e->code, x)) == NULL)
        return -1;
    int r = put_str(e, got);
    Py_DECREF(got);
    return r;
}

static int write_location(Env *e, PyObject *v) {
    static PyObject *names[3];
    if (names[0] == NULL) {
        const char *texts[3] = {"file", "line", "column"};
        for (int i = 0; i < 3; i++)
            if ((names[i] = PyUnicode_InternFromString(texts[i])) == NULL)
                return -1;
    }
    int r = put(e, "@", 1);
    for (int i = 0; r == 0 && i < 3; i++) {
        PyObject *x = PyObject_GetAttr(v, names[i]);
        if (x == NULL)
            return -1;
        r = i == 0 ? put_code(e, x) : put(e, ":", 1) < 0 ? -1 : put_str(e, x);
        Py_DECREF(x);
    }
    return r;
}

static int write_string(Env *e, PyObject *v) {
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(v, &n);
    if (u == NULL) {  /* a lone surrogate: no UTF-8 for it, so no key (never a wrong one) */
        PyErr_Clear();
        return 1;
    }
    if (memchr(u, 0x02, (size_t)n) != NULL || memchr(u, 0x03, (size_t)n) != NULL)
        return 1;  /* a string holding a delimiter would make the layout ambiguous */
    if (put(e, "\x02", 1) < 0 || put(e, u, (size_t)n) < 0)
        return -1;
    return put(e, "\x03", 1);
}

static int write_instance(Env *e, PyObject *v, PyObject *described) {
    PyObject *prefix = PyTuple_GET_ITEM(described, 0), *names = PyTuple_GET_ITEM(described, 1);
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(prefix, &n);
    if (u == NULL || put(e, u, (size_t)n) < 0)
        return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *x = PyObject_GetAttr(v, PyTuple_GET_ITEM(names, i));
        if (x == NULL)
            return -1;
        int r = write_value(e, x);
        Py_DECREF(x);
        if (r)
            return r;
    }
    return put(e, ")", 1);
}

static int write_value(Env *e, PyObject *v) {
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyUnicode_Type)
        return write_string(e, v);
    if (v == Py_None)
        return put(e, "!0", 2);
    if (t == &PyBool_Type)
        return put(e, v == Py_True ? "!1" : "!2", 2);
    if (t == &PyLong_Type)
        return put(e, "=", 1) < 0 ? -1 : put_str(e, v);
    if (t == &PyFloat_Type) {  /* its bits, as struct.unpack('<q', struct.pack('<d', v)) */
        double d = PyFloat_AS_DOUBLE(v);
        int64_t bits;
        memcpy(&bits, &d, sizeof bits);
        char digits[40];
        int n = snprintf(digits, sizeof digits, "=%lld.", (long long)bits);
        return put(e, digits, (size_t)n);
    }
    if ((PyObject *)t == e->location)
        return write_location(e, v);
    if (t == &PyTuple_Type || t == &PyList_Type) {
        if (put(e, t == &PyTuple_Type ? "(" : "[", 1) < 0 || Py_EnterRecursiveCall(" in the class key's writer"))
            return -1;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(v); i++) {
            int r = write_value(e, PySequence_Fast_GET_ITEM(v, i));
            if (r) {
                Py_LeaveRecursiveCall();
                return r;
            }
        }
        Py_LeaveRecursiveCall();
        return put(e, ")", 1);
    }
    if (t == &PyFrozenSet_Type) {
        char digits[32];
        int n = snprintf(digits, sizeof digits, "&%zd", PyList_GET_SIZE(e->sets));
        if (put(e, digits, (size_t)n) < 0)
            return -1;
        return PyList_Append(e->sets, v);
    }
    PyObject *described = PyDict_GetItemWithError(e->classes, (PyObject *)t);  /* borrowed */
    if (described == NULL) {
        if (PyErr_Occurred())
            return -1;
        described = PyObject_CallOneArg(e->describe, (PyObject *)t);
        if (described == NULL)
            return -1;
        Py_DECREF(described);  /* `describe` keeps it in `classes` */
        if (described == Py_None)
            return 1;
    }
    if (!PyTuple_Check(described) || PyTuple_GET_SIZE(described) != 2 || !PyUnicode_Check(PyTuple_GET_ITEM(described, 0))
        || !PyTuple_Check(PyTuple_GET_ITEM(described, 1))) {
        PyErr_SetString(PyExc_TypeError, "_cwalk.write_values: a class's description is not (prefix, names)");
        return -1;
    }
    if (Py_EnterRecursiveCall(" in the class key's writer"))
        return -1;
    int r = write_instance(e, v, described);
    Py_LeaveRecursiveCall();
    return r;
}

/* Reads write_values' and write_graph's `env` into `e`: 0, or -1 with an error set. */
static int read_env(PyObject *env, Env *e) {
    return PyArg_ParseTuple(env, "O!OO!OO", &PyDict_Type, &e->classes, &e->location, &PyDict_Type, &e->codes,
                            &e->code, &e->describe) ? 0 : -1;
}

/* The end of a call: `r` 0 appends the text to `out` (True), 1 answers False, -1 the error. */
static PyObject *finish(Env *e, int r, PyObject *out) {
    PyObject *got = NULL;
    if (r == 0) {
        PyObject *text = PyUnicode_DecodeUTF8(e->b.p ? e->b.p : "", (Py_ssize_t)e->b.n, "strict");
        if (text != NULL && PyList_Append(out, text) == 0)
            got = Py_NewRef(Py_True);
        Py_XDECREF(text);
    } else if (r > 0) {
        got = Py_NewRef(Py_False);
    }
    PyMem_Free(e->b.p);
    return got;
}

/* write_values(values, out, sets, env): each of `values` written in turn (renaming._Writer.value),
 * as one piece appended to `out`; env = (classes, Location, codes, code, describe). True where
 * every one was written, False where one cannot be described (the key is unshared). */
static PyObject *write_values(PyObject *self, PyObject *args) {
    PyObject *values, *out, *sets, *env;
    if (!PyArg_ParseTuple(args, "O!O!O!O!", &PyTuple_Type, &values, &PyList_Type, &out, &PyList_Type, &sets,
                          &PyTuple_Type, &env))
        return NULL;
    Env e = {{NULL, 0, 0}, sets};
    if (read_env(env, &e) < 0)
        return NULL;
    int r = 0;
    for (Py_ssize_t i = 0; r == 0 && i < PyTuple_GET_SIZE(values); i++)
        r = write_value(&e, PyTuple_GET_ITEM(values, i));
    return finish(&e, r, out);
}

/* A dict's keys as a list, sorted where it has several (class_key's `sorted(e) if len(e) > 1 else e`). */
static PyObject *keys_in_order(PyObject *d) {
    PyObject *keys = PyDict_Keys(d);
    if (keys != NULL && PyList_GET_SIZE(keys) > 1 && PyList_Sort(keys) < 0)
        Py_CLEAR(keys);
    return keys;
}

/* One edge's attributes, in order: `^code` and the value of each. */
static int write_attributes(Env *e, PyObject *attrs) {
    if (!PyDict_Check(attrs)) {
        PyErr_SetString(PyExc_TypeError, "_cwalk.write_graph: an edge's attributes are not a dict");
        return -1;
    }
    PyObject *ks = keys_in_order(attrs);
    if (ks == NULL)
        return -1;
    int r = 0;
    for (Py_ssize_t j = 0; r == 0 && j < PyList_GET_SIZE(ks); j++) {
        PyObject *k = PyList_GET_ITEM(ks, j), *v;
        r = put(e, "^", 1) < 0 || put_code(e, k) < 0 ? -1 : 0;
        if (r == 0)
            r = (v = PyDict_GetItemWithError(attrs, k)) == NULL ? -1 : write_value(e, v);
    }
    if (r < 0 && !PyErr_Occurred())
        PyErr_SetObject(PyExc_KeyError, attrs);
    Py_DECREF(ks);
    return r;
}

/* One node of the graph and its out-edges, as class_key's loop writes them. */
static int write_node(Env *e, PyObject *n, PyObject *edges, PyObject *data, PyObject *node_type) {
    static PyObject *names[7];
    if (names[0] == NULL) {
        const char *texts[7] = {"kind", "loc", "ops", "cond", "value", "post", "text"};
        for (int i = 0; i < 7; i++)
            if ((names[i] = PyUnicode_InternFromString(texts[i])) == NULL)
                return -1;
    }
    PyObject *d = PyDict_GetItemWithError(data, n);  /* borrowed */
    if (d == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetObject(PyExc_KeyError, n);
        return -1;
    }
    int r = put(e, "\n=", 2) < 0 || put_str(e, n) < 0 ? -1 : 0;
    if (r == 0 && (PyObject *)Py_TYPE(d) == node_type) {  /* its kind is structure, not a name: a code */
        PyObject *kind = PyObject_GetAttr(d, names[0]);
        r = kind == NULL || put(e, "^", 1) < 0 || put_code(e, kind) < 0 ? -1 : 0;
        Py_XDECREF(kind);
        for (int i = 1; r == 0 && i < 7; i++) {
            PyObject *x = PyObject_GetAttr(d, names[i]);
            r = x == NULL ? -1 : write_value(e, x);
            Py_XDECREF(x);
        }
    } else if (r == 0) {
        r = write_value(e, d);
    }
    if (r)
        return r;
    if (!PyDict_Check(edges)) {
        PyErr_SetString(PyExc_TypeError, "_cwalk.write_graph: a node's edges are not a dict");
        return -1;
    }
    PyObject *targets = keys_in_order(edges);
    if (targets == NULL)
        return -1;
    for (Py_ssize_t i = 0; r == 0 && i < PyList_GET_SIZE(targets); i++) {
        PyObject *s = PyList_GET_ITEM(targets, i), *attrs;
        r = put(e, ">", 1) < 0 || put_str(e, s) < 0 ? -1 : 0;
        if (r == 0)
            r = (attrs = PyDict_GetItemWithError(edges, s)) == NULL ? -1 : write_attributes(e, attrs);
    }
    Py_DECREF(targets);
    return r;
}

/* write_graph(adjacency, data, Node, out, sets, env): class_key's loop over the graph's nodes
 * (`adjacency`: [(node, {successor: {attribute: value}})] in order, `data`: node -> its data),
 * as one piece appended to `out`: True where every value was written, False where one cannot be
 * described. */
static PyObject *write_graph(PyObject *self, PyObject *args) {
    PyObject *adjacency, *data, *node_type, *out, *sets, *env;
    if (!PyArg_ParseTuple(args, "O!O!OO!O!O!", &PyList_Type, &adjacency, &PyDict_Type, &data, &node_type,
                          &PyList_Type, &out, &PyList_Type, &sets, &PyTuple_Type, &env))
        return NULL;
    Env e = {{NULL, 0, 0}, sets};
    if (read_env(env, &e) < 0)
        return NULL;
    int r = 0;
    for (Py_ssize_t i = 0; r == 0 && i < PyList_GET_SIZE(adjacency); i++) {
        PyObject *item = PyList_GET_ITEM(adjacency, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
            PyErr_SetString(PyExc_TypeError, "_cwalk.write_graph: an adjacency item is not (node, edges)");
            r = -1;
        } else {
            r = write_node(&e, PyTuple_GET_ITEM(item, 0), PyTuple_GET_ITEM(item, 1), data, node_type);
        }
    }
    return finish(&e, r, out);
}

static int starts_name(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '$';
}

static int in_name(unsigned char c) {
    return starts_name(c) || (c >= '0' && c <= '9');
}

/* numbered(text): renaming._numbered for ASCII text, None for any other. The names are
 * renaming.TOKEN's matches, `[A-Za-z_$][\w$]*(?:#\d+)?`, found leftmost first as re.split finds
 * them: (the text with each replaced by \x00, each one's number in order of first appearance,
 * name -> number). */
static PyObject *numbered(PyObject *self, PyObject *arg) {
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "_cwalk.numbered: not a str");
        return NULL;
    }
    if (!PyUnicode_IS_ASCII(arg))
        Py_RETURN_NONE;
    const unsigned char *t = (const unsigned char *)PyUnicode_DATA(arg);
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg);
    char *layout = PyMem_Malloc((size_t)n + 1);
    PyObject *numbers = PyList_New(0), *index = PyDict_New(), *got = NULL;
    if (layout == NULL || numbers == NULL || index == NULL) {
        if (layout == NULL)
            PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t k = 0, i = 0;
    while (i < n) {
        if (!starts_name(t[i])) {
            layout[k++] = (char)t[i++];
            continue;
        }
        Py_ssize_t j = i + 1;
        while (j < n && in_name(t[j]))
            j++;
        if (j + 1 < n && t[j] == '#' && t[j + 1] >= '0' && t[j + 1] <= '9') {
            j += 2;
            while (j < n && t[j] >= '0' && t[j] <= '9')
                j++;
        }
        PyObject *name = PyUnicode_FromStringAndSize((const char *)t + i, j - i);
        if (name == NULL)
            goto done;
        PyObject *number = PyDict_GetItemWithError(index, name);  /* borrowed */
        if (number == NULL && !PyErr_Occurred()) {
            number = PyLong_FromSsize_t(PyDict_GET_SIZE(index));
            if (number != NULL && PyDict_SetItem(index, name, number) < 0)
                Py_CLEAR(number);
            Py_XDECREF(number);  /* the dict holds it */
        }
        Py_DECREF(name);
        if (number == NULL || PyList_Append(numbers, number) < 0)
            goto done;
        layout[k++] = '\0';
        i = j;
    }
    PyObject *text = PyUnicode_DecodeASCII(layout, k, "strict"), *tuple = text ? PyList_AsTuple(numbers) : NULL;
    if (tuple != NULL)
        got = PyTuple_Pack(3, text, tuple, index);
    Py_XDECREF(text);
    Py_XDECREF(tuple);
done:
    PyMem_Free(layout);
    Py_XDECREF(numbers);
    Py_XDECREF(index);
    return got;
}

PyMethodDef cgraph_methods[] = {
    {"write_values", write_values, METH_VARARGS, "renaming._Writer.value over a tuple of values, in C."},
    {"write_graph", write_graph, METH_VARARGS, "renaming.class_key's loop over a graph's nodes and edges, in C."},
    {"numbered", numbered, METH_O, "renaming._numbered for ASCII text, in C."},
    {NULL, NULL, 0, NULL},
};
