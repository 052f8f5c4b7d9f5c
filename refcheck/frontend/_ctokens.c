/* The instance keys' tokens (refcheck/reuse/instances.py), in the _cwalk extension (issue 30,
 * step 3). tokens(text): instances._TOKEN.findall(text) for an ASCII text (None for any other:
 * the caller tokenizes it with the regex), the same alternatives in the same order. */

#include "_ctokens.h"


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

PyMethodDef ctokens_methods[] = {
    {"tokens", tokens, METH_O, "instances._TOKEN.findall of an ASCII text, in C; None for another."},
    {NULL, NULL, 0, NULL},
};

int ctokens_init(void) {
    for (int c = 33; c < 127; c++) {
        char one = (char)c;
        if ((punctuators[c] = PyUnicode_FromStringAndSize(&one, 1)) == NULL)
            return -1;
        PyUnicode_InternInPlace(&punctuators[c]);
    }
    return 0;
}
