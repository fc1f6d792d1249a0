"""The Val-Des table: the slate of calls and scores, the last cube, the pot."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from cantina.games.events import Event, Rolled
from cantina.games.table import Action
from cantina.games.valdes import CALL_NAMES, Call, Called, SetStarted, ValDesGame
from screens.dice import ChanceCube, Die
from screens.status import Credits, Slate
from screens.table import TableScreen


class ValDesScreen(TableScreen):
    game: ValDesGame

    def compose_board(self) -> ComposeResult:
        yield Slate(id="slate")
        with Horizontal(classes="dice-row"), Vertical(classes="dice-group"):
            yield Static("Last cube", classes="caption")
            yield ChanceCube(id="cup", classes="die")
        yield Credits("Pot", id="pot")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.calls_by_set: list[dict[int, str]] = []

    def status(self) -> str:
        s = self.game.state
        kind = "tie-break set" if s.tie_break else f"set {s.set_number} of 7"
        return f"Val-Des · {kind} · caster: {self.names[s.caster]} · Val is red, Des is blue"

    def show_event(self, event: Event) -> None:
        if isinstance(event, SetStarted):
            self.calls_by_set.append({})
        elif isinstance(event, Called):
            self.calls_by_set[-1][event.seat] = event.colour
        elif isinstance(event, Rolled) and event.why == "reveal":
            self.query_one("#cup", ChanceCube).roll(event.face)

    def sync_board(self) -> None:
        self.query_one("#pot", Credits).amount = self.game.state.pot
        if not self.query_one("#cup", ChanceCube).rolling:  # else: when the cup settles
            self.sync_slate()

    def sync_slate(self) -> None:
        s = self.game.state
        self.query_one("#slate", Slate).update_slate(
            self.names, list(s.reveals), self.calls_by_set[: len(s.reveals)], list(s.scores)
        )

    def on_die_settled(self, message: Die.Settled) -> None:
        """The slate shows a set's result only once the cup has stopped tumbling."""
        self.sync_slate()

    def option_label(self, action: Action) -> str:
        if isinstance(action, Call):
            return f"{CALL_NAMES[action.colour]} ({action.colour})"
        return str(action)

    def odds_text(self, value: float) -> str:
        return f"{value:.0%} (no edge)"
