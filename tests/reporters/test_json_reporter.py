import json

from refcheck.reporters import render


def test_json_has_the_exact_shape(result):
    out = render("json", result)
    assert json.loads(out) == {
        "version": 1,
        "findings": [
            {
                "rule": "RC001", "name": "leak",
                "file": "src/generic/THTensorMath.c", "line": 8, "column": 5,
                "function": "THFloatTensor_addSquared",
                "message": "`tc` (acquired by THFloatTensor_newContiguous at line 6) is not "
                           "released on this path",
                "path": [
                    {"file": "src/generic/THTensorMath.c", "line": 6, "column": 23,
                     "message": "`tc` acquired by THFloatTensor_newContiguous"},
                    {"file": "src/generic/THTensorMath.c", "line": 7, "column": 3,
                     "message": "taking the true branch"},
                    {"file": "src/generic/THTensorMath.c", "line": 8, "column": 5,
                     "message": "`tc` is lost here"},
                ],
                "instantiations": ["THDoubleTensor_addSquared", "THFloatTensor_addSquared"],
            },
            {
                "rule": "RC003", "name": "use-after-release",
                "file": "src/generic/THTensorMath.c", "line": 11, "column": 13,
                "function": "THFloatTensor_addSquared",
                "message": "`tc` <100%, a:b> is used after it was released",
                "path": [
                    {"file": "src/generic/THTensorMath.c", "line": 6, "column": 23,
                     "message": "`tc` acquired by THFloatTensor_newContiguous"},
                    {"file": "src/generic/THTensorMath.c", "line": 10, "column": 3,
                     "message": "`tc` released here"},
                    {"file": "src/generic/THTensorMath.c", "line": 11, "column": 13,
                     "message": "used here: <b>tc->size</b> & more"},
                ],
                "instantiations": ["THFloatTensor_addSquared"],
            },
        ],
        "errors": [
            {"file": "src/broken.c", "message": "expected ';' after expression", "hint": ""},
            {"file": "src/huge.c", "message": "gave up after 50000 states\nin THFoo_bar", "hint": ""},
        ],
        "stats": {"files": 3, "functions": 7, "seconds": 1.235},
    }


def test_json_key_order_and_layout_are_fixed(result):
    out = render("json", result)
    assert out.startswith('{\n  "version": 1,\n  "findings": [\n    {\n      "rule": "RC001",\n'
                          '      "name": "leak",\n      "file": ')
    assert out.endswith('  "stats": {\n    "files": 3,\n    "functions": 7,\n'
                        '    "seconds": 1.235\n  }\n}\n')
    assert list(json.loads(out)["findings"][0]) == [
        "rule", "name", "file", "line", "column", "function", "message", "path", "instantiations"]
