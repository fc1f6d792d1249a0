"""The Review: what each decision of a game cost and what the dice gave, seat by seat.

Opened from the result dialog (`a`). The analysis (`cantina.analysis`) replays the game's
every die against the exact odds, which can take a while on a big table, so it runs in a
worker thread on a copy of the game's record, and the screen says so until it is done.
"""

from __future__ import annotations

import asyncio

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from cantina.analysis import GameRecord, Review
from cantina.analysis_report import review_lines
from cantina.games import GAMES
from screens.footer import CantinaFooter

DECISIONS_SHOWN = 40
"""The biggest mistakes listed; the rest are counted."""


class ReviewScreen(ModalScreen[None]):
    """Each seat's skill and luck, then the decisions, biggest mistakes first."""

    DEFAULT_CSS = """
    ReviewScreen { background: $background 100%; }
    ReviewScreen #review-title { height: 1; padding: 0 1; background: $panel; }
    ReviewScreen #review-body { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    """
    BINDINGS = [Binding("escape,b,a", "dismiss", "Back", id="review.back")]

    def __init__(self, record: GameRecord, names: list[str], unit: str) -> None:
        """`record` is copied from the table (`cantina.analysis.record_of`), so the table
        may play on while the analysis runs."""
        super().__init__()
        self.record = record
        self.names = names
        self.unit = unit
        self.review: Review | None = None

    def compose(self) -> ComposeResult:
        game = self.record.start.game_id
        title = f"{GAMES[game].title}: analysis of this {self.unit}"
        yield Static(Content(title), id="review-title")
        with VerticalScroll(id="review-body"):
            yield Static(
                Content("Working out what each decision and each die was worth..."),
                id="review-text",
            )
        yield CantinaFooter()

    def on_mount(self) -> None:
        self.query_one("#review-body").focus()
        self.run_worker(self.work(), exclusive=True)

    async def work(self) -> None:
        self.review = await asyncio.to_thread(self.record.analyse)
        self.show()

    def show(self) -> None:
        """The analysis, its options wrapped to the width it has now."""
        if self.review is None:
            return
        # the width inside the body's padding, less its scrollbar's column
        width = self.query_one("#review-body").content_region.width - 1
        lines = review_lines(self.review, self.names, DECISIONS_SHOWN, max(width, 1))
        self.query_one("#review-text", Static).update(Content("\n".join(lines)))

    def on_resize(self) -> None:
        self.show()
