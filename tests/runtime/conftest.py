"""Fixtures for the runtime tests: one build of libTH per session, and a check after every
test that it left no storage, tensor, data block or copy-on-write context alive."""

import pytest

from th_ctypes import TH, BuildError, load


@pytest.fixture(scope="session")
def th() -> TH:
    try:
        return load()
    except BuildError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(autouse=True)
def no_live_objects(request, th):
    yield
    live = th.live()
    assert all(n == 0 for n in live.values()), f"objects still alive after the test: {live}"
