"""Where the runtime's sources are, which files are translation units, and how clang reads them."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

# Libraries of the runtime, in build order; THC is optional (only where CUDA exists).
LIBRARIES = ("TH", "THC")
UNIT_EXTENSIONS = (".c", ".cu", ".cpp")


@dataclass
class Runtime:
    """A runtime tree: `root` is the folder holding `runtime/` (the repository, or a copy)."""

    root: str

    @property
    def runtime_dir(self) -> str:
        return os.path.join(self.root, "runtime")

    def library_dirs(self) -> list[str]:
        return [d for d in (os.path.join(self.runtime_dir, lib) for lib in LIBRARIES) if os.path.isdir(d)]

    def units(self) -> list[str]:
        """Top-level sources of each library; generic/*.c are only read through them."""
        out = []
        for d in self.library_dirs():
            out += sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(UNIT_EXTENSIONS))
        return out

    def clang_args(self) -> list[str]:
        return [f"-I{d}" for d in self.library_dirs()]

    def relative(self, path: str) -> str:
        return os.path.relpath(os.path.abspath(path), os.path.abspath(self.root)).replace(os.sep, "/")

    def path(self, rel: str) -> str:
        return os.path.join(self.root, rel)


def copy_tree(source: Runtime, dest_root: str, with_tests: bool = False, tests: tuple[str, ...] = ()) -> Runtime:
    """A private copy to mutate: `runtime/`, and the test folders the build needs (`with_tests`:
    tests/runtime; `tests`: tests/<name> for each name)."""
    os.makedirs(dest_root, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", ".pytest_cache", "*.o", "*.so")
    shutil.copytree(source.runtime_dir, os.path.join(dest_root, "runtime"), dirs_exist_ok=True, ignore=ignore)
    for name in (("runtime",) if with_tests else ()) + tuple(tests):
        folder = os.path.join(source.root, "tests", name)
        if os.path.isdir(folder):
            shutil.copytree(folder, os.path.join(dest_root, "tests", name), dirs_exist_ok=True, ignore=ignore)
    return Runtime(dest_root)
