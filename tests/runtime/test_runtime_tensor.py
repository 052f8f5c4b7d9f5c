"""THTensor: constructors, views and their refcounts, in-place geometry, references."""

import numpy as np
import pytest

from th_ctypes import TYPES, THRaised


def arange(th, real, *shape):
    return th.from_numpy(real, np.arange(int(np.prod(shape))).reshape(shape))


@pytest.mark.parametrize("real", TYPES)
def test_new_with_size_nd_is_contiguous(th, real):
    T = th.tensor(real)
    made = [T.newWithSize1d(3), T.newWithSize2d(3, 4), T.newWithSize3d(2, 3, 4),
            T.newWithSize4d(2, 3, 4, 5)]
    assert [th.shape(real, t) for t in made] == [(3,), (3, 4), (2, 3, 4), (2, 3, 4, 5)]
    assert th.strides(real, made[3]) == (60, 20, 5, 1)
    for t in made:
        assert T.isContiguous(t) and T.refcount(t) == 1
        assert T.nElement(t) == th.storage(real).size(T.storage(t))
        T.free(t)


def test_new_is_empty_with_a_storage(th):
    T = th.tensor("Float")
    t = T.new()
    assert T.nDimension(t) == 0 and T.nElement(t) == 0
    assert th.storage("Float").size(T.storage(t)) == 0
    T.free(t)


def test_new_with_size_from_long_storages(th):
    T = th.tensor("Double")
    size, stride = th.long_storage([2, 3]), th.long_storage([1, 2])
    t = T.newWithSize(size, stride)
    assert th.shape("Double", t) == (2, 3) and th.strides("Double", t) == (1, 2)
    assert not T.isContiguous(t)
    assert th.storage("Double").size(T.storage(t)) == 6
    sizes = T.newSizeOf(t)
    strides = T.newStrideOf(t)
    assert th.storage_values("Long", sizes).tolist() == [2, 3]
    assert th.storage_values("Long", strides).tolist() == [1, 2]
    for s in (size, stride, sizes, strides):
        th.storage("Long").free(s)
    T.free(t)


def test_new_with_storage_shares_and_retains_it(th):
    S, T = th.storage("Int"), th.tensor("Int")
    s = S.newWithSize(10)
    for i in range(10):
        S.set(s, i, i)
    size = th.long_storage([2, 2])
    stride = th.long_storage([4, 1])
    t = T.newWithStorage(s, 1, size, stride)
    assert S.refcount(s) == 2
    assert th.to_numpy("Int", t).tolist() == [[1, 2], [5, 6]]
    t1 = T.newWithStorage1d(s, 2, 3, 3)
    t2 = T.newWithStorage2d(s, 0, 2, 5, 5, 1)
    assert th.to_numpy("Int", t1).tolist() == [2, 5, 8]
    assert th.to_numpy("Int", t2).tolist() == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    assert S.refcount(s) == 4
    S.free(s)  # the tensors keep it alive
    assert th.to_numpy("Int", t).tolist() == [[1, 2], [5, 6]]
    for x in (t, t1, t2):
        T.free(x)
    th.storage("Long").free(size)
    th.storage("Long").free(stride)


def test_new_with_storage_grows_a_short_storage(th):
    S, T = th.storage("Float"), th.tensor("Float")
    s = S.newWithSize(2)
    t = T.newWithStorage1d(s, 1, 4, 1)
    assert S.size(s) == 5
    T.free(t)
    S.free(s)


def test_views_share_storage_and_writes_show_through(th):
    """narrow of transpose of select: one write through the innermost view lands in the
    base tensor's storage exactly where NumPy's equivalent view says."""
    real = "Double"
    T = th.tensor(real)
    base = arange(th, real, 3, 4, 5)
    ref = np.arange(60.0).reshape(3, 4, 5)
    sel = T.newSelect(base, 0, 1)           # 4x5
    tr = T.newTranspose(sel, 0, 1)          # 5x4
    nar = T.newNarrow(tr, 0, 1, 3)          # 3x4
    for v in (sel, tr, nar):
        assert T.storage(v) == T.storage(base)
    assert th.storage("Double").refcount(T.storage(base)) == 4
    np.testing.assert_array_equal(th.to_numpy(real, nar), ref[1].T[1:4])

    T.fill(nar, -1)
    ref[1].T[1:4] = -1
    np.testing.assert_array_equal(th.to_numpy(real, base), ref)
    T.set2d(nar, 2, 3, 99)
    ref[1].T[1:4][2, 3] = 99
    np.testing.assert_array_equal(th.to_numpy(real, base), ref)
    assert T.get2d(nar, 2, 3) == 99
    for v in (nar, tr, sel):
        T.free(v)
    assert th.storage("Double").refcount(T.storage(base)) == 1
    T.free(base)


@pytest.mark.parametrize("real", TYPES)
def test_in_place_views_match_numpy(th, real):
    T = th.tensor(real)
    src = arange(th, real, 4, 6)
    ref = np.arange(24).reshape(4, 6)
    t = T.new()
    T.narrow(t, src, 1, 2, 3)
    np.testing.assert_array_equal(th.to_numpy(real, t), ref[:, 2:5])
    T.transpose(t, None, 0, 1)
    np.testing.assert_array_equal(th.to_numpy(real, t), ref[:, 2:5].T)
    T.select(t, None, 1, 3)
    np.testing.assert_array_equal(th.to_numpy(real, t), ref[3, 2:5])
    assert T.isSetTo(t, t) and not T.isSetTo(t, src)
    T.set(t, src)
    assert T.isSetTo(t, src)
    T.free(t)
    T.free(src)


def test_unfold_makes_overlapping_windows(th):
    T = th.tensor("Long")
    src = arange(th, "Long", 7)
    u = T.newUnfold(src, 0, 3, 2)
    assert th.to_numpy("Long", u).tolist() == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    assert th.strides("Long", u) == (2, 1)
    T.unfold(u, None, 1, 2, 1)
    assert th.to_numpy("Long", u).tolist() == [[[0, 1], [1, 2]], [[2, 3], [3, 4]], [[4, 5], [5, 6]]]
    T.free(u)
    T.free(src)


def test_squeeze_and_unsqueeze(th):
    T = th.tensor("Float")
    t = T.newWithSize4d(1, 3, 1, 2)
    T.squeeze(t, None)
    assert th.shape("Float", t) == (3, 2)
    T.unsqueeze(t, None, 1)
    assert th.shape("Float", t) == (3, 1, 2) and th.strides("Float", t) == (2, 2, 1)
    T.unsqueeze(t, None, 3)
    assert th.shape("Float", t) == (3, 1, 2, 1)
    T.squeeze1d(t, None, 1)
    assert th.shape("Float", t) == (3, 2, 1)
    T.squeeze1d(t, None, 0)  # size 3: unchanged
    assert th.shape("Float", t) == (3, 2, 1)
    one = T.newWithSize3d(1, 1, 1)
    T.squeeze(one, None)
    assert th.shape("Float", one) == (1,)
    T.free(one)
    T.free(t)


@pytest.mark.parametrize("real", TYPES)
def test_new_contiguous_retains_or_copies(th, real):
    T = th.tensor(real)
    t = arange(th, real, 3, 4)
    same = T.newContiguous(t)
    assert same == t and T.refcount(t) == 2
    T.free(same)
    tr = T.newTranspose(t, 0, 1)
    copy = T.newContiguous(tr)
    assert copy != tr and T.isContiguous(copy) and T.refcount(tr) == 1
    assert T.storage(copy) != T.storage(t)
    np.testing.assert_array_equal(th.to_numpy(real, copy), np.arange(12).reshape(3, 4).T)
    for x in (copy, tr, t):
        T.free(x)


def test_new_clone_copies_any_layout(th):
    T = th.tensor("Int")
    t = arange(th, "Int", 4, 5)
    n = T.newNarrow(t, 1, 1, 3)
    c = T.newClone(n)
    assert T.isContiguous(c) and T.storage(c) != T.storage(t)
    T.fill(c, 0)
    np.testing.assert_array_equal(th.to_numpy("Int", n), np.arange(20).reshape(4, 5)[:, 1:4])
    for x in (c, n, t):
        T.free(x)


def test_new_view_infers_a_size(th):
    T = th.tensor("Double")
    t = arange(th, "Double", 2, 6)
    size = th.long_storage([3, -1])
    v = T.newView(t, size)
    assert th.shape("Double", v) == (3, 4) and T.storage(v) == T.storage(t)
    T.set2d(v, 0, 0, 42)
    assert T.get2d(t, 0, 0) == 42
    tr = T.newTranspose(t, 0, 1)
    with pytest.raises(THRaised, match="not contiguous"):
        th.catch(T.newView, tr, size)
    bad = th.long_storage([5, -1])
    with pytest.raises(THRaised, match="cannot infer"):
        th.catch(T.newView, t, bad)
    for s in (size, bad):
        th.storage("Long").free(s)
    for x in (tr, v, t):
        T.free(x)


def test_new_expand_broadcasts_with_zero_strides(th):
    T = th.tensor("Float")
    col = arange(th, "Float", 3, 1)
    size = th.long_storage([2, 3, 4])
    e = T.newExpand(col, size)
    assert th.shape("Float", e) == (2, 3, 4) and th.strides("Float", e) == (0, 1, 0)
    np.testing.assert_array_equal(th.to_numpy("Float", e),
                                  np.broadcast_to(np.arange(3.0).reshape(3, 1), (2, 3, 4)))
    bad = th.long_storage([2, 4])
    with pytest.raises(THRaised, match="cannot expand"):
        th.catch(T.newExpand, col, bad)
    for s in (size, bad):
        th.storage("Long").free(s)
    T.free(e)
    T.free(col)


def test_resize_variants(th):
    T = th.tensor("Byte")
    t = T.new()
    T.resize1d(t, 4)
    assert th.shape("Byte", t) == (4,)
    T.resize2d(t, 2, 3)
    T.resize3d(t, 1, 2, 3)
    T.resize4d(t, 1, 1, 2, 3)
    assert th.shape("Byte", t) == (1, 1, 2, 3) and T.isContiguous(t)
    other = T.newWithSize2d(5, 5)
    T.resizeAs(t, other)
    assert T.isSameSizeAs(t, other)
    size = th.long_storage([3])
    T.resize(t, size, None)
    assert th.shape("Byte", t) == (3,)
    th.storage("Long").free(size)
    T.free(other)
    T.free(t)


def test_set_storage_swaps_the_storage_reference(th):
    S, T = th.storage("Long"), th.tensor("Long")
    t = T.newWithSize1d(3)
    old = T.storage(t)
    S.retain(old)
    s = S.newWithSize(8)
    size = th.long_storage([2, 2])
    T.setStorage(t, s, 2, size, None)
    assert T.storage(t) == s and S.refcount(s) == 2 and S.refcount(old) == 1
    T.setStorage(t, None, 0, None, None)
    assert S.refcount(s) == 1 and T.nDimension(t) == 0
    for x in (old, s, size):
        S.free(x)
    T.free(t)


def test_retain_free_and_free_copy_to(th):
    T = th.tensor("Double")
    t = arange(th, "Double", 2, 3)
    T.retain(t)
    assert T.refcount(t) == 2
    T.free(t)
    dst = T.newWithSize2d(3, 2)
    tr = T.newTranspose(dst, 0, 1)
    T.freeCopyTo(t, tr)  # consumes t
    np.testing.assert_array_equal(th.to_numpy("Double", dst), np.arange(6.0).reshape(2, 3).T)
    T.free(tr)
    T.free(dst)


def test_data_is_the_first_element(th):
    T = th.tensor("Float")
    t = arange(th, "Float", 4, 4)
    n = T.newNarrow(t, 0, 2, 1)
    assert T.data(n) == T.data(t) + 2 * 4 * 4 == T.constData(n)
    T.free(n)
    T.free(t)


@pytest.mark.parametrize("call, args, message", [
    ("newSelect", ([2, 3], 2, 0), "dimension 2 out of range"),
    ("newSelect", ([2, 3], 0, 2), "index 2 out of range"),
    ("newSelect", ([3], 0, 0), "cannot select on a vector"),
    ("newNarrow", ([2, 3], 1, 2, 2), "out of range"),
    ("newNarrow", ([2, 3], 0, -1, 1), "first index -1"),
    ("newTranspose", ([2, 3], 0, 2), "dimension 2 out of range"),
    ("newUnfold", ([5], 0, 6, 1), "size 6 out of range"),
    ("newUnfold", ([5], 0, 2, 0), "step must be positive"),
    ("newWithSize2d", (None, 2, -3), "negative size"),
])
def test_bad_arguments_raise_before_allocating(th, call, args, message):
    T = th.tensor("Float")
    shape, *rest = args
    t = None
    if shape is not None:
        size = th.long_storage(shape)
        t = T.newWithSize(size, None)
        th.storage("Long").free(size)
    fn = getattr(T, call)
    with pytest.raises(THRaised, match=message):
        th.catch(fn, *(([t] if t else []) + rest))
    T.free(t)  # the autouse check then proves the failed call allocated nothing


def test_resize_to_the_same_size_keeps_a_strided_view(th):
    T = th.tensor("Float")
    t = th.from_numpy("Float", np.arange(6.0).reshape(2, 3))
    tr = T.newTranspose(t, 0, 1)
    size = th.long_storage([3, 2])
    T.resize(tr, size, None)
    assert th.strides("Float", tr) == (1, 3)
    T.resizeAs(tr, tr)
    assert th.strides("Float", tr) == (1, 3)
    th.storage("Long").free(size)
    T.free(tr)
    T.free(t)


def test_new_with_tensor_shares_everything(th):
    T = th.tensor("Int")
    t = arange(th, "Int", 3, 4)
    n = T.newNarrow(t, 1, 1, 2)
    w = T.newWithTensor(n)
    assert T.isSetTo(w, n) and T.storageOffset(w) == T.storageOffset(n) == 1
    assert th.storage("Int").refcount(T.storage(t)) == 3
    for x in (w, n, t):
        T.free(x)


def test_prepare_write_materializes_a_lazy_clone(th):
    T, S = th.tensor("Long"), th.storage("Long")
    t = arange(th, "Long", 4)
    c = T.newLazyClone(t)
    assert S.isLazyClone(T.storage(c))
    T.prepareWrite(c)
    assert not S.isLazyClone(T.storage(c))
    assert S.constData(T.storage(c)) != S.constData(T.storage(t))
    T.free(c)
    T.free(t)
