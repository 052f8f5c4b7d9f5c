"""Copy-on-write lazy clones (seed 003): distinct storages that share one data context until
a write, after which the writer has its own data, and the last holder keeps the shared data
without a copy. The many-threads case runs under TSan in test_runtime_sanitizers.py."""

import numpy as np
import pytest

from th_ctypes import TYPES, CountingAllocator


def filled(th, real, values):
    S = th.storage(real)
    s = S.newWithSize(len(values))
    for i, v in enumerate(values):
        S.set(s, i, v)
    return s


@pytest.mark.parametrize("real", TYPES)
def test_clone_shares_data_until_a_write(th, real):
    S = th.storage(real)
    a = filled(th, real, [1, 2, 3])
    b = S.newLazyClone(a)
    assert a != b and S.refcount(a) == 1 and S.refcount(b) == 1
    assert S.constData(a) == S.constData(b)
    assert S.isLazyClone(a) and S.isLazyClone(b)
    assert th.live()["cow"] == 1

    S.set(b, 0, 10)  # b is not the last holder: it copies
    assert S.constData(a) != S.constData(b)
    assert th.storage_values(real, a).tolist() == [1, 2, 3]
    assert th.storage_values(real, b).tolist() == [10, 2, 3]
    assert not S.isLazyClone(b)

    kept = S.constData(a)
    S.set(a, 2, 30)  # a is now the last holder: it keeps the data as it is
    assert S.constData(a) == kept and not S.isLazyClone(a)
    assert th.storage_values(real, a).tolist() == [1, 2, 30]
    assert th.live()["cow"] == 0
    S.free(a)
    S.free(b)


def test_writing_the_source_leaves_clones_alone(th):
    S = th.storage("Double")
    a = filled(th, "Double", [1.0, 2.0])
    clones = [S.newLazyClone(a) for _ in range(3)]
    S.fill(a, 5.0)
    for c in clones:
        assert th.storage_values("Double", c).tolist() == [1.0, 2.0]
    assert all(S.constData(c) == S.constData(clones[0]) for c in clones)
    S.free(a)
    for c in clones:
        S.free(c)


def test_last_holder_keeps_the_data_pointer_after_the_others_are_freed(th):
    S = th.storage("Float")
    a = filled(th, "Float", [1, 2, 3, 4])
    original = S.constData(a)
    b = S.newLazyClone(a)
    c = S.newLazyClone(b)  # a clone of a clone joins the same context
    assert th.live()["cow"] == 1
    S.free(a)
    S.free(b)
    data = S.data(c)  # writing: c is the only holder left
    assert data == original
    assert th.storage_values("Float", c).tolist() == [1, 2, 3, 4]
    assert th.live()["cow"] == 0
    S.free(c)


def test_freeing_every_holder_frees_the_data_once(th):
    S = th.storage("Long")
    a = filled(th, "Long", [7, 8])
    b = S.newLazyClone(a)
    S.free(a)
    S.free(b)  # the live-object check proves the data and the context went exactly once


def test_every_writer_materializes(th):
    S = th.storage("Int")
    src = filled(th, "Int", [1, 2, 3])
    longs = filled(th, "Long", [4, 5, 6])
    ops = {
        "fill": lambda s: S.fill(s, 0),
        "set": lambda s: S.set(s, 0, 0),
        "data": lambda s: S.data(s),
        "resize": lambda s: S.resize(s, 5),
        "copy": lambda s: S.copy(s, src),
        "copyLong": lambda s: S.copyLong(s, longs),
        "materialize": lambda s: S.materialize(s),
    }
    for name, op in ops.items():
        clone = S.newLazyClone(src)
        op(clone)
        assert not S.isLazyClone(clone), name
        assert th.storage_values("Int", src).tolist() == [1, 2, 3], name
        S.free(clone)
    th.storage("Long").free(longs)
    S.free(src)


def test_resize_of_a_clone_keeps_its_values(th):
    S = th.storage("Double")
    a = filled(th, "Double", [1.0, 2.0, 3.0])
    b = S.newLazyClone(a)
    S.resize(b, 5)
    assert th.storage_values("Double", b)[:3].tolist() == [1.0, 2.0, 3.0]
    assert th.storage_values("Double", a).tolist() == [1.0, 2.0, 3.0]
    S.free(a)
    S.free(b)


def test_stolen_data_goes_back_to_its_own_allocator(th):
    alloc = CountingAllocator()
    S = th.storage("Double")
    a = S.newWithAllocator(3, alloc.pointer, alloc.context_pointer)
    S.fill(a, 1.5)
    b = S.newLazyClone(a)
    S.free(a)
    S.fill(b, 2.5)  # the last holder steals the custom-allocated block
    assert list(alloc.live) == [S.constData(b)]
    S.free(b)
    assert alloc.live == {}
    assert set(alloc.contexts) == {alloc.context_pointer}


def test_copies_come_from_the_default_allocator(th):
    alloc = CountingAllocator()
    S = th.storage("Double")
    a = S.newWithAllocator(3, alloc.pointer, alloc.context_pointer)
    b = S.newLazyClone(a)
    S.fill(b, 1.0)  # b copies with THAlloc; the custom block stays a's
    assert list(alloc.live) == [S.constData(a)] and S.constData(b) != S.constData(a)
    S.free(b)
    S.free(a)
    assert alloc.live == {}


@pytest.mark.parametrize("real", TYPES)
def test_tensor_lazy_clone_through_views(th, real):
    T = th.tensor(real)
    base = th.from_numpy(real, np.arange(12).reshape(3, 4))
    view = T.newTranspose(base, 0, 1)
    clone = T.newLazyClone(view)
    assert T.storage(clone) != T.storage(view)
    assert th.storage(real).constData(T.storage(clone)) == th.storage(real).constData(T.storage(base))
    assert th.strides(real, clone) == th.strides(real, view)

    T.fill(clone, 0)  # through APPLY: materializes first
    assert not th.to_numpy(real, clone).any()
    np.testing.assert_array_equal(th.to_numpy(real, base), np.arange(12).reshape(3, 4))

    clone2 = T.newLazyClone(base)
    T.add(base, base, 1)  # the source writes: clone2 keeps the old values
    np.testing.assert_array_equal(th.to_numpy(real, clone2), np.arange(12).reshape(3, 4))
    np.testing.assert_array_equal(th.to_numpy(real, base), np.arange(12).reshape(3, 4) + 1)
    for x in (clone2, clone, view, base):
        T.free(x)


def test_views_of_one_storage_see_its_materialization(th):
    """Tensors alias exactly when they share a storage: a write through one view of a lazily
    cloned storage shows through every other view of that storage, never through the clone."""
    T = th.tensor("Float")
    base = th.from_numpy("Float", np.arange(6.0))
    other_view = T.newNarrow(base, 0, 2, 3)
    clone = T.newLazyClone(base)
    T.set1d(base, 3, 100)
    assert T.get1d(other_view, 1) == 100
    assert T.get1d(clone, 3) == 3
    for x in (clone, other_view, base):
        T.free(x)
