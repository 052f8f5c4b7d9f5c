"""THStorage: construction, refcounts, resize, fill, copies, allocators, newInferSize."""

import ctypes

import pytest

from th_ctypes import TYPES, CountingAllocator, THRaised


@pytest.mark.parametrize("real", TYPES)
def test_new_with_size_set_get_fill(th, real):
    S = th.storage(real)
    s = S.newWithSize(5)
    assert S.size(s) == 5 and S.refcount(s) == 1
    for i in range(5):
        S.set(s, i, i + 1)
    assert [S.get(s, i) for i in range(5)] == [1, 2, 3, 4, 5]
    S.fill(s, 7)
    assert th.storage_values(real, s).tolist() == [7] * 5
    S.free(s)


@pytest.mark.parametrize("real", TYPES)
def test_small_constructors(th, real):
    S = th.storage(real)
    made = [S.new(), S.newWithSize1(1), S.newWithSize2(1, 2), S.newWithSize3(1, 2, 3),
            S.newWithSize4(1, 2, 3, 4)]
    assert [th.storage_values(real, s).tolist() for s in made] == [
        [], [1], [1, 2], [1, 2, 3], [1, 2, 3, 4]]
    assert S.constData(made[0]) is None
    for s in made:
        S.free(s)


def test_retain_and_free_count_references(th):
    S = th.storage("Float")
    s = S.newWithSize(3)
    S.retain(s)
    S.retain(s)
    assert S.refcount(s) == 3
    S.free(s)
    S.free(s)
    assert S.refcount(s) == 1
    assert th.live()["storage"] == 1
    S.free(s)
    assert th.live() == {"storage": 0, "tensor": 0, "data": 0, "cow": 0}


def test_free_of_null_is_a_no_op(th):
    th.storage("Double").free(None)
    th.tensor("Double").free(None)


def declare_memory_functions(th):
    th.lib.THAlloc.restype = ctypes.c_void_p
    th.lib.THAlloc.argtypes = [ctypes.c_ssize_t]
    th.lib.THRealloc.restype = ctypes.c_void_p
    th.lib.THRealloc.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t]
    th.lib.THFree.restype = None
    th.lib.THFree.argtypes = [ctypes.c_void_p]


def test_thalloc_threalloc_thfree_are_counted(th):
    declare_memory_functions(th)
    assert th.lib.THAlloc(0) is None and th.live()["data"] == 0
    p = th.lib.THAlloc(8)
    assert th.live()["data"] == 1
    ctypes.memmove(p, b"abcdefgh", 8)
    p = th.lib.THRealloc(p, 4096)
    assert ctypes.string_at(p, 8) == b"abcdefgh" and th.live()["data"] == 1
    q = th.lib.THRealloc(None, 16)  # from NULL: a new block
    assert th.live()["data"] == 2
    th.lib.THFree(q)
    th.lib.THFree(p)
    th.lib.THFree(None)
    assert th.live()["data"] == 0
    with pytest.raises(THRaised, match="negative size"):
        th.catch(th.lib.THAlloc, -1)
    assert th.lib.THLiveObjects(-1) == -1 and th.lib.THLiveObjects(4) == -1


def test_new_with_data_takes_over_a_thalloc_block(th):
    declare_memory_functions(th)
    block = th.lib.THAlloc(4 * 8)
    (ctypes.c_double * 4).from_address(block)[:] = [1.5, 2.5, 3.5, 4.5]
    S = th.storage("Double")
    s = S.newWithData(block, 4)
    assert S.constData(s) == block
    assert th.storage_values("Double", s).tolist() == [1.5, 2.5, 3.5, 4.5]
    S.free(s)  # frees the block too: the live-object check would catch it otherwise


@pytest.mark.parametrize("real", TYPES)
def test_resize_keeps_the_prefix(th, real):
    S = th.storage(real)
    s = S.newWithSize3(1, 2, 3)
    S.resize(s, 5)
    assert S.size(s) == 5 and th.storage_values(real, s)[:3].tolist() == [1, 2, 3]
    S.resize(s, 2)
    assert th.storage_values(real, s).tolist() == [1, 2]
    S.resize(s, 0)
    assert S.size(s) == 0 and S.constData(s) is None
    S.free(s)


def test_resize_refuses_a_storage_that_is_not_resizable(th):
    S = th.storage("Int")
    s = S.newWithSize(2)
    S.clearFlag(s, b"\x01")
    with pytest.raises(THRaised, match="not resizable"):
        th.catch(S.resize, s, 4)
    S.setFlag(s, b"\x01")
    S.resize(s, 4)
    assert S.size(s) == 4
    S.free(s)


@pytest.mark.parametrize("src", TYPES)
@pytest.mark.parametrize("dst", TYPES)
def test_copy_converts_between_all_types(th, src, dst):
    values = [0, 1, 2, 100, 7]
    a = th.storage(src).newWithSize(5)
    for i, v in enumerate(values):
        th.storage(src).set(a, i, v)
    b = th.storage(dst).newWithSize(5)
    getattr(th.storage(dst), f"copy{src}")(b, a)
    assert th.storage_values(dst, b).tolist() == values
    if src == dst:
        c = th.storage(dst).newWithSize(5)
        th.storage(dst).copy(c, a)
        assert th.storage_values(dst, c).tolist() == values
        th.storage(dst).free(c)
    th.storage(src).free(a)
    th.storage(dst).free(b)


def test_raw_copy_reads_a_plain_array(th):
    S = th.storage("Float")
    s = S.newWithSize(3)
    values = (ctypes.c_float * 3)(1.5, 2.5, 3.5)
    S.rawCopy(s, ctypes.addressof(values))
    assert th.storage_values("Float", s).tolist() == [1.5, 2.5, 3.5]
    S.free(s)


def test_copy_of_different_sizes_is_an_error(th):
    S = th.storage("Float")
    a, b = S.newWithSize(2), S.newWithSize(3)
    with pytest.raises(THRaised, match="size mismatch"):
        th.catch(S.copy, a, b)
    S.free(a)
    S.free(b)


def test_new_clone_is_an_independent_copy(th):
    S = th.storage("Long")
    a = S.newWithSize3(4, 5, 6)
    b = S.newClone(a)
    S.set(b, 0, 40)
    assert th.storage_values("Long", a).tolist() == [4, 5, 6]
    assert th.storage_values("Long", b).tolist() == [40, 5, 6]
    assert S.constData(a) != S.constData(b)
    S.free(a)
    S.free(b)


@pytest.mark.parametrize("bad", [-1, 3])
def test_set_and_get_check_the_index(th, bad):
    S = th.storage("Byte")
    s = S.newWithSize(3)
    with pytest.raises(THRaised, match="out of bounds"):
        th.catch(S.get, s, bad)
    with pytest.raises(THRaised, match="out of bounds"):
        th.catch(S.set, s, bad, 1)
    S.free(s)


def test_negative_size_is_an_error_and_allocates_nothing(th):
    with pytest.raises(THRaised, match="non-negative"):
        th.catch(th.storage("Float").newWithSize, -2)


def test_custom_allocator_and_context_are_used_for_data(th):
    alloc = CountingAllocator()
    S = th.storage("Double")
    s = S.newWithAllocator(4, alloc.pointer, alloc.context_pointer)
    assert list(alloc.live) == [S.constData(s)]
    S.fill(s, 2.0)
    S.resize(s, 8)  # a new block from the same allocator, the old one given back to it
    assert list(alloc.live) == [S.constData(s)]
    assert th.storage_values("Double", s)[:4].tolist() == [2.0] * 4
    S.free(s)
    assert alloc.live == {}
    assert set(alloc.contexts) == {alloc.context_pointer}
    assert len(alloc.contexts) == 4


def test_new_with_data_and_allocator_frees_through_it(th):
    alloc = CountingAllocator()
    block = alloc.malloc(alloc.context_pointer, 3 * 4)
    S = th.storage("Int")
    s = S.newWithDataAndAllocator(block, 3, alloc.pointer, alloc.context_pointer)
    S.fill(s, 9)
    assert th.storage_values("Int", s).tolist() == [9, 9, 9]
    S.free(s)
    assert alloc.live == {}


class TestInferSize:
    def infer(self, th, sizes, n):
        th.lib.THLongStorage_newInferSize.restype = ctypes.c_void_p
        th.lib.THLongStorage_newInferSize.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t]
        size = th.long_storage(sizes)
        try:
            inferred = th.catch(th.lib.THLongStorage_newInferSize, size, n)
        finally:
            th.storage("Long").free(size)
        values = th.storage_values("Long", inferred).tolist()
        th.storage("Long").free(inferred)
        return values

    @pytest.mark.parametrize("sizes, n, expected", [
        ([2, -1], 6, [2, 3]), ([-1], 5, [5]), ([3, 4], 12, [3, 4]), ([2, 3, -1], 12, [2, 3, 2]),
    ])
    def test_infers_the_missing_dimension(self, th, sizes, n, expected):
        assert self.infer(th, sizes, n) == expected

    @pytest.mark.parametrize("sizes, n, message", [
        ([-1, -1], 4, "only one dimension"), ([4, -1], 6, "cannot infer"),
        ([2, 2], 5, "cannot have 4"), ([-2, 3], 6, "invalid size"),
    ])
    def test_rejects(self, th, sizes, n, message):
        with pytest.raises(THRaised, match=message):
            self.infer(th, sizes, n)
