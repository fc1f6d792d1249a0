"""The notice shown instead of a broken layout while the terminal is too small."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static


class TooSmallScreen(ModalScreen[None]):
    """Shown instead of a broken layout while the terminal is below 80x24."""

    DEFAULT_CSS = """
    TooSmallScreen { align: center middle; }
    TooSmallScreen > Static { width: auto; max-width: 100%; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        yield Static("Please enlarge the terminal to at least 80 x 24.", id="too-small")
