"""The notice shown instead of a broken layout while the terminal is too small."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static


class TooSmallScreen(ModalScreen[None]):
    """Shown instead of a broken layout while the terminal is below 80x24: it covers the
    whole screen (a modal screen's own background lets the one below show through), with
    the sentence in the middle, wrapped if it must be."""

    DEFAULT_CSS = """
    TooSmallScreen { align: center middle; background: $background; }
    TooSmallScreen > Static { width: 100%; text-align: center; padding: 0 1; color: $foreground; }
    """

    def compose(self) -> ComposeResult:
        yield Static("Please enlarge the terminal to at least 80 x 24.", id="too-small")
