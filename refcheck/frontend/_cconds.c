/* The instance keys' passes over a printed definition's `?:` and const locals (instances.py's
 * folds_through_types, shapes.py's named_conditional, unevaluated.py's in_arm), split from _ckeys.c
 * and linked into `_cwalk` beside it. Each is the twin of the Python function of the same name, its
 * order of steps kept; the Python one stays the fallback and the oracle of tests/test_native.py. */
#include "_ckeys.h"

#include <string.h>

/* instances.folds_through_types(tokens, start, decls, type_words, condition_starts, assignments):
 * whether a const local that is no pointer, or a `?:` whose condition names no variable, follows
 * the body's `{` at `start`. tokens[i - 1] at i == 0 is the last token, as Python indexes. */
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

/* shapes.named_conditional(tokens, type_names, names, qualifiers): whether some `?:` has an arm
 * holding `->`, `.`, `(`, a type name or a file-scope name, or a word that a declaration from a
 * type name declares (shapes._arms, _stop and _declared_with_type_names, step for step). */
static int is_open_bracket(PyObject *t) { return is_char(t, '(') || is_char(t, '[') || is_char(t, '{'); }
static int is_close_bracket(PyObject *t) { return is_char(t, ')') || is_char(t, ']') || is_char(t, '}'); }

static int is_one_of(PyObject *t, const char *chars) {
    if (PyUnicode_GET_LENGTH(t) != 1)
        return 0;
    Py_UCS4 c = PyUnicode_READ_CHAR(t, 0);
    return c != 0 && c < 128 && strchr(chars, (int)c) != NULL;
}

/* shapes._stop: brackets first, so an opening bracket among `stops` is never one. */
static Py_ssize_t stop_at(PyObject *tokens, Py_ssize_t k, const char *stops) {
    Py_ssize_t depth = 0, n = PyList_GET_SIZE(tokens);
    for (; k < n; k++) {
        PyObject *t = PyList_GET_ITEM(tokens, k);
        if (is_open_bracket(t)) {
            depth++;
        } else if (is_close_bracket(t)) {
            if (depth == 0)
                break;
            depth--;
        } else if (depth == 0 && is_one_of(t, stops)) {
            break;
        }
    }
    return k;
}

/* shapes._arms: the two arms of the `?` at tokens[q] as index ranges [r0, r1) and [r2, r3). */
static void arms_of(PyObject *tokens, Py_ssize_t q, Py_ssize_t r[4]) {
    Py_ssize_t n = PyList_GET_SIZE(tokens), depth = 0, pending = 0, j = q + 1;
    for (; j < n; j++) {
        PyObject *t = PyList_GET_ITEM(tokens, j);
        if (is_open_bracket(t)) {
            depth++;
        } else if (is_close_bracket(t)) {
            if (depth == 0) {
                r[0] = q + 1, r[1] = j, r[2] = r[3] = 0;
                return;
            }
            depth--;
        } else if (depth == 0 && is_char(t, '?')) {
            pending++;
        } else if (depth == 0 && is_char(t, ':')) {
            if (!pending)
                break;
            pending--;
        }
    }
    Py_ssize_t k = j + 1 < n ? stop_at(tokens, j + 1, ";,:") : n;
    r[0] = q + 1, r[1] = j < n ? j : n, r[2] = j + 1 < n ? j + 1 : n, r[3] = k;
}

/* 1 where a token of [a, b) decides the answer (a member access, a call, a cast, a type or
 * file-scope name), else 0 with the words added to `words`; -1 on error. */
static int arm_names(PyObject *tokens, Py_ssize_t a, Py_ssize_t b, PyObject *type_names, PyObject *names,
                     PyObject *words) {
    for (Py_ssize_t m = a; m < b; m++) {
        PyObject *u = PyList_GET_ITEM(tokens, m);
        if (is_ascii(u, "->") || is_char(u, '.') || is_char(u, '('))
            return 1;
        int got = PySequence_Contains(type_names, u);
        if (got == 0)
            got = PySequence_Contains(names, u);
        if (got != 0)
            return got;
        if (starts_word(u) && PySet_Add(words, u) < 0)
            return -1;
    }
    return 0;
}

/* Whether a word of `words` is in a declaration from a type name (_declared_with_type_names). */
static int declared_word(PyObject *tokens, PyObject *type_names, PyObject *qualifiers, PyObject *words) {
    Py_ssize_t n = PyList_GET_SIZE(tokens);
    for (Py_ssize_t i = 0; i < n; i++) {
        int got = PySequence_Contains(type_names, PyList_GET_ITEM(tokens, i));
        if (got <= 0) {
            if (got < 0)
                return -1;
            continue;
        }
        Py_ssize_t j = past_qualifiers(tokens, i + 1, qualifiers);
        if (j < 0)
            return -1;
        if (j >= n || !starts_word(PyList_GET_ITEM(tokens, j)))
            continue;
        if ((got = PySequence_Contains(type_names, PyList_GET_ITEM(tokens, j))) != 0) {
            if (got < 0)
                return -1;
            continue;  /* a cast or a sizeof, not a declaration */
        }
        Py_ssize_t e = stop_at(tokens, j, ";{");
        for (Py_ssize_t m = j; m < e; m++)
            if ((got = PySet_Contains(words, PyList_GET_ITEM(tokens, m))) != 0)
                return got;
    }
    return 0;
}

static PyObject *named_conditional(PyObject *self, PyObject *args) {
    PyObject *tokens, *type_names, *names, *qualifiers;
    if (!PyArg_ParseTuple(args, "O!OOO!:named_conditional", &PyList_Type, &tokens, &type_names, &names,
                          &PyFrozenSet_Type, &qualifiers)
            || all_tokens_str(tokens, "named_conditional") < 0)
        return NULL;
    PyObject *words = PySet_New(NULL);
    if (words == NULL)
        return NULL;
    int got = 0;
    for (Py_ssize_t q = 0; q < PyList_GET_SIZE(tokens) && got == 0; q++) {
        if (!is_char(PyList_GET_ITEM(tokens, q), '?'))
            continue;
        Py_ssize_t r[4];
        arms_of(tokens, q, r);
        got = arm_names(tokens, r[0], r[1], type_names, names, words);
        if (got == 0)
            got = arm_names(tokens, r[2], r[3], type_names, names, words);
    }
    if (got == 0 && PySet_GET_SIZE(words) > 0)
        got = declared_word(tokens, type_names, qualifiers, words);
    Py_DECREF(words);
    if (got < 0)
        return NULL;
    return PyBool_FromLong(got);
}

/* unevaluated.in_arm(tokens, match, start, o): whether the token at o may lie in an arm of a `?:`,
 * reading back over whole brackets (`match`: unevaluated.body_marks's) to the body's start. A
 * bracket `match` lacks raises KeyError, as the dict's lookup does in Python. */
static PyObject *in_arm(PyObject *self, PyObject *args) {
    PyObject *tokens, *match;
    Py_ssize_t start, o;
    if (!PyArg_ParseTuple(args, "O!O!nn:in_arm", &PyList_Type, &tokens, &PyDict_Type, &match, &start, &o)
            || all_tokens_str(tokens, "in_arm") < 0)
        return NULL;
    int skipping = 0;  /* past a `;`: the rest of this bracket is earlier statements */
    Py_ssize_t j = o - 1;
    while (j > start) {
        if (j >= PyList_GET_SIZE(tokens)) {
            PyErr_SetString(PyExc_IndexError, "in_arm: past the tokens");
            return NULL;
        }
        PyObject *t = PyList_GET_ITEM(tokens, j);
        if (is_close_bracket(t)) {
            PyObject *key = PyLong_FromSsize_t(j);
            PyObject *partner = key == NULL ? NULL : PyDict_GetItemWithError(match, key);  /* borrowed */
            if (partner == NULL && !PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, key);
            Py_XDECREF(key);
            if (partner == NULL)
                return NULL;
            j = PyLong_AsSsize_t(partner);
            if (j == -1 && PyErr_Occurred())
                return NULL;
            j -= 1;
            continue;
        }
        if (is_open_bracket(t)) {
            skipping = 0;
        } else if (!skipping) {
            if (is_char(t, '?'))
                Py_RETURN_TRUE;
            if (is_char(t, ';'))
                skipping = 1;
        }
        j--;
    }
    Py_RETURN_FALSE;
}

PyMethodDef cconds_methods[] = {
    {"folds_through_types", folds_through_types, METH_VARARGS, "instances.folds_through_types, in C."},
    {"named_conditional", named_conditional, METH_VARARGS, "shapes.named_conditional, in C."},
    {"in_arm", in_arm, METH_VARARGS, "unevaluated.in_arm, in C."},
    {NULL, NULL, 0, NULL},
};
