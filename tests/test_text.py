"""One rule for untrusted text: `clean_text`, under both `clean_name` and `safe_text`."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cantina.seating import MAX_NAME, clean_name
from cantina.text import clean_text
from screens.status import safe_text


def test_controls_and_format_characters_go_and_the_rest_stays() -> None:
    assert clean_text("Bad\x1b[2J\u202ename") == "Bad[2Jname"  # ESC, a bidi override
    assert clean_text("x\x9b31m\ny\tz\x00") == "x31myz"  # the C1 CSI, newline, tab, NUL
    assert clean_text("a\u200bb\u200dc\ufeff") == "abc"  # zero-width space, joiner, BOM
    assert clean_text("\ue0b0\U000f0000") == ""  # private use
    assert clean_text("Zoë  你好 🎲 1½") == "Zoë  你好 🎲 1½"  # spaces are left to callers


def test_a_joined_emoji_sequence_becomes_its_emoji() -> None:
    assert (
        clean_text("\U0001f468\u200d\U0001f469\u200d\U0001f467") == "\U0001f468\U0001f469\U0001f467"
    )


@given(st.text())
def test_nothing_of_the_other_categories_survives(text: str) -> None:
    cleaned = clean_text(text)
    assert all(unicodedata.category(ch)[0] != "C" for ch in cleaned)
    assert clean_text(cleaned) == cleaned


@given(st.text())
def test_names_and_drawn_text_follow_the_same_rule(text: str) -> None:
    assert safe_text(text).plain == clean_text(text)
    name = clean_name(text, "Fallback")
    assert name == (" ".join(clean_text(text).split())[:MAX_NAME].strip() or "Fallback")


def test_markup_is_never_read() -> None:
    assert safe_text("[bold]Eve[/]").plain == "[bold]Eve[/]"


def test_schema_messages_are_put_in_plain_words():
    """What msgspec says of a save or settings that break the schema, said for people:
    no "Expected `int`", the field kept."""
    import msgspec

    from cantina.games.table import checked
    from cantina.games.valdes import ValDesSettings
    from cantina.text import plain_reason

    cases = {
        "Expected `int` >= 0 - at `$.ante`": "should be 0 or more (at $.ante)",
        "Expected `int` <= 100": "should be at most 100",
        "Expected `int`, got `str` - at `$.banks[0]`": "should be a whole number, not text "
        "(at $.banks[0])",
        "Expected `int | null`, got `array`": "should be a whole number or null, not a list",
        "Expected `str` of length <= 40 - at `$.name`": "should have at most 40 characters "
        "(at $.name)",
        "Expected `array` of length >= 2": "should have at least 2 items",
        "Object missing required field `game`": "lacks the field 'game'",
        "Expected `object`, got `str`": "should be an object, not text",
        "made by a newer cantina": "made by a newer cantina",
    }
    for said, plain in cases.items():
        assert plain_reason(said) == plain
    with pytest.raises(ValueError) as refused:
        checked(msgspec.structs.replace(ValDesSettings(), ante=-4))
    assert str(refused.value) == "invalid table settings: should be 0 or more (at $.ante)"
