"""Everything that touches libclang: parsing a unit (`unit`), finding clang's builtin headers
(`headers`), reading compile databases (`compdb`), and lowering function bodies into refcheck's
own CFG and IR (`builder`, with `expressions` and `conditions` over a shared `graph`).

Past this package, the CFG (`refcheck.ir.cfg`), the analysis, the rules and the reporters see only
refcheck's data. Private parts of the clang binding are used in `binding` alone.

Importing the package itself loads nothing from libclang: the parent process of a run reads
compile databases (`compdb`) without loading the library.
"""
