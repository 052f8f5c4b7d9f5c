"""THTensorMath and THTensorCopy against NumPy, on contiguous and strided operands: every op
runs through TH_TENSOR_APPLY/APPLY2/APPLY3, whose collapsing of contiguous sections must give
the same answer whatever the layout."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from th_ctypes import DTYPE, TYPES, THRaised

LAYOUTS = ["contiguous", "transposed", "narrowed", "permuted"]


def make(th, real, shape, layout, rng, low=0, high=10):
    """A TH tensor of the given shape laid out as asked, and the NumPy array it views."""
    nd = len(shape)
    perm = list(range(nd))
    pad = 0
    if layout == "transposed":
        perm = list(reversed(range(nd)))
    elif layout == "narrowed":
        pad = 2
    elif layout == "permuted":
        perm = list(range(1, nd)) + [0]
        pad = 1
    return strided(th, real, shape, perm, pad, rng, low, high)


def strided(th, real, shape, perm, pad, rng, low=0, high=10):
    """Base dimension d holds target dimension perm[d], `pad` elements longer than needed; the
    view narrows each one to start at `pad`, then transposes back to the target order."""
    T = th.tensor(real)
    nd = len(shape)
    base_np = rng.integers(low, high, size=[shape[perm[d]] + pad for d in range(nd)]).astype(DTYPE[real])
    t = th.from_numpy(real, base_np)
    view = base_np
    for d in range(nd):
        n = shape[perm[d]]
        T.narrow(t, None, d, pad, n)
        view = view[(slice(None),) * d + (slice(pad, pad + n),)]
    order = list(perm)
    for i in range(nd):
        j = order.index(i)
        if j != i:
            T.transpose(t, None, i, j)
            view = np.swapaxes(view, i, j)
            order[i], order[j] = order[j], order[i]
    assert th.shape(real, t) == tuple(shape)
    return t, view


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.mark.parametrize("real", TYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_fill_and_zero_touch_only_the_view(th, real, layout, rng):
    T = th.tensor(real)
    t, view = make(th, real, (3, 4, 2), layout, rng)
    base = view.base if view.base is not None else view
    T.fill(t, 7)
    view[...] = 7
    np.testing.assert_array_equal(th.to_numpy(real, t), view)
    storage = th.storage_values(real, T.storage(t))
    np.testing.assert_array_equal(np.sort(storage), np.sort(base.ravel()))
    T.zero(t)
    assert not th.to_numpy(real, t).any()
    T.free(t)


@pytest.mark.parametrize("real", TYPES)
@pytest.mark.parametrize("dst_layout", LAYOUTS)
@pytest.mark.parametrize("src_layout", LAYOUTS)
def test_copy_between_layouts(th, real, dst_layout, src_layout, rng):
    T = th.tensor(real)
    dst, _ = make(th, real, (2, 3, 4), dst_layout, rng)
    src, src_np = make(th, real, (2, 3, 4), src_layout, rng)
    T.copy(dst, src)
    np.testing.assert_array_equal(th.to_numpy(real, dst), src_np)
    T.free(dst)
    T.free(src)


@pytest.mark.parametrize("src", TYPES)
@pytest.mark.parametrize("dst", TYPES)
def test_copy_converts_types_on_strided_tensors(th, src, dst, rng):
    a, a_np = make(th, src, (3, 5), "transposed", rng)
    b, _ = make(th, dst, (3, 5), "narrowed", rng)
    getattr(th.tensor(dst), f"copy{src}")(b, a)
    np.testing.assert_array_equal(th.to_numpy(dst, b), a_np.astype(DTYPE[dst]))
    th.tensor(src).free(a)
    th.tensor(dst).free(b)


def test_copy_needs_equal_counts_not_shapes(th):
    T = th.tensor("Int")
    a = th.from_numpy("Int", np.arange(6).reshape(2, 3))
    b = T.newWithSize1d(6)
    T.copy(b, a)
    assert th.to_numpy("Int", b).tolist() == list(range(6))
    c = T.newWithSize1d(5)
    with pytest.raises(THRaised, match="inconsistent tensor size"):
        th.catch(T.copy, c, a)
    for x in (a, b, c):
        T.free(x)


@pytest.mark.parametrize("real", TYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_add_and_mul(th, real, layout, rng):
    T = th.tensor(real)
    t, t_np = make(th, real, (4, 3), layout, rng)
    r = T.new()
    T.add(r, t, 3)
    np.testing.assert_array_equal(th.to_numpy(real, r), t_np + 3)
    T.mul(r, t, 2)
    np.testing.assert_array_equal(th.to_numpy(real, r), t_np * 2)
    T.add(t, t, 1)  # in place, through the view
    np.testing.assert_array_equal(th.to_numpy(real, t), t_np + 1)
    T.free(r)
    T.free(t)


@pytest.mark.parametrize("real", TYPES)
@pytest.mark.parametrize("layouts", [("contiguous",) * 3, ("transposed", "narrowed", "permuted"),
                                     ("permuted", "contiguous", "transposed")])
def test_cadd_and_cmul(th, real, layouts, rng):
    T = th.tensor(real)
    r, _ = make(th, real, (2, 3, 4), layouts[0], rng)
    t, t_np = make(th, real, (2, 3, 4), layouts[1], rng)
    s, s_np = make(th, real, (2, 3, 4), layouts[2], rng)
    T.cadd(r, t, 2, s)
    np.testing.assert_array_equal(th.to_numpy(real, r), t_np + 2 * s_np)
    T.cmul(r, t, s)
    np.testing.assert_array_equal(th.to_numpy(real, r), t_np * s_np)
    T.cmul(t, t, s)
    np.testing.assert_array_equal(th.to_numpy(real, t), t_np * s_np)
    for x in (r, t, s):
        T.free(x)


def test_cadd_checks_counts(th):
    T = th.tensor("Float")
    a, b = T.newWithSize1d(3), T.newWithSize1d(4)
    with pytest.raises(THRaised, match="3 and 4 elements"):
        th.catch(T.cmul, a, a, b)
    T.free(a)
    T.free(b)


@pytest.mark.parametrize("real", TYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_sum_and_dot(th, real, layout, rng):
    T = th.tensor(real)
    t, t_np = make(th, real, (3, 2, 5), layout, rng)
    s, s_np = make(th, real, (3, 2, 5), "contiguous", rng)
    assert T.sum(t) == pytest.approx(t_np.astype(np.float64).sum())
    assert T.dot(t, s) == pytest.approx((t_np.astype(np.float64) * s_np).sum())
    T.free(t)
    T.free(s)


def test_apply_reads_expanded_and_overlapping_views(th):
    T = th.tensor("Double")
    row = th.from_numpy("Double", np.arange(4.0).reshape(1, 4))
    size = th.long_storage([3, 4])
    e = T.newExpand(row, size)
    assert T.sum(e) == 3 * 6
    v = th.from_numpy("Double", np.arange(6.0))
    u = T.newUnfold(v, 0, 3, 1)  # windows overlap: every element read several times
    assert T.sum(u) == sum(sum(range(i, i + 3)) for i in range(4))
    r = T.new()
    T.mul(r, u, 1)
    assert T.isContiguous(r)
    np.testing.assert_array_equal(th.to_numpy("Double", r), [[i, i + 1, i + 2] for i in range(4)])
    th.storage("Long").free(size)
    for x in (r, u, v, e, row):
        T.free(x)


def test_apply_handles_empty_and_single_element_tensors(th):
    T = th.tensor("Float")
    empty = T.newWithSize2d(0, 3)
    assert T.sum(empty) == 0
    T.fill(empty, 1)
    e2 = T.newTranspose(empty, 0, 1)
    other = T.newWithSize2d(3, 0)
    T.copy(other, e2)
    one = T.newWithSize3d(1, 1, 1)
    T.fill(one, 5)
    assert T.sum(one) == 5
    for x in (one, other, e2, empty):
        T.free(x)


@pytest.mark.parametrize("real", TYPES)
def test_masked_fill(th, real, rng):
    T = th.tensor(real)
    t, t_np = make(th, real, (4, 5), "transposed", rng)
    mask, mask_np = make(th, "Byte", (4, 5), "narrowed", rng, 0, 2)
    T.maskedFill(t, mask, 9)
    t_np[mask_np.astype(bool)] = 9
    np.testing.assert_array_equal(th.to_numpy(real, t), t_np)
    small = th.tensor("Byte").newWithSize1d(3)
    with pytest.raises(THRaised, match="mask has 3 elements"):
        th.catch(T.maskedFill, t, small, 9)
    th.tensor("Byte").free(small)
    th.tensor("Byte").free(mask)
    T.free(t)


@pytest.mark.parametrize("real", TYPES)
@pytest.mark.parametrize("shape, dim", [((5,), 0), ((4, 3), 0), ((4, 3), 1), ((2, 5, 3), 1)])
def test_index_select(th, real, shape, dim, rng):
    T = th.tensor(real)
    src, src_np = make(th, real, shape, "transposed", rng)
    positions = [2, 0, 1, 1]
    index = th.from_numpy("Long", positions)
    r = T.new()
    T.indexSelect(r, src, dim, index)
    np.testing.assert_array_equal(th.to_numpy(real, r), np.take(src_np, positions, axis=dim))
    T.free(r)
    th.tensor("Long").free(index)
    T.free(src)


def test_index_select_with_an_empty_index_and_bad_positions(th):
    T = th.tensor("Float")
    src = th.from_numpy("Float", np.arange(6.0).reshape(2, 3))
    empty = th.tensor("Long").newWithSize1d(0)
    r = T.new()
    T.indexSelect(r, src, 1, empty)
    assert th.shape("Float", r) == (2, 0)
    bad = th.from_numpy("Long", [0, 3])
    with pytest.raises(THRaised, match="index 3 out of range"):
        th.catch(T.indexSelect, r, src, 1, bad)
    with pytest.raises(THRaised, match="distinct"):
        th.catch(T.indexSelect, src, src, 1, empty)
    for x in (empty, bad):
        th.tensor("Long").free(x)
    T.free(r)
    T.free(src)


@pytest.mark.parametrize("real", TYPES)
@pytest.mark.parametrize("r_layout", ["contiguous", "transposed", "same-as-t"])
@pytest.mark.parametrize("m_layout", ["contiguous", "transposed"])
def test_addmm(th, real, r_layout, m_layout, rng):
    T = th.tensor(real)
    t, t_np = make(th, real, (3, 4), "narrowed", rng, 0, 4)
    m1, m1_np = make(th, real, (3, 2), m_layout, rng, 0, 4)
    m2, m2_np = make(th, real, (2, 4), m_layout, rng, 0, 4)
    if r_layout == "same-as-t":
        r = t
        T.retain(r)
    else:
        r, _ = make(th, real, (3, 4), r_layout, rng)
    expected = 2 * t_np.astype(np.float64) + 3 * (m1_np.astype(np.float64) @ m2_np)
    T.addmm(r, 2, t, 3, m1, m2)
    np.testing.assert_allclose(th.to_numpy(real, r), expected.astype(DTYPE[real]), rtol=1e-6)
    for x in (r, t, m1, m2):
        T.free(x)


def test_addmm_with_zero_beta_and_empty_shapes(th):
    T = th.tensor("Double")
    t = th.from_numpy("Double", np.full((2, 2), np.nan))
    m1 = th.from_numpy("Double", np.eye(2))
    m2 = th.from_numpy("Double", [[1.0, 2.0], [3.0, 4.0]])
    r = T.new()
    T.addmm(r, 0, t, 1, m1, m2)
    np.testing.assert_array_equal(th.to_numpy("Double", r), [[1, 2], [3, 4]])
    e1, e2, et = T.newWithSize2d(0, 2), T.newWithSize2d(2, 2), T.newWithSize2d(0, 2)
    T.addmm(r, 1, et, 1, e1, e2)
    assert th.shape("Double", r) == (0, 2)
    with pytest.raises(THRaised, match="size mismatch"):
        th.catch(T.addmm, r, 1, t, 1, m1, e1)
    with pytest.raises(THRaised, match="must not be one of the factors"):
        th.catch(T.addmm, m1, 1, t, 1, m1, m2)
    for x in (r, t, m1, m2, e1, e2, et):
        T.free(x)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_apply_on_random_layouts(th, data):
    """Random shapes (sizes 0..4, 1 to 4 dimensions), permutations and paddings: copy and
    cadd through APPLY2/APPLY3 agree with NumPy."""
    # Draw everything before creating tensors: Hypothesis may stop an example at any draw.
    nd = data.draw(st.integers(1, 4))
    shape = tuple(data.draw(st.lists(st.integers(0, 4), min_size=nd, max_size=nd)))
    seed = data.draw(st.integers(0, 2**32 - 1))
    layouts = [(list(data.draw(st.permutations(range(nd)))), data.draw(st.integers(0, 2)))
               for _ in range(3)]
    rng = np.random.default_rng(seed)
    made = [strided(th, "Double", shape, perm, pad, rng) for perm, pad in layouts]
    (r, _), (a, a_np), (b, b_np) = made
    T = th.tensor("Double")
    try:
        T.copy(r, a)
        np.testing.assert_array_equal(th.to_numpy("Double", r), a_np)
        T.cadd(r, a, 3, b)
        np.testing.assert_array_equal(th.to_numpy("Double", r), a_np + 3 * b_np)
        assert T.sum(b) == pytest.approx(b_np.sum())
    finally:
        for x in (r, a, b):
            T.free(x)
