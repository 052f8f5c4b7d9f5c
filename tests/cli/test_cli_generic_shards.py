"""A TH-style generic unit split over two workers gives what one worker gives it: the helper's
inferred summary is learnt on one instantiation and reaches its twins renamed, its family
included (the THNN `view_weight` helpers gave RC011 at -j2 when the Double twin's result kept the
Float representative's `THFloatTensor` family)."""

from __future__ import annotations

import json

import pytest

from refcheck.driver import forking

pytestmark = pytest.mark.skipif(not forking.available(), reason="no os.fork")

HEADER = """
typedef struct THFloatTensor { int refcount; int nDimension; float *data; } THFloatTensor;
typedef struct THDoubleTensor { int refcount; int nDimension; double *data; } THDoubleTensor;
THFloatTensor *THFloatTensor_newContiguous(THFloatTensor *t);
THFloatTensor *THFloatTensor_newWithSize1d(long n);
void THFloatTensor_free(THFloatTensor *t);
THDoubleTensor *THDoubleTensor_newContiguous(THDoubleTensor *t);
THDoubleTensor *THDoubleTensor_newWithSize1d(long n);
void THDoubleTensor_free(THDoubleTensor *t);
#define TH_CONCAT_4_EXPAND(x,y,z,w) x ## y ## z ## w
#define TH_CONCAT_4(x,y,z,w) TH_CONCAT_4_EXPAND(x,y,z,w)
#define TH_CONCAT_3_EXPAND(x,y,z) x ## y ## z
#define TH_CONCAT_3(x,y,z) TH_CONCAT_3_EXPAND(x,y,z)
#define THTensor TH_CONCAT_3(TH,Real,Tensor)
#define THTensor_(NAME) TH_CONCAT_4(TH,Real,Tensor_,NAME)
#define THNN_(NAME) TH_CONCAT_3(THNN_,Real,NAME)
"""

# The helper is not named new*: its summary (owned result, family the tensor type) is inferred
# from its body. updateOutput is clean; accGrad leaks on one path (RC001, through that summary).
GENERIC = """
static THTensor *THNN_(view_weight)(THTensor *weight)
{
  weight = THTensor_(newContiguous)(weight);
  if (weight->nDimension == 4) {
    THTensor *old_weight = weight;
    weight = THTensor_(newWithSize1d)(16);
    THTensor_(free)(old_weight);
  }
  return weight;
}

void THNN_(updateOutput)(THTensor *input, THTensor *weight)
{
  weight = THNN_(view_weight)(weight);
  if (input->nDimension == 2)
    input->data[0] = weight->data[0];
  THTensor_(free)(weight);
}

void THNN_(accGrad)(THTensor *input, THTensor *weight)
{
  weight = THNN_(view_weight)(weight);
  if (input->nDimension == 3)
    return;
  THTensor_(free)(weight);
}
"""

UNIT = """#include "th.h"
#define Real Float
#include "generic/view.c"
#undef Real
#define Real Double
#include "generic/view.c"
#undef Real
"""


def _found(project, *args):
    r = project.run("check", "--format", "json", "--no-cache", *args, "unit.c")
    data = json.loads(r.out)
    assert not data["errors"], r.out + r.err
    return sorted((f["rule"], f["line"], f["function"], tuple(f["instantiations"]))
                  for f in data["findings"])


def test_a_generic_unit_split_over_two_workers_gives_one_workers_findings(project, sharding):
    project.write("th.h", HEADER)
    project.write("generic/view.c", GENERIC)
    project.write("unit.c", UNIT)
    whole = _found(project, "-j", "1")
    # The helper's owned return (RC004) and accGrad's leak, nothing else: no RC011 from a family
    # spelled for the other instantiation.
    assert sorted(rule for rule, *_ in whole) == ["RC001", "RC004"], whole
    assert _found(project, "-j", "2") == whole
