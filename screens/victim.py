"""The Victim! table: roles and health, the battle dice and the Supporter's dice."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Static

from cantina.games.events import Event, Rolled
from cantina.games.table import Action
from cantina.games.victim import Plan, Planned, VictimGame
from screens.dice import FaceDie, SixDie, TwelveDie
from screens.status import HealthPips
from screens.table import TableScreen

ROLE = {"attacker": "Attacker", "supporter": "Supporter", "victim": "Victim"}


class VictimScreen(TableScreen):
    game: VictimGame

    def compose_board(self) -> ComposeResult:
        for seat in range(3):
            with Horizontal(classes="health-row"):
                yield Static(id=f"who-{seat}", classes="who")
                yield HealthPips(id=f"health-{seat}")
        with Horizontal(classes="dice-row"):
            with Vertical(classes="dice-group"):
                yield Static("Attacker", classes="caption")
                with Horizontal():
                    yield SixDie(id="a1", classes="die")
                    yield SixDie(id="a2", classes="die")
            with Vertical(classes="dice-group"):
                yield Static("Victim", classes="caption")
                with Horizontal():
                    yield SixDie(id="v1", classes="die")
                    yield SixDie(id="v2", classes="die")
            with Vertical(classes="dice-group"):
                yield Static("Supporter", classes="caption")
                with Horizontal():
                    # one widget for the three dice: it takes the kind of the die rolled
                    yield FaceDie("support", id="face", classes="die face")
                    yield TwelveDie(id="d12", classes="die")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._battle = 0
        self._who: dict[int, Content] = {}

    def status(self) -> str:
        s = self.game.state
        return f"Victim! · turn {s.turn} · the Supporter picks a target and a die in secret"

    def sync_board(self) -> None:
        s = self.game.state
        top = s.settings.starting_health + (1 if s.settings.rematch_bonus else 0)
        for seat, name in enumerate(self.names):
            role = ROLE[self.game.role_of(seat)]
            who = Content.assemble((f"{name:<16}", "bold"), f" {role:<10}")
            if who != self._who.get(seat):  # roles change once a battle, not every move
                self._who[seat] = who
                # `.who` has a fixed width and one line: no new layout is needed
                self.query_one(f"#who-{seat}", Static).update(who, layout=False)
            pips = self.query_one(f"#health-{seat}", HealthPips)
            pips.maximum = top
            pips.health = s.health[seat]

    def show_event(self, event: Event) -> None:
        if isinstance(event, Planned):
            self._battle = 0
            for die in self.query(".die"):
                die.finish()  # a tumble still running would overwrite the cleared face
            self.query_one("#face", FaceDie).face = None
            self.query_one("#d12", TwelveDie).value = None
        elif isinstance(event, Rolled):
            if event.why == "battle":
                slot = ("#a1", "#a2", "#v1", "#v2")[self._battle % 4]
                self._battle += 1
                self.query_one(slot, SixDie).roll(event.face)
            elif event.die in ("support", "sabotage", "neutral"):
                face = self.query_one("#face", FaceDie)
                face.finish()  # an earlier tumble settles as the die it was
                face.kind = event.die
                face.roll(event.face)
            elif event.die == "d12":
                self.query_one("#d12", TwelveDie).roll(event.face)

    def option_label(self, action: Action) -> str:
        if isinstance(action, Plan):
            target = self.game.target_of(action.direction)
            role = ROLE[self.game.role_of(target)]
            return f"{action.die.title()} {self.names[target]} ({role}, {action.direction})"
        return str(action)

    def odds_text(self, value: float) -> str:
        return f"{value:.0%} win"
