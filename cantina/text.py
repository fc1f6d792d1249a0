"""Untrusted text made safe to show: names typed at a table, sent over SSH, or read from a
save file. One rule for all of it, so a name shows the same wherever it is drawn."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable


def clean_text(text: str) -> str:
    """`text` without the characters of Unicode's "other" categories: controls (ESC, the
    C1 CSI, newlines, tabs), format characters (bidi overrides, zero-width spaces and
    joiners), surrogates, private-use and unassigned code points. What is left cannot
    send the terminal a command or reorder the line around it, and draws as wide as
    rich measures it.

    The zero-width joiner goes too, although it joins emoji sequences (a family drawn as
    one face): rich counts a joiner as joining whatever is either side of it ("a", joiner,
    "b" measures one cell and is drawn in two), and a terminal without grapheme clusters
    draws a joined sequence as its separate emoji, wider than measured. Without it each
    emoji measures and draws alike. Private-use and unassigned characters go because
    their width depends on the font or the terminal's Unicode version."""
    return "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")


_KINDS = {
    "int": "a whole number",
    "float": "a number",
    "str": "text",
    "bytes": "text",
    "bool": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}
_COMPARED = {
    ">=": "{} or more",
    "<=": "at most {}",
    ">": "more than {}",
    "<": "less than {}",
}


def _kind(name: str) -> str:
    return " or ".join(_KINDS.get(part.strip(), part.strip()) for part in name.split("|"))


def _length(match: re.Match[str]) -> str:
    what = "characters" if match[1] == "str" else "items"
    least = match[2] == ">="
    return f"should have {'at least' if least else 'at most'} {match[3]} {what}"


_PLAIN: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (re.compile(r" - at `\$([^`]*)`"), lambda m: f" (at ${m[1]})"),
    (
        re.compile(r"Expected `([^`]+)`, got `([^`]+)`"),
        lambda m: f"should be {_kind(m[1])}, not {_kind(m[2])}",
    ),
    (re.compile(r"Expected `([^`]+)` of length (>=|<=) (\d+)"), _length),
    (
        re.compile(r"Expected `[^`]+` (>=|<=|>|<) (\S+)"),
        lambda m: "should be " + _COMPARED[m[1]].format(m[2]),
    ),
    (re.compile(r"Expected `[^`]+` matching regex"), lambda m: "should match the pattern"),
    (re.compile(r"Expected `([^`]+)`"), lambda m: f"should be {_kind(m[1])}"),
    (re.compile(r"Object missing required field `([^`]+)`"), lambda m: f"lacks the field {m[1]!r}"),
    (
        re.compile(r"Object contains unknown field `([^`]+)`"),
        lambda m: f"has a field it should not: {m[1]!r}",
    ),
    (re.compile(r"Invalid enum value"), lambda m: "is none of the values allowed:"),
    (re.compile(r"^Invalid value "), lambda m: "is none of the values allowed: "),
]


def plain_reason(text: str) -> str:
    """A schema check's message (msgspec's "Expected `int` >= 0 - at `$.ante`") in plain
    words ("should be 0 or more (at $.ante)"), for people rather than programmers; any
    other text is left as it is."""
    for pattern, words in _PLAIN:
        text = pattern.sub(words, text)
    return text
