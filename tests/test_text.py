"""One rule for untrusted text: `clean_text`, under both `clean_name` and `safe_text`."""

from __future__ import annotations

import unicodedata

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
