"""The end of a round, game or match: who won, the standings, the key moments."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from cantina.games import events as common
from cantina.games import valdes, victim, vigo
from cantina.games.table import Game
from cantina.live import LiveTable
from cantina.narration import Narrator
from screens.table import campaign_of

if TYPE_CHECKING:
    from cantina.campaign.series import Campaign

KEY_MOMENTS = (
    vigo.Challenged,
    vigo.RollAgain,
    vigo.TitlePassed,
    valdes.TieBreak,
    victim.AutomaticWin,
    common.Eliminated,
    common.GameOver,
)
AGAIN = {"vigo": "Next round", "valdes": "New game", "victim": "Rematch"}


class ResultScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("n", "again", "Play on", id="result.again"),
        Binding("b,escape", "back", "Back to the cantina", id="result.back"),
    ]

    def __init__(self, table: LiveTable, history: list[common.Event]) -> None:
        super().__init__()
        self.table = table
        self.setup = table.setup
        self.game: Game[Any] = table.game
        self.history = history

    def compose(self) -> ComposeResult:
        narrate = Narrator(self.setup.names)
        with Vertical(id="result"):
            yield Static(Content(self.headline()), id="headline")
            yield Static(Content("\n").join(self.standings()), id="standings")
            moments = [narrate(e) for e in self.history if isinstance(e, KEY_MOMENTS)]
            moments = [line for line in moments if line][-8:]
            yield Static(Content("Key moments:\n" + "\n".join(moments)), id="moments")
            with Horizontal(id="result-buttons"):
                campaign = self.campaign()
                again = AGAIN[self.setup.game]
                if campaign is not None and campaign.over:
                    again = "Final standings"
                yield Button(Content(f"{again}  [n]"), id="again", variant="primary")
                yield Button(Content("Back to the cantina  [b]"), id="back")
        yield Footer()

    def campaign(self) -> Campaign | None:
        """The campaign this table's round belongs to, if any (played here, or at a
        shared table the host keeps)."""
        return campaign_of(self.table)

    def headline(self) -> str:
        names = self.setup.names
        result = self.game.state.result
        if self.setup.game == "vigo":
            takers = ", ".join(names[s] for s in result.takers)
            return f"Round over ({result.outcome}): {takers} took the pot."
        return f"{names[result.winner]} wins!"

    def standings(self) -> list[Content]:
        s = self.game.state
        rows = []
        for seat, name in enumerate(self.setup.names):
            if self.setup.game == "vigo":
                figure = f"bank {s.banks[seat]:>4}  ({s.result.net[seat]:+d})"
            elif self.setup.game == "valdes":
                figure = f"{s.scores[seat]:>2} points   bank {s.banks[seat]:>4}"
            else:
                figure = f"health {s.health[seat]}"
            rows.append(Content.assemble((f"{name:<16}", "bold"), f"  {figure}"))
        return rows

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "again":
            self.action_again()
        else:
            self.action_back()

    def action_again(self) -> None:
        from screens.table import TableScreen
        from screens.tables import table_screen

        below = self.app.screen_stack[-2]
        campaign = self.campaign()
        try:
            self.table.next_game()
        except ValueError as err:
            if campaign is not None and campaign.over:
                self.final_standings(campaign)  # its last round, or it cannot go on (VF-11)
                return
            if self.table.game is self.game:
                self.notify(str(err), title="Cannot play on", severity="warning")
                return
            # At a shared table another player already began the next game: follow it.
        options = {}
        if isinstance(below, TableScreen):
            below.detach()
            options = below.options  # the same seats acting here, the same AI player
        else:  # never a screen acting for every seat by default, at a shared table
            tables = [s for s in self.app.screen_stack if isinstance(s, TableScreen)]
            if tables:
                options = tables[-1].options
        self.dismiss()
        self.app.switch_screen(table_screen(self.table, **options))

    def final_standings(self, campaign: Campaign) -> None:
        from screens.standings import StandingsScreen

        self.app.back_to_start()
        self.app.push_screen(StandingsScreen(campaign))

    def action_back(self) -> None:
        self.dismiss()
        self.app.back_to_start()
