"""The Victim! table: roles and health, the battle dice and the Supporter's dice."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Grid, Horizontal
from textual.content import Content
from textual.widgets import Static

from cantina.games.events import Event, Rolled
from cantina.games.table import Action
from cantina.games.victim import Plan, Planned, RolesSet, VictimGame, VictimState
from screens.dice import FaceDie, SixDie, TwelveDie
from screens.status import HealthPips
from screens.table import TableScreen, campaign_of
from screens.table_widgets import Line

ROLE = {"attacker": "Attacker", "victim": "Victim", "supporter": "Supporter"}
"""Each role's name, in the order of the dice on the board: two for each role."""
DICE_GROUP = 15
"""Cells from one role's pair of dice to the next: two dice of 7 and a gap (tables.tcss)."""


class VictimScreen(TableScreen):
    game: VictimGame

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._battle = 0
        self._who: dict[int, Content] = {}
        # The board's widgets, kept: a move changes most of them, and finding them by
        # query on every event cost more than drawing them.
        self._names = [Line(id=f"who-{seat}", classes="who") for seat in range(3)]
        self._health = [HealthPips(id=f"health-{seat}") for seat in range(3)]
        self._battle_dice = [SixDie(id=slot, classes="die") for slot in ("a1", "a2", "v1", "v2")]
        # one widget for the three dice: it takes the kind of the die rolled
        self._face = FaceDie("unknown", id="face", classes="die face")
        self._d12 = TwelveDie(id="d12", classes="die")

    def compose_board(self) -> ComposeResult:
        # Few containers: after every move most of the board is drawn again, and each
        # widget under a changed cell costs a share of the frame, containers included.
        with Grid(id="victim-health"):
            for name, health in zip(self._names, self._health, strict=True):
                yield name
                yield health
        captions = "".join(f"{caption:<{DICE_GROUP}}" for caption in ROLE.values())
        yield Static(captions.rstrip(), id="victim-captions", classes="caption")
        with Horizontal(id="victim-dice"):
            yield from (*self._battle_dice, self._face, self._d12)

    def status(self, state: VictimState) -> str:
        if state.result is not None:
            return f"Victim! · the match is over after {state.turn} turns"
        # behind a replay's label ("Replay of match 12 · ") the long words did not fit 80
        # columns: there the phase is said shortly (the narration says what was picked)
        picks = "picks in secret" if self.label else "picks a target and a die in secret"
        return f"Victim! · turn {state.turn} · the Supporter {picks}"

    def clear_board(self) -> None:
        self._battle = 0
        for die in (*self._battle_dice, self._face, self._d12):
            die.finish()
        for die in self._battle_dice:
            die.value = None
        self._face.face = None
        self._face.kind = "unknown"  # the Supporter's secret, until rolled
        self._d12.value = None

    def told_roles(self) -> dict[int, str]:
        """Each seat's role as the viewer has been told it: the last roles told (RolesSet)
        among the events shown, none before the first. The state has the roles its whole
        step left, so the board named the first Attacker while the rolls for it were still
        to be told, and the next turn's roles while the battle was."""
        for event in reversed(self.table.log[: self.dealer.shown]):
            if isinstance(event, RolesSet):
                return {
                    event.attacker: "attacker",
                    event.supporter: "supporter",
                    event.victim: "victim",
                }
        return {}

    def sync_board(self, state: VictimState) -> None:
        s = state
        top = s.settings.starting_health  # a rematch bonus shows as hearts beyond it
        roles = self.told_roles()
        for seat, name in enumerate(self.names):
            role = ROLE[roles[seat]] if seat in roles else ""
            who = Content.assemble((f"{name:<16}", "bold"), f" {role:<10}")
            if who != self._who.get(seat):  # roles change once a battle, not every move
                self._who[seat] = who
                self._names[seat].text = who
            pips = self._health[seat]
            pips.maximum = top
            pips.health = s.health[seat]

    def show_event(self, event: Event, animate: bool) -> None:
        quick = not animate
        if isinstance(event, Planned):
            self._battle = 0
            for die in (*self._battle_dice, self._face, self._d12):
                die.finish()  # a tumble still running would overwrite the cleared face
            self._face.face = None
            self._face.kind = "unknown"  # the Supporter's secret, until rolled
            self._d12.value = None
        elif isinstance(event, Rolled):
            if event.why == "battle":
                self._battle_dice[self._battle % 4].roll(event.face, quick=quick)
                self._battle += 1
            elif event.die in ("support", "sabotage", "neutral"):
                self._face.finish()  # an earlier tumble settles as the die it was
                self._face.kind = event.die
                self._face.roll(event.face, quick=quick)
            elif event.die == "d12":
                self._d12.roll(event.face, quick=quick)

    def option_label(self, action: Action) -> str:
        if isinstance(action, Plan):
            target = self.game.target_of(action.direction)
            role = ROLE[self.game.role_of(target)]
            return f"{action.die.title()} {self.names[target]} ({role}, {action.direction})"
        return str(action)

    def odds_text(self, values: Sequence[float]) -> str:
        return "win chance  " + "  ".join(f"{n}:{v:.0%}" for n, v in enumerate(values, start=1))

    def result_headline(self, state: VictimState) -> str:
        assert state.result is not None
        return f"{self.names[state.result.winner]} wins!"

    def result_rows(self, state: VictimState) -> list[Content]:
        """Each seat's health; in a campaign also its bank and what the match stake did to
        it (paid by all, taken by the winner), as the other games' results show banks."""
        assert state.result is not None
        campaign = campaign_of(self.table)
        rows = []
        for seat, name in enumerate(self.names):
            row = Content.assemble((f"{name:<16}", "bold"), f"  health {state.health[seat]}")
            if campaign is not None:
                stake = campaign.data.match_stake
                net = stake * (len(self.names) - 1) if seat == state.result.winner else -stake
                row += Content(f"   bank {campaign.data.banks[seat]:>4}  ({net:+d})")
            rows.append(row)
        return rows
