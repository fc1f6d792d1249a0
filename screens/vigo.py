"""The Vigo's Favor table: seats with banks and roles, the favor, the last roll, the pot."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Static

from cantina.games.events import Eliminated, Event, Rolled, SatOut, Transfer
from cantina.games.table import Action
from cantina.games.vigo import (
    Challenge,
    Claim,
    InFavor,
    Mercy,
    Raise,
    RollAgain,
    SetStake,
    StakeSet,
    VigoGame,
    VigoState,
    Vote,
)
from screens.dice import ChanceCube
from screens.status import Credits
from screens.table import TableScreen
from screens.table_widgets import SeatList

FAVOR_ROLLS = ("favor", "challenge favor")
"""The rolls that set the favor; every other cube roll is a player's."""


class VigoScreen(TableScreen):
    game: VigoGame

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._stake = 0
        self._fates: dict[int, str] = {}
        """Each seat's part in the pass of rolls on show, as its events have told it: a
        pass of rolls is one step of the rules, so while its events are still being shown
        the state drawn is the one before it, and these say who has rolled what so far."""

    def compose_board(self) -> ComposeResult:
        self._favor = ChanceCube(id="favor", classes="die")
        self._last_roll = ChanceCube(id="last-roll", classes="die")
        yield SeatList(id="seats")
        with Horizontal(id="vigo-dice", classes="dice-row"):
            with Vertical(classes="dice-group"):
                yield Static("Favor", classes="caption")
                yield self._favor
            with Vertical(classes="dice-group"):
                yield Static("Last roll", classes="caption")
                yield self._last_roll
        yield Credits("Pot", id="pot")

    def status(self, state: VigoState) -> str:
        shown = state.stake if state is self.game.state else self._stake
        stake = f"stake {shown}" if shown else "no stake yet"
        vigo = self.names[state.vigo]
        return f"Vigo's Favor · round {state.round} · Vigo: {vigo} · {stake}"

    def clear_board(self) -> None:
        self._stake = 0
        self._fates = {}
        for die in (self._favor, self._last_roll):
            die.finish()
            die.face = None

    def sync_board(self, state: VigoState) -> None:
        rows = []
        settled = state is self.game.state  # everything shown: the rules' own state
        pending = self.game.pending if settled else None
        turn = pending.seat if pending is not None else -1
        for seat, name in enumerate(self.names):
            role = self.role(state, seat)
            if not settled and seat != state.vigo:
                role = self._fates.get(seat, role)
            rows.append((name, role, f"bank {state.banks[seat]:>3}", seat == turn))
        self.query_one("#seats", SeatList).rows = tuple(rows)
        self.query_one("#pot", Credits).amount = state.pot

    def role(self, s: VigoState, seat: int) -> str:
        if seat == s.vigo:
            return "Vigo"
        if s.phase == "stake":
            return "player"
        if seat not in s.order:
            return "sat out"
        if s.phase == "over":
            return "took the pot" if s.result and seat in s.result.takers else "done"
        if seat in s.survivors:
            return "in favor"
        if seat in s.to_roll:
            return "to roll"
        if s.phase == "mercy" and seat == s.turn:
            return "missed!"
        return "out"

    def show_event(self, event: Event, animate: bool) -> None:
        match event:
            case Rolled(die="cube"):
                die = self._favor if event.why in FAVOR_ROLLS else self._last_roll
                die.roll(event.face, quick=not animate)
            case StakeSet(stake=stake):
                self._stake, self._fates = stake, {}
            case RollAgain(seats=seats, stake=stake):
                self._stake, self._fates = stake, dict.fromkeys(seats, "to roll")
            case Transfer(source=int(seat), why="ante"):
                self._fates[seat] = "to roll"
            case SatOut(seat=seat):
                self._fates[seat] = "sat out"
            case InFavor(seat=seat):
                self._fates[seat] = "in favor"
            case Eliminated(seat=seat):
                self._fates[seat] = "out"

    def option_label(self, action: Action) -> str:
        s = self.game.state
        match action:
            case SetStake(stake):
                return f"Stake {stake}"
            case Mercy(pay):
                return f"Pay {s.stake} for mercy" if pay else "Take the loss"
            case Claim():
                return f"Claim {s.pot}"
            case Challenge():
                return "Challenge"
            case Raise(stakes):
                return f"Raise {stakes} ({stakes * s.stake} cr)"
            case Vote(split):
                return "Split" if split else "Roll again"
        return str(action)

    def odds_text(self, values: Sequence[float]) -> str:
        return "expected credits  " + "  ".join(
            f"{n}:{v:+.1f}" for n, v in enumerate(values, start=1)
        )

    def result_headline(self, state: VigoState) -> str:
        result = state.result
        assert result is not None
        takers = ", ".join(self.names[s] for s in result.takers)
        return f"Round over ({result.outcome}): {takers} took the pot."

    def result_rows(self, state: VigoState) -> list[Content]:
        assert state.result is not None
        return [
            Content.assemble(
                (f"{name:<16}", "bold"),
                f"  bank {state.banks[seat]:>4}  ({state.result.net[seat]:+d})",
            )
            for seat, name in enumerate(self.names)
        ]
