"""Untrusted text made safe to show: names typed at a table, sent over SSH, or read from a
save file. One rule for all of it, so a name shows the same wherever it is drawn."""

from __future__ import annotations

import unicodedata


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
