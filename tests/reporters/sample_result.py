"""A hand-built RunResult over a real source file, so reporters are tested without the analyzer.

A module of its own (not conftest) so that tests can import it by a name no other test
directory uses.
"""

from __future__ import annotations

from refcheck.findings import Extent, Finding, Location, RunResult, Step, ToolError

SOURCE = """\
#include "TH.h"

/* A leak on the early exit, and a use after release. */
void THFloatTensor_addSquared(THFloatTensor *r_, THFloatTensor *t)
{
  THFloatTensor *tc = THFloatTensor_newContiguous(t);
  if (THFloatTensor_nElement(tc) == 0)
    return;
  THFloatTensor_resizeAs(r_, tc);
  THFloatTensor_free(tc);
  if (r_ && tc->size[0] < 1)
    THError("a < b & c > d");
}
"""

FILE = "src/generic/THTensorMath.c"


def loc(line: int, column: int, file: str = FILE) -> Location:
    return Location(file, line, column)


def make_result(root: str) -> RunResult:
    leak = Finding(
        rule="RC001", name="leak", location=loc(8, 5), function="THFloatTensor_addSquared",
        message="`tc` (acquired by THFloatTensor_newContiguous at line 6) is not released on "
                "this path",
        path=[Step(loc(6, 23), "`tc` acquired by THFloatTensor_newContiguous"),
              Step(loc(7, 3), "taking the true branch"),
              Step(loc(8, 5), "`tc` is lost here")],
        instantiations=["THDoubleTensor_addSquared", "THFloatTensor_addSquared"],
        origin=loc(6, 23), extent=Extent(FILE, 4, 5, 13))
    uar = Finding(
        rule="RC003", name="use-after-release", location=loc(11, 13),
        function="THFloatTensor_addSquared",
        message="`tc` <100%, a:b> is used after it was released",
        path=[Step(loc(6, 23), "`tc` acquired by THFloatTensor_newContiguous"),
              Step(loc(10, 3), "`tc` released here"),
              Step(loc(11, 13), "used here: <b>tc->size</b> & more")],
        instantiations=["THFloatTensor_addSquared"],
        origin=loc(6, 23), extent=Extent(FILE, 4, 5, 13))
    return RunResult(
        findings=[leak, uar],
        errors=[ToolError("src/broken.c", "expected ';' after expression", 3, 14),
                ToolError("src/huge.c", "gave up after 50000 states\nin THFoo_bar", 0, 0,
                          "warning")],
        files=3, functions=7, seconds=1.23456, root=root)
