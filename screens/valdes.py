"""The Val-Des table: the slate of calls and scores, the last cube, the pot."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Static

from cantina.games.events import POT, Event, Rolled, Transfer
from cantina.games.table import Action
from cantina.games.valdes import CALL_NAMES, Call, Called, SetStarted, ValDesGame, ValDesState
from screens.dice import ChanceCube
from screens.status import Credits, Slate
from screens.table import TableScreen


class ValDesScreen(TableScreen):
    game: ValDesGame

    def compose_board(self) -> ComposeResult:
        self._cup = ChanceCube(id="cup", classes="die")
        yield Slate(id="slate")
        with Horizontal(classes="dice-row"), Vertical(classes="dice-group"):
            yield Static("Last cube", classes="caption")
            yield self._cup
        yield Credits("Pot", id="pot")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.calls_by_set: list[dict[int, str]] = []
        """Who called what in each set, read from the game's log (the state keeps only
        the set under way)."""

    def status(self, state: ValDesState) -> str:
        kind = "tie-break set" if state.tie_break else f"set {state.set_number} of 7"
        caster = self.names[state.caster]
        return f"Val-Des · {kind} · caster: {caster} · Val is red, Des is blue"

    def clear_board(self) -> None:
        self.calls_by_set = []
        self._cup.finish()
        self._cup.face = None

    def show_event(self, event: Event, animate: bool) -> None:
        if isinstance(event, SetStarted):
            self.calls_by_set.append({})
        elif isinstance(event, Called) and self.calls_by_set:
            self.calls_by_set[-1][event.seat] = event.colour
        elif isinstance(event, Rolled) and event.why == "reveal":
            self._cup.roll(event.face, quick=not animate)

    def sync_board(self, state: ValDesState) -> None:
        self.query_one("#pot", Credits).amount = state.pot
        self.query_one("#slate", Slate).update_slate(
            self.names,
            list(state.reveals),
            self.calls_by_set[: len(state.reveals)],
            list(state.scores),
        )

    def option_label(self, action: Action) -> str:
        if isinstance(action, Call):
            return f"{CALL_NAMES[action.colour]} ({action.colour})"
        return str(action)

    def odds_text(self, values: Sequence[float]) -> str:
        return "no call has an edge: the cube has no memory, each is right half the time"

    def result_headline(self, state: ValDesState) -> str:
        assert state.result is not None
        return f"{self.names[state.result.winner]} wins!"

    def result_rows(self, state: ValDesState) -> list[Content]:
        """Name, points ("1 point ", padded so the banks stay in a column), bank and what
        this game did to it (ante paid, pot won), as Vigo's Favor's result shows it."""
        net = bank_changes(self.table.log, len(self.names))
        rows = []
        for seat, name in enumerate(self.names):
            score = state.scores[seat]
            points = "point " if score == 1 else "points"
            rows.append(
                Content.assemble(
                    (f"{name:<16}", "bold"),
                    f"  {score:>2} {points}   bank {state.banks[seat]:>4}  ({net[seat]:+d})",
                )
            )
        return rows


def bank_changes(log: Sequence[Event], seats: int) -> list[int]:
    """What this game's payments (its log's transfers: antes, the pot) did to each bank:
    the state keeps only the banks as they end."""
    net = [0] * seats
    for event in log:
        if isinstance(event, Transfer):
            for account, change in ((event.source, -event.amount), (event.target, event.amount)):
                if account != POT:
                    net[account] += change
    return net
