"""THS: a sparse tensor that retains its indices and values, hands out owned views of the part
in use (newIndices via newNarrow, as in seed 000), and converts to dense."""

import numpy as np
import pytest

from th_ctypes import DTYPE, TYPES, THRaised


def make_sparse(th, real, indices, values, size):
    L, V = th.tensor("Long"), th.tensor(real)
    ind = th.from_numpy("Long", np.array(indices, dtype=np.int64))
    val = th.from_numpy(real, np.array(values))
    sz = th.long_storage(size)
    try:
        sp = th.catch(th.sparse(real).newWithTensorAndSize, ind, val, sz)
    finally:
        th.storage("Long").free(sz)
        L.free(ind)
        V.free(val)
    return sp


def dense_of(indices, values, size, real):
    out = np.zeros(size, dtype=np.float64)
    for k, v in enumerate(values):
        out[tuple(indices[d][k] for d in range(len(indices)))] += np.asarray(v, dtype=np.float64)
    return out.astype(DTYPE[real])


@pytest.mark.parametrize("real", TYPES)
def test_to_dense_adds_duplicates(th, real):
    indices = [[0, 2, 0, 1], [1, 3, 1, 0]]
    values = [1, 2, 3, 4]
    sp = make_sparse(th, real, indices, values, [3, 4])
    r = th.tensor(real).new()
    th.sparse(real).toDense(r, sp)
    np.testing.assert_array_equal(th.to_numpy(real, r), dense_of(indices, values, (3, 4), real))
    th.tensor(real).free(r)
    th.sparse(real).free(sp)


def test_to_dense_with_dense_dimensions_into_a_strided_result(th):
    indices = [[1, 0, 1]]
    values = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    sp = make_sparse(th, "Double", indices, values, [3, 2])
    S = th.sparse("Double")
    assert (S.nDimension(sp), S.nDimensionI(sp), S.nDimensionV(sp), S.nnz(sp)) == (2, 1, 1, 3)
    T = th.tensor("Double")
    base = T.newWithSize2d(2, 3)
    r = T.newTranspose(base, 0, 1)  # 3x2 with strides (1, 3): toDense must honour them
    S.toDense(r, sp)
    expected = dense_of(indices, values, (3, 2), "Double")
    np.testing.assert_array_equal(th.to_numpy("Double", r), expected)
    np.testing.assert_array_equal(th.to_numpy("Double", base), expected.T)
    T.free(r)
    T.free(base)
    S.free(sp)


def test_the_sparse_tensor_retains_what_it_keeps(th):
    L, V = th.tensor("Long"), th.tensor("Float")
    ind = th.from_numpy("Long", np.array([[0, 1]]))
    val = th.from_numpy("Float", [5.0, 6.0])
    size = th.long_storage([2])
    sp = th.sparse("Float").newWithTensorAndSize(ind, val, size)
    assert L.refcount(ind) == 2 and V.refcount(val) == 2
    L.free(ind)
    V.free(val)
    th.storage("Long").free(size)
    r = V.new()
    th.sparse("Float").toDense(r, sp)
    assert th.to_numpy("Float", r).tolist() == [5.0, 6.0]
    th.sparse("Float").retain(sp)
    assert th.sparse("Float").refcount(sp) == 2
    th.sparse("Float").free(sp)
    th.sparse("Float").free(sp)
    V.free(r)


def test_new_indices_and_values_are_owned_views_of_the_part_in_use(th):
    S, L, V = th.sparse("Int"), th.tensor("Long"), th.tensor("Int")
    sp = make_sparse(th, "Int", [[0, 1, 2, 3], [3, 2, 1, 0]], [1, 2, 3, 4], [4, 4])
    S.shrinkNnz(sp, 2)
    ind = S.newIndices(sp)
    val = S.newValues(sp)
    assert th.shape("Long", ind) == (2, 2) and th.shape("Int", val) == (2,)
    assert th.to_numpy("Long", ind).tolist() == [[0, 1], [3, 2]]
    assert th.to_numpy("Int", val).tolist() == [1, 2]
    # Views: they share the storages the sparse tensor keeps, each holding a reference.
    assert th.storage("Long").refcount(L.storage(ind)) == 2
    assert th.storage("Int").refcount(V.storage(val)) == 2
    r = V.new()
    S.toDense(r, sp)
    assert th.to_numpy("Int", r)[0, 3] == 1 and th.to_numpy("Int", r).sum() == 3
    L.free(ind)
    V.free(val)
    S.shrinkNnz(sp, 0)
    S.toDense(r, sp)
    assert not th.to_numpy("Int", r).any()
    empty = S.newIndices(sp)
    assert th.shape("Long", empty) == (2, 0)
    L.free(empty)
    with pytest.raises(THRaised, match="nnz 1 out of range"):
        th.catch(S.shrinkNnz, sp, 1)
    V.free(r)
    S.free(sp)


@pytest.mark.parametrize("indices, values, size, message", [
    ([[0, 4]], [1.0, 2.0], [4], "index 4 out of range"),
    ([[0, 1]], [1.0], [4], "2 index columns but 1 values"),
    ([[0, 1]], [[1.0, 2.0], [3.0, 4.0]], [4, 3], "dense dimension 0 has size 2"),
    ([[0, 1]], [1.0, 2.0], [4, 4], "2 sizes for 1 sparse and 0 dense"),
])
def test_bad_sparse_tensors_are_refused(th, indices, values, size, message):
    with pytest.raises(THRaised, match=message):
        make_sparse(th, "Double", indices, values, size)
