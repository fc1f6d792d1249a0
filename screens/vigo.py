"""The Vigo's Favor table: seats with banks and roles, the favor, the last roll, the pot."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from cantina.games.events import Event, Rolled
from cantina.games.table import Action
from cantina.games.vigo import Challenge, Claim, Mercy, Raise, SetStake, VigoGame, Vote
from screens.dice import ChanceCube
from screens.status import Credits
from screens.table import SeatList, TableScreen


class VigoScreen(TableScreen):
    game: VigoGame

    def compose_board(self) -> ComposeResult:
        yield SeatList(id="seats")
        with Horizontal(id="vigo-dice", classes="dice-row"):
            with Vertical(classes="dice-group"):
                yield Static("Favor", classes="caption")
                yield ChanceCube(id="favor", classes="die")
            with Vertical(classes="dice-group"):
                yield Static("Last roll", classes="caption")
                yield ChanceCube(id="last-roll", classes="die")
        yield Credits("Pot", id="pot")

    def status(self) -> str:
        s = self.game.state
        stake = f"stake {s.stake}" if s.stake else "no stake yet"
        vigo = self.names[s.vigo]
        return f"Vigo's Favor · round {s.round} · Vigo: {vigo} · {stake}"

    def sync_board(self) -> None:
        s = self.game.state
        rows = []
        turn = self.game.pending.seat if self.game.pending else -1
        for seat, name in enumerate(self.names):
            rows.append((name, self.role(seat), f"bank {s.banks[seat]:>3}", seat == turn))
        self.query_one("#seats", SeatList).rows = tuple(rows)
        self.query_one("#pot", Credits).amount = s.pot

    def role(self, seat: int) -> str:
        s = self.game.state
        if seat == s.vigo:
            return "Vigo"
        if s.phase == "stake":
            return "player"
        if seat not in s.order:
            return "sat out"
        if s.phase == "over":
            return "took the pot" if seat in s.result.takers else "done"
        if seat in s.survivors:
            return "in favor"
        if seat in s.to_roll:
            return "to roll"
        if s.phase == "mercy" and seat == s.turn:
            return "missed!"
        return "out"

    def show_event(self, event: Event) -> None:
        if isinstance(event, Rolled) and event.die == "cube":
            target = "#favor" if event.why in ("favor", "challenge favor") else "#last-roll"
            self.query_one(target, ChanceCube).roll(event.face)

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

    def odds_text(self, value: float) -> str:
        return f"{value:+.1f} cr"
