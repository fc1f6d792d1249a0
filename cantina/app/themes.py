"""Retro themes: an amber CRT and a green phosphor screen, besides Textual's own."""

from __future__ import annotations

from textual.theme import Theme

AMBER = Theme(
    name="cantina-amber",
    primary="#FFB000",
    secondary="#CC7A00",
    accent="#FFD27F",
    foreground="#FFC766",
    background="#1A0F00",
    surface="#241500",
    panel="#2E1B00",
    warning="#FF8C00",
    error="#FF5F3F",
    success="#E6C200",
    dark=True,
)

PHOSPHOR = Theme(
    name="cantina-phosphor",
    primary="#33FF66",
    secondary="#1FAF45",
    accent="#B3FFC6",
    foreground="#5CFF85",
    background="#001A07",
    surface="#002409",
    panel="#002E0C",
    warning="#CCFF33",
    error="#FF6B57",
    success="#33FF66",
    dark=True,
)

THEMES = (AMBER, PHOSPHOR)
