"""Callback typedefs a project's gtk-doc documents taking parameters over
(conventions/callbacktypes.py)."""

from refcheck.conventions import callbacktypes

_RESULT_CB = """
/**
 * GrlSourceResultCb:
 * @source: a source
 * @operation_id: operation identifier
 * @media: (nullable) (transfer full): a data transfer object
 * @remaining: the number of remaining media
 * @user_data: user data passed to the callback
 * @error: (nullable): possible error
 *
 * Prototype for the callback passed to the media sources' methods
 */
typedef void (*GrlSourceResultCb) (GrlSource *source,
                                   guint operation_id,
                                   GrlMedia *media,
                                   guint remaining,
                                   gpointer user_data,
                                   const GError *error);
"""

_LENT_CB = """
/**
 * PeekCb:
 * @item: the item, lent
 * @user_data: data
 */
typedef void (*PeekCb) (GObject *item, gpointer user_data);
"""

_OUT_CB = """
/**
 * FillCb:
 * @out: (transfer full): filled in
 */
typedef void (*FillCb) (GObject **out);
"""


def test_documented_parameter_position():
    assert callbacktypes.scan(_RESULT_CB) == {"GrlSourceResultCb": (2,)}


def test_undocumented_and_out_parameters_say_nothing():
    assert callbacktypes.scan(_LENT_CB) == {}
    assert callbacktypes.scan(_OUT_CB) == {}


def test_functions_are_not_callback_types():
    text = """
/**
 * take_item:
 * @item: (transfer full): the item
 */
void take_item (GObject *item);
"""
    assert callbacktypes.scan(text) == {}


def test_two_files_disagreeing_say_nothing(tmp_path):
    a, b = tmp_path / "a.h", tmp_path / "b.h"
    a.write_text(_RESULT_CB)
    b.write_text(_RESULT_CB.replace("@media: (nullable) (transfer full)", "@source: (transfer full)"))
    assert callbacktypes.project_callbacks([], str(tmp_path)) == {}
    b.write_text(_LENT_CB)
    assert callbacktypes.project_callbacks([str(a)], str(tmp_path)) == {"GrlSourceResultCb": (2,)}
