"""Generates a TH-style corpus of a chosen size, deterministic from a seed.

The layout follows TH (runtime/TH): a generic source per unit (generic/THBUnitNNNN.c) written
once with `real`, `THTensor` and `THTensor_(name)` and instantiated for five types by
THBGenerateAllTypes.h, which src/THBUnitNNNN.c includes. The functions mix what TH code does:
acquisitions (newContiguous, newClone, views), retain/free pairs, freeCopyTo, early exits,
THArgCheck/THError aborts, loops over views, switches and TH_TENSOR_APPLY loops. About one
function in twenty carries a planted bug (a leak on an early exit, or an owned result returned
from a function whose name does not begin with `new`); manifest.json lists each with its line
range, so every tool's findings can be scored against the same truth.

Size is counted in preprocessed project lines: the lines of each unit once its generic file is
instantiated for every type, plus the project headers it includes (system headers excluded).

    python benchmarks/corpus.py --kloc 100 --seed 1 --out benchmarks/results/corpus/100k
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
from dataclasses import asdict, dataclass, field

TYPES = [("Byte", "uint8_t", "int64_t"), ("Int", "int32_t", "int64_t"), ("Long", "int64_t", "int64_t"),
         ("Float", "float", "double"), ("Double", "double", "double")]
# Acquiring calls the generated code uses (all return a new reference).
NEW_FUNCS = ["new", "newWithTensor", "newWithSize1d", "newContiguous", "newClone", "newSelect",
             "newNarrow", "newTranspose"]
RELEASE_FUNCS = ["free", "freeCopyTo"]
FUNCTIONS_PER_UNIT = 16
BUG_RATE = 1 / 20


@dataclass
class Planted:
    file: str  # corpus-relative generic file
    function: str  # generic name, e.g. THTensor_(sum12)
    kind: str  # "leak" or "owned-return"
    first_line: int
    last_line: int


@dataclass
class Manifest:
    seed: int
    kloc_target: float
    units: list[str] = field(default_factory=list)  # corpus-relative unit paths
    generic_files: list[str] = field(default_factory=list)
    functions: int = 0  # instantiated function definitions (generic functions x types)
    lines: int = 0  # preprocessed project lines
    planted: list[Planted] = field(default_factory=list)
    include_dirs: list[str] = field(default_factory=lambda: ["include", "."])


HEADER = r"""#ifndef THB_INC
#define THB_INC
/* A compact TH (runtime/TH) for benchmarks: the same naming, generics and apply loop. */
#include <stddef.h>
#include <stdint.h>

/* clang --analyze's unix.Malloc reads ownership attributes (-DTHB_OWNERSHIP). */
#ifdef THB_OWNERSHIP
# define THB_OWNED __attribute__((ownership_returns(malloc)))
# define THB_TAKES __attribute__((ownership_takes(malloc, 1)))
#else
# define THB_OWNED
# define THB_TAKES
#endif

#define TH_CONCAT_3_EXPAND(x, y, z) x ## y ## z
#define TH_CONCAT_3(x, y, z) TH_CONCAT_3_EXPAND(x, y, z)
#define TH_CONCAT_4_EXPAND(x, y, z, w) x ## y ## z ## w
#define TH_CONCAT_4(x, y, z, w) TH_CONCAT_4_EXPAND(x, y, z, w)

__attribute__((noreturn)) void _THError(const char *file, int line, const char *fmt, ...);
__attribute__((noreturn)) void THArgError(const char *file, int line, int arg, const char *fmt, ...);
#define THError(...) _THError(__FILE__, __LINE__, __VA_ARGS__)
#define THArgCheck(COND, ARGN, ...) \
  do { if (!(COND)) THArgError(__FILE__, __LINE__, (ARGN), __VA_ARGS__); } while (0)

THB_OWNED void *THAlloc(ptrdiff_t size);
THB_TAKES void THFree(void *ptr);

#define THTensor TH_CONCAT_3(TH, Real, Tensor)
#define THTensor_(NAME) TH_CONCAT_4(TH, Real, Tensor_, NAME)

#define TH_GENERIC_FILE "THBGeneric.h"
#include "THBGenerateAllTypes.h"

/* TH_TENSOR_APPLY as in runtime/TH/THTensorApply.h: a counter THAlloc'd and THFree'd inside. */
#define THB_APPLY_DECLARE_(TYPE, T) \
  TYPE *T##_data = T->data + T->storageOffset; \
  int64_t *T##_counter = NULL; \
  int64_t T##_i = 0, T##_n = 1, T##_dim = 0; \
  for (T##_dim = 0; T##_dim < T->nDimension; T##_dim++) \
    T##_n *= T->size[T##_dim];

#define THB_APPLY_ADVANCE_(T) \
  for (T##_dim = T->nDimension - 2; T##_dim >= 0; T##_dim--) { \
    T##_counter[T##_dim]++; \
    T##_data += T->stride[T##_dim]; \
    if (T##_counter[T##_dim] != T->size[T##_dim]) \
      break; \
    T##_data -= T##_counter[T##_dim] * T->stride[T##_dim]; \
    T##_counter[T##_dim] = 0; \
  }

#define TH_TENSOR_APPLY(TYPE, T, CODE) \
{ \
  THB_APPLY_DECLARE_(TYPE, T) \
  T##_counter = (int64_t *)THAlloc(sizeof(int64_t) * (T->nDimension + 1)); \
  for (T##_dim = 0; T##_dim <= T->nDimension; T##_dim++) \
    T##_counter[T##_dim] = 0; \
  for (T##_i = 0; T##_i < T##_n; T##_i++) { \
    CODE \
    T##_data += T->nDimension ? T->stride[T->nDimension - 1] : 1; \
    if (T->nDimension > 1 && (T##_i + 1) % T->size[T->nDimension - 1] == 0) { \
      T##_data -= T->size[T->nDimension - 1] * T->stride[T->nDimension - 1]; \
      THB_APPLY_ADVANCE_(T) \
    } \
  } \
  THFree(T##_counter); \
}

#define TH_TENSOR_APPLY2(TYPE1, T1, TYPE2, T2, CODE) \
{ \
  THB_APPLY_DECLARE_(TYPE1, T1) \
  THB_APPLY_DECLARE_(TYPE2, T2) \
  if (T1##_n != T2##_n) \
    THError("inconsistent tensor size: %lld and %lld elements", (long long)T1##_n, (long long)T2##_n); \
  for (T1##_i = 0; T1##_i < T1##_n; T1##_i++, T2##_i++) { \
    CODE \
    T1##_data += T1->stride[T1->nDimension - 1]; \
    T2##_data += T2->stride[T2->nDimension - 1]; \
  } \
  THFree(T1##_counter); \
  THFree(T2##_counter); \
}

#endif
"""

GENERIC_HEADER = r"""#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "THBGeneric.h"
#else
typedef struct THTensor {
  int64_t *size;
  int64_t *stride;
  int nDimension;
  real *data;
  ptrdiff_t storageOffset;
  int refcount;
} THTensor;

THB_OWNED THTensor *THTensor_(new)(void);
THB_OWNED THTensor *THTensor_(newWithTensor)(THTensor *tensor);
THB_OWNED THTensor *THTensor_(newWithSize1d)(int64_t size0);
THB_OWNED THTensor *THTensor_(newContiguous)(THTensor *self);
THB_OWNED THTensor *THTensor_(newClone)(THTensor *self);
THB_OWNED THTensor *THTensor_(newSelect)(THTensor *tensor, int dimension, int64_t index);
THB_OWNED THTensor *THTensor_(newNarrow)(THTensor *tensor, int dimension, int64_t first, int64_t size);
THB_OWNED THTensor *THTensor_(newTranspose)(THTensor *tensor, int dimension1, int dimension2);
void THTensor_(retain)(THTensor *self);
THB_TAKES void THTensor_(free)(THTensor *self);
THB_TAKES void THTensor_(freeCopyTo)(THTensor *self, THTensor *dst);
int THTensor_(isContiguous)(const THTensor *self);
int THTensor_(nDimension)(const THTensor *self);
ptrdiff_t THTensor_(nElement)(const THTensor *self);
int64_t THTensor_(size)(const THTensor *self, int dim);
real *THTensor_(data)(THTensor *self);
void THTensor_(resizeAs)(THTensor *self, THTensor *src);
void THTensor_(copy)(THTensor *self, THTensor *src);
#endif
"""


def _generate_all_types() -> str:
    out = ["/* Instantiates TH_GENERIC_FILE once per type, as TH's THGenerateAllTypes.h. */"]
    for name, real, accreal in TYPES:
        out += [f"#define real {real}", f"#define accreal {accreal}", f"#define Real {name}",
                "#include TH_GENERIC_FILE", "#undef real", "#undef accreal", "#undef Real"]
    out.append("#undef TH_GENERIC_FILE")
    return "\n".join(out) + "\n"


# --- function templates: each returns (lines, generic name, bug kind or None) -------------------

def _filler(rng: random.Random, var: str) -> list[str]:
    """Plain arithmetic, so functions vary in length as real ones do."""
    return [f"  {var} = {var} * {rng.randint(2, 9)} + {rng.randint(1, 99)};"
            for _ in range(rng.randint(0, 4))]


def _t_contiguous(rng, k, bug):
    name = f"sum{k}"
    body = [f"accreal THTensor_({name})(THTensor *src, int64_t limit)", "{",
            '  THArgCheck(src->nDimension > 0, 1, "empty tensor");',
            "  THTensor *t = THTensor_(newContiguous)(src);",
            "  accreal acc = 0;",
            "  ptrdiff_t n = THTensor_(nElement)(t);",
            "  if (n == 0) {"]
    body += [] if bug else ["    THTensor_(free)(t);"]
    body += ["    return 0;", "  }", "  real *d = THTensor_(data)(t);",
             "  for (ptrdiff_t i = 0; i < n && i < limit; i++) {",
             f"    acc += (accreal)d[i] * {rng.randint(2, 7)};", "  }"]
    body += _filler(rng, "acc")
    body += ["  THTensor_(free)(t);", "  return acc;", "}"]
    return body, name, "leak" if bug else None


def _t_rows(rng, k, bug):
    name = f"rows{k}"
    body = [f"void THTensor_({name})(THTensor *self, THTensor *src, real value)", "{",
            "  int64_t rows = THTensor_(size)(src, 0);",
            "  for (int64_t i = 0; i < rows; i++) {",
            "    THTensor *row = THTensor_(newSelect)(src, 0, i);",
            "    if (THTensor_(nElement)(row) == 0) {"]
    body += [] if bug else ["      THTensor_(free)(row);"]
    body += ["      continue;", "    }",
             f"    TH_TENSOR_APPLY(real, row, *row_data = *row_data * value + {rng.randint(1, 9)};);",
             "    THTensor_(free)(row);", "  }",
             "  THTensor_(resizeAs)(self, src);", "}"]
    return body, name, "leak" if bug else None


def _t_new_scaled(rng, k, bug):
    # The bug: an owned result returned from a function whose name does not begin with `new`.
    name = f"scaled{k}" if bug else f"newScaled{k}"
    body = [f"THTensor *THTensor_({name})(THTensor *src, real s)", "{",
            "  THTensor *r = THTensor_(newClone)(src);",
            "  if (s == 0) {", "    return r;", "  }",
            "  TH_TENSOR_APPLY(real, r, *r_data *= s;);"]
    body += ["  int64_t steps = 1;"] + _filler(rng, "steps")
    body += ["  return r;", "}"]
    return body, name, "owned-return" if bug else None


def _t_add(rng, k, bug):
    name = f"add{k}"
    body = [f"void THTensor_({name})(THTensor *self, THTensor *a, THTensor *b)", "{",
            '  THArgCheck(THTensor_(nElement)(a) == THTensor_(nElement)(b), 2, "size mismatch");',
            "  THTensor *ca = THTensor_(newContiguous)(a);",
            "  THTensor *cb = THTensor_(newContiguous)(b);",
            "  THTensor *out = THTensor_(newClone)(ca);",
            f"  TH_TENSOR_APPLY2(real, out, real, cb, *out_data += *cb_data * {rng.randint(1, 5)};);",
            "  THTensor_(free)(ca);"]
    body += ["  if (THTensor_(nDimension)(self) == 0) {", "    THTensor_(free)(out);"]
    body += [] if bug else ["    THTensor_(free)(cb);"]
    body += ["    return;", "  }"]
    body += ["  THTensor_(free)(cb);", "  THTensor_(freeCopyTo)(out, self);", "}"]
    return body, name, "leak" if bug else None


def _t_dims(rng, k, bug):
    name = f"dims{k}"
    c = rng.randint(1, 5)
    body = [f"int64_t THTensor_({name})(THTensor *src, int mode)", "{",
            "  THTensor *v = NULL;",
            "  switch (THTensor_(nDimension)(src)) {",
            "  case 1:", "    v = THTensor_(newWithTensor)(src);", "    break;",
            "  case 2:", "    v = THTensor_(newTranspose)(src, 0, 1);", "    break;",
            "  case 3:", "    v = THTensor_(newNarrow)(src, 0, 0, 1);", "    break;",
            "  default:", '    THError("unsupported dimension count %d", THTensor_(nDimension)(src));',
            "  }",
            "  int64_t r = THTensor_(size)(v, 0);"]
    body += _filler(rng, "r")
    body += [f"  if (mode > {c}) {{"] + ([] if bug else ["    THTensor_(free)(v);"])
    body += ["    return r;", "  }", "  THTensor_(free)(v);", "  return r * 2;", "}"]
    return body, name, "leak" if bug else None


def _t_keep(rng, k, bug):
    name = f"keep{k}"
    body = [f"void THTensor_({name})(THTensor *self, THTensor *src, int flag)", "{",
            "  THTensor_(retain)(src);",
            "  if (flag < 0) {"] + ([] if bug else ["    THTensor_(free)(src);"])
    body += ["    return;", "  }",
             "  if (flag > 0 && !THTensor_(isContiguous)(self)) {",
             "    THTensor_(resizeAs)(self, src);", "  }",
             "  THTensor_(copy)(self, src);", "  THTensor_(free)(src);", "}"]
    return body, name, "leak" if bug else None


def _t_window(rng, k, bug):
    name = f"window{k}"
    body = [f"accreal THTensor_({name})(THTensor *src, int64_t w)", "{",
            '  THArgCheck(w > 0, 2, "window must be positive");',
            "  accreal best = 0;",
            "  int64_t n = THTensor_(size)(src, 0);",
            "  for (int64_t i = 0; i + w <= n; i += w) {",
            "    THTensor *win = THTensor_(newNarrow)(src, 0, i, w);",
            "    accreal s = 0;",
            "    TH_TENSOR_APPLY(real, win, s += *win_data;);",
            f"    if (s < -{rng.randint(1, 1000)}) {{"] + ([] if bug else ["      THTensor_(free)(win);"])
    body += ["      return s;", "    }", "    if (s > best)", "      best = s;",
             "    THTensor_(free)(win);", "  }"]
    body += _filler(rng, "best")
    body += ["  return best;", "}"]
    return body, name, "leak" if bug else None


def _t_accessor(rng, k, bug):
    # No references at all, as most small TH helpers; never buggy.
    name = f"scale{k}"
    body = [f"static real THTensor_({name})(const THTensor *self, int64_t i)", "{",
            "  int64_t x = i;"] + _filler(rng, "x")
    body += ["  return self->data[self->storageOffset + x % (THTensor_(nElement)(self) + 1)];", "}"]
    return body, name, None


TEMPLATES = [_t_contiguous, _t_rows, _t_new_scaled, _t_add, _t_dims, _t_keep, _t_window, _t_accessor]


def generic_file(rng: random.Random, unit: int, functions: int) -> tuple[list[str], list[Planted]]:
    rel = f"generic/THBUnit{unit:04d}.c"
    lines = ["#ifndef TH_GENERIC_FILE", f'#define TH_GENERIC_FILE "{rel}"', "#else", ""]
    planted = []
    for i in range(functions):
        template = rng.choice(TEMPLATES)
        bug = template is not _t_accessor and rng.random() < BUG_RATE
        body, name, kind = template(rng, unit * 1000 + i, bug)
        first = len(lines) + 1
        lines += body + [""]
        if kind:
            planted.append(Planted(rel, f"THTensor_({name})", kind, first, first + len(body) - 1))
    lines.append("#endif")
    return lines, planted


def _count(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


def generate(out: str, kloc: float, seed: int = 1) -> Manifest:
    """Writes a corpus of about `kloc` thousand preprocessed lines to `out` (replaced if present)."""
    if kloc <= 0:
        raise ValueError("kloc must be positive")
    rng = random.Random(seed)
    if os.path.isdir(out):
        shutil.rmtree(out)
    for d in ("include", "src", "generic"):
        os.makedirs(os.path.join(out, d))
    headers = {"include/THB.h": HEADER, "include/THBGeneric.h": GENERIC_HEADER,
               "include/THBGenerateAllTypes.h": _generate_all_types()}
    for rel, text in headers.items():
        _write(out, rel, text)
    # Per unit: the headers, the generic declarations once per type, the unit's own lines.
    header_lines = (_count(HEADER) + _count(headers["include/THBGenerateAllTypes.h"]) * 2
                    + _count(GENERIC_HEADER) * len(TYPES))
    manifest = Manifest(seed=seed, kloc_target=kloc)
    target = kloc * 1000
    unit = 0
    while manifest.lines < target or unit < 2:
        lines, planted = generic_file(rng, unit, FUNCTIONS_PER_UNIT)
        generic_rel = f"generic/THBUnit{unit:04d}.c"
        unit_rel = f"src/THBUnit{unit:04d}.c"
        unit_text = f'#include "THB.h"\n#define TH_GENERIC_FILE "{generic_rel}"\n#include "THBGenerateAllTypes.h"\n'
        _write(out, generic_rel, "\n".join(lines) + "\n")
        _write(out, unit_rel, unit_text)
        manifest.units.append(unit_rel)
        manifest.generic_files.append(generic_rel)
        manifest.planted += planted
        manifest.functions += FUNCTIONS_PER_UNIT * len(TYPES)
        manifest.lines += header_lines + _count(unit_text) + _count("\n".join(lines)) * len(TYPES)
        unit += 1
    # The corpus checks with refcheck's defaults once it knows where the headers are.
    _write(out, "refcheck.toml", 'include-dirs = ["include", "."]\n')
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(asdict(manifest), f, indent=1)
    return manifest


def load_manifest(corpus: str) -> Manifest:
    with open(os.path.join(corpus, "manifest.json"), encoding="utf-8") as f:
        d = json.load(f)
    d["planted"] = [Planted(**p) for p in d["planted"]]
    return Manifest(**d)


def _write(root: str, rel: str, text: str) -> None:
    with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
        f.write(text)


def parse_size(text: str) -> float:
    """'10k' -> 10, '1m' -> 1000, '250' -> 250 (KLOC)."""
    t = text.strip().lower()
    try:
        if t.endswith("m"):
            return float(t[:-1]) * 1000
        if t.endswith("k"):
            return float(t[:-1])
        return float(t)
    except ValueError:
        raise ValueError(f"bad size {text!r} (expected e.g. 10k, 100k, 1m)") from None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kloc", required=True, help="size: 10k, 100k, 1m (thousands of lines)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True, help="directory to (re)create")
    a = p.parse_args(argv)
    try:
        size = parse_size(a.kloc)
        m = generate(a.out, size, a.seed)
    except (ValueError, OSError) as e:
        print(f"corpus: error: {e}", file=sys.stderr)
        return 2
    print(f"{a.out}: {len(m.units)} units, {m.functions} functions, {m.lines} lines, "
          f"{len(m.planted)} planted bugs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
