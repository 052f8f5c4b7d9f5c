"""A report names a value as the user wrote it, never a macro's own local (`__s1` in
g_assert_cmpstr, `_ptr`/`_p` in g_clear_pointer: `frontend.clangutil.declared_by_macro`,
`analysis.report.Reporter.what`), on fixtures/glib_macro_temporaries*.c."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixture_expect import glib_cflags, parse_fixture
from refcheck.conventions.presets import PRESETS
from refcheck.driver.engine import Settings, check_unit

REPO = Path(__file__).resolve().parents[2]


def _messages(name: str) -> dict[str, str]:
    cflags = glib_cflags()
    if not cflags:
        pytest.skip("GLib's headers are not installed")
    unit = REPO / "fixtures" / name
    options = parse_fixture(unit).options
    settings = Settings(conventions=PRESETS["glib"].conventions, clang_args=options.clang_args, root=str(REPO))
    return {f.function: f.message for f in check_unit(str(unit), settings).findings}


def test_new_glib_names_the_call_and_the_cleared_variable() -> None:
    got = _messages("glib_macro_temporaries.c")
    assert got["fixture_cmpstr_call_leak"].startswith("the result of g_strdup (acquired by g_strdup")
    assert got["fixture_cmpstr_path_leak"].startswith("the result of g_file_get_path (acquired by")
    assert got["fixture_clear_after_release"].startswith("'data' (acquired by g_bytes_new")
    assert got["fixture_clear_borrowed"].startswith("'app' (returned by g_application_get_default")


def test_old_glib_clear_pointer_names_the_cleared_variable() -> None:
    got = _messages("glib_macro_temporaries_old.c")
    assert got["fixture_old_clear_borrowed"].startswith("'app' (returned by g_application_get_default")


def test_a_macro_local_the_user_names_is_shown(tmp_path: Path) -> None:
    unit = tmp_path / "named.c"
    unit.write_text("void *g_malloc (unsigned long);\n"
                    "#define DECLARE(x) char *x = g_malloc (4)\n"
                    "void f (void) { DECLARE (buf); }\n")
    settings = Settings(conventions=PRESETS["glib"].conventions, root=str(tmp_path))
    (finding,) = check_unit(str(unit), settings).findings
    assert finding.message.startswith("'buf' (acquired by g_malloc")


def test_a_macro_local_pasted_from_an_argument_is_shown(tmp_path: Path) -> None:
    unit = tmp_path / "pasted.c"
    unit.write_text("void *g_malloc (unsigned long);\n"
                    "#define COUNTER(t) char *t##_counter = g_malloc (4)\n"
                    "void f (void) { COUNTER (src); }\n")
    settings = Settings(conventions=PRESETS["glib"].conventions, root=str(tmp_path))
    (finding,) = check_unit(str(unit), settings).findings
    assert finding.message.startswith("'src_counter' (acquired by g_malloc")
