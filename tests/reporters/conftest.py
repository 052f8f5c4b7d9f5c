import pytest

from refcheck.findings import RunResult

from sample_result import FILE, SOURCE, make_result


@pytest.fixture
def result(tmp_path) -> RunResult:
    path = tmp_path / FILE
    path.parent.mkdir(parents=True)
    path.write_text(SOURCE)
    return make_result(str(tmp_path))
