/* What _cwalk.c shares with the queries beside it (_cquery.c, _cseqs.c): libclang's stable C ABI (the few
 * structs and function types refcheck calls, clang-c/Index.h and CXString.h), the table of libclang
 * functions the loader fills, and the helpers every query reads a cursor through. */
#ifndef REFCHECK_CWALK_H
#define REFCHECK_CWALK_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>

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
typedef int (*in_system_header_fn)(CXSourceLocation);
typedef unsigned (*is_definition_fn)(CXCursor);
typedef int (*operator_kind_fn)(CXCursor);

/* The order of the addresses the loader returns (binding._NATIVE_FUNCTIONS). */
typedef struct {
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
    in_system_header_fn in_system_header;
    operator_kind_fn binary_operator;
    operator_kind_fn unary_operator;
    is_definition_fn is_definition;
} Lib;
#define N_FUNCTIONS 25

extern Lib lib;
extern PyObject *cursor_type;  /* clang.cindex.Cursor, a ctypes Structure of one CXCursor */
extern PyObject *str_tu;

int load(void);
int read_cursor(PyObject *obj, CXCursor *out);
PyObject *new_cursor(const CXCursor *c);
int lookup_attr(PyObject *obj, PyObject *name, PyObject **out);

extern PyMethodDef cquery_methods[];
int cquery_init(void);
extern PyMethodDef cseqs_methods[];  /* _cseqs.c */
extern PyMethodDef cgraph_methods[];  /* _cgraph.c: the class key's writer */

/* The kind ids a cursor can have, as a table's size (CXCursorKind stays below 1024). */
#define MAX_KIND 1024
/* Marks in `wanted` (MAX_KIND flags) the kind ids the iterable `kinds` names, ids outside the
 * table ignored: 0, or -1 with an error set. */
int read_kinds(PyObject *kinds, char *wanted);
/* A cursor's spelling decoded strictly, None for libclang's NULL string (binding.spelling). */
PyObject *spelling_of(CXCursor c);

#endif
