"""Applicability is ordered by trust, and reads as the word every output prints."""

import json

from sortlint.diagnostics import Applicability, Fix


def test_display_only_is_below_unsafe_which_is_below_safe():
    assert Applicability.DISPLAY_ONLY < Applicability.UNSAFE < Applicability.SAFE
    assert Applicability.SAFE >= Applicability.UNSAFE >= Applicability.DISPLAY_ONLY
    assert max(Applicability) is Applicability.SAFE
    assert sorted([Applicability.SAFE, Applicability.DISPLAY_ONLY, Applicability.UNSAFE]) == [
        Applicability.DISPLAY_ONLY, Applicability.UNSAFE, Applicability.SAFE,
    ]


def test_each_value_is_the_word_reports_print():
    assert [str(a) for a in Applicability] == ["unavailable", "unsafe", "safe"]
    assert Applicability.UNSAFE == "unsafe"
    assert json.dumps({"applicability": Applicability.DISPLAY_ONLY}) == '{"applicability": "unavailable"}'
    assert f"{Applicability.SAFE}" == "safe"


def test_a_fix_is_capped_never_raised():
    fix = Fix(Applicability.SAFE, "drop the key")
    assert fix.at_most(Applicability.UNSAFE).applicability is Applicability.UNSAFE
    shown = Fix(Applicability.DISPLAY_ONLY, "drop the key: it is templated")
    assert shown.at_most(Applicability.UNSAFE) is shown
