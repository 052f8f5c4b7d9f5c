/* The instance keys' passes over a printed definition's tokens (refcheck/reuse/instances.py,
 * unevaluated.py, shapes.py), compiled into the `_cwalk` module beside the libclang walk (setup.py
 * builds both files as one extension; native.py chooses both or neither). Each function is the
 * twin of a Python function of the same name, its order of steps kept: the Python one stays the
 * fallback (no compiler, REFCHECK_PURE_PYTHON=1) and the oracle tests/test_native.py compares
 * with. They read lists of str with set and dict lookups and call back into Python only for a
 * type name's shape. */
#include "_ckeys.h"

#include <string.h>

/* literal_ranges(tokens, type_words): instances.literal_ranges, the casts' and `sizeof(type)`s'
 * token ranges. write_tokens(...): instances.write_tokens, the loop that spells the tokens as the
 * key does. */

static PyObject *erased_token;  /* ctokens.ERASED_TOKEN, "\x01" */
static PyObject *str_sizeof;

static int append_new(PyObject *list, PyObject *item) {  /* steals item */
    if (item == NULL)
        return -1;
    int bad = PyList_Append(list, item);
    Py_DECREF(item);
    return bad;
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

/* shapes.result_position: whether the type name at tokens[i] starts a function type's result. */
static int result_position(PyObject *tokens, Py_ssize_t i, PyObject *qualifiers) {
    Py_ssize_t n = PyList_GET_SIZE(tokens), j = past_qualifiers(tokens, i + 1, qualifiers);
    if (j < 0)
        return -1;
    if (j < n && is_char(PyList_GET_ITEM(tokens, j), '('))
        return 1;
    return j + 1 < n && starts_word(PyList_GET_ITEM(tokens, j)) && is_char(PyList_GET_ITEM(tokens, j + 1), '(');
}

/* The shape's token of type name t (borrowed from the cache; Py_None where it has none), asked of
 * shape_of(t, literal) once per unit: `shapes` is (shape_of, cache by (name, literal)). */
static PyObject *shape_token(PyObject *shapes, PyObject *t, PyObject *lit) {
    PyObject *cache = PyTuple_GET_ITEM(shapes, 1);
    PyObject *key = PyTuple_Pack(2, t, lit);
    if (key == NULL)
        return NULL;
    PyObject *got = PyDict_GetItemWithError(cache, key);  /* borrowed */
    if (got == NULL && !PyErr_Occurred()) {
        PyObject *fresh = PyObject_CallFunctionObjArgs(PyTuple_GET_ITEM(shapes, 0), t, lit, NULL);
        if (fresh != NULL && PyDict_SetItem(cache, key, fresh) == 0)
            got = fresh;  /* the cache holds it */
        Py_XDECREF(fresh);
    }
    Py_DECREF(key);
    return got;
}

/* A file-scope name: its shape's token where it is a type name with one outside a result
 * position, else its number (given on first appearance), its declarations queued. */
static int write_name(PyObject *out, PyObject *tokens, Py_ssize_t i, PyObject *t, int literal,
                      PyObject *type_names, PyObject *numbers, PyObject *queue, PyObject *shapes,
                      PyObject *qualifiers, long depth) {
    PyObject *lit = literal ? Py_True : Py_False;
    if (shapes != Py_None && depth > 0) {
        int named = PySequence_Contains(type_names, t);
        if (named > 0) {
            int result = result_position(tokens, i, qualifiers);
            named = result < 0 ? -1 : !result;
        }
        if (named < 0)
            return -1;
        if (named) {
            PyObject *got = shape_token(shapes, t, lit);
            if (got == NULL)
                return -1;
            if (got != Py_None)
                return PyList_Append(out, got);
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
    PyObject *tokens, *literal, *erased, *decls, *type_names, *numbers, *queue, *runs, *shapes, *qualifiers;
    int erase, keep_all, braced;
    if (!PyArg_ParseTuple(args, "O!pOpO!O!OO!O!OOpO!:write_tokens", &PyList_Type, &tokens, &erase, &literal,
                          &keep_all, &PyFrozenSet_Type, &erased, &PyDict_Type, &decls, &type_names, &PyDict_Type,
                          &numbers, &PyList_Type, &queue, &runs, &shapes, &braced, &PyFrozenSet_Type, &qualifiers)
            || all_tokens_str(tokens, "write_tokens") < 0)
        return NULL;
    if (runs != Py_None && !PyList_Check(runs)) {
        PyErr_SetString(PyExc_TypeError, "write_tokens: runs must be None or a list");
        return NULL;
    }
    if (shapes != Py_None && !(PyTuple_Check(shapes) && PyTuple_GET_SIZE(shapes) == 2
                               && PyCallable_Check(PyTuple_GET_ITEM(shapes, 0)) && PyDict_Check(PyTuple_GET_ITEM(shapes, 1)))) {
        PyErr_SetString(PyExc_TypeError, "write_tokens: shapes must be None or (shape_of, dict)");
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
            if (write_name(out, toks, i, t, lit, type_names, numbers, queue, shapes, qualifiers, depth) < 0)
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

PyMethodDef ckeys_methods[] = {
    {"literal_ranges", literal_ranges, METH_VARARGS, "instances.literal_ranges, in C."},
    {"write_tokens", write_tokens, METH_VARARGS, "instances.write_tokens, in C."},
    {"body_marks", body_marks, METH_VARARGS, "unevaluated.body_marks, in C."},
    {NULL, NULL, 0, NULL},
};

int ckeys_init(void) {
    erased_token = PyUnicode_FromString("\x01");  /* ctokens.ERASED_TOKEN */
    str_sizeof = PyUnicode_InternFromString("sizeof");
    return erased_token == NULL || str_sizeof == NULL ? -1 : 0;
}
