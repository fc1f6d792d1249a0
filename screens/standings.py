"""A campaign's standings: banks, rounds won, times as Vigo, best streaks and luck; and
the way into a replay of any round."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Footer, Static

from cantina.app import stylesheets
from cantina.campaign.series import UNIT_WORDS, Campaign
from cantina.live import LiveTable
from screens.dialogs import AskScreen


class StandingsScreen(ModalScreen[None]):
    """Where a campaign stands. At its end (`closing`) leaving goes back to the cantina;
    looked at mid-campaign or from the saves list, it goes back to where it came from."""

    CSS_PATH = stylesheets("campaigns.tcss")

    BINDINGS = [
        Binding("p", "replay", "Replay a round", id="standings.replay"),
        Binding("b,escape", "back", "Back", id="standings.back"),
    ]

    def __init__(self, campaign: Campaign, *, closing: bool = True) -> None:
        super().__init__()
        self.campaign = campaign
        self.closing = closing

    def compose(self) -> ComposeResult:
        c = self.campaign
        unit = UNIT_WORDS[c.game]
        with Vertical(id="standings-box"):
            yield Static(Content(self.headline()), id="standings-title")
            table: DataTable[str] = DataTable(
                id="standings-table", cursor_type="none", zebra_stripes=True
            )
            table.add_column("Seat")
            table.add_column("Bank")
            table.add_column(f"{unit.title()}{'es' if c.game == 'victim' else 's'} won")
            if c.game == "vigo":
                table.add_column("As Vigo")
            table.add_column("Best streak")
            table.add_column("Luck", key="luck")
            for s in sorted(c.standings(), key=lambda s: (-s.bank, s.seat)):
                row = [s.name, str(s.bank), str(s.won)]
                if c.game == "vigo":
                    row.append(str(s.vigo))
                row += [str(s.best_streak), f"{s.luck:+.1f}"]
                table.add_row(*row)
            yield table
            yield Static(Content(LUCK_WORDS[c.game]), classes="hint")
            with Horizontal(id="standings-buttons"):
                yield Button(
                    Content("Replay a round  [p]"), id="replay", disabled=not self.rounds()
                )
                back = "Back to the cantina  [b]" if self.closing else "Back  [b]"
                yield Button(Content(back), id="back", variant="primary")
        yield Footer()

    def headline(self) -> str:
        c = self.campaign
        if not c.over:
            return f"{c.name}: {c.where()}"
        ended = f" ({c.data.ended})" if c.data.ended else ""
        unit = UNIT_WORDS[c.game] + ("" if c.played == 1 else "es" if c.game == "victim" else "s")
        return f"{c.name}: finished after {c.played} {unit}{ended}"

    def rounds(self) -> list[int]:
        """The rounds that can be replayed: every finished one and the one under way."""
        d = self.campaign.data
        numbers = [r.start.number for r in d.finished]
        if d.table is not None:
            numbers.append(d.table.start.number)
        return numbers

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "replay":
            self.action_replay()
        else:
            self.action_back()

    def action_replay(self) -> None:
        numbers = self.rounds()
        if not numbers:
            return
        unit = UNIT_WORDS[self.campaign.game]

        def replay(answer: str | None) -> None:
            if answer is not None:
                self.replay(answer)

        self.app.push_screen(
            AskScreen(
                f"Replay which {unit}? ({numbers[0]} to {numbers[-1]})",
                str(numbers[-1]),
                max_length=4,
            ),
            replay,
        )

    def replay(self, answer: str) -> None:
        """Sit the viewer at a copy of the round as it began, and play its moves again."""
        from screens.tables import table_screen

        try:
            number = int(answer)
            game, moves = self.campaign.replay(number)
        except ValueError as err:
            self.notify(str(err), title="Cannot replay", severity="warning")
            return
        table = LiveTable(self.campaign.setup(), game)  # no keeper: nothing is saved
        label = f"Replay of {UNIT_WORDS[self.campaign.game]} {number}"
        self.app.push_screen(
            table_screen(table, seats=frozenset(), drives_ai=False, replay=moves, label=label)
        )

    def action_back(self) -> None:
        self.dismiss()
        if self.closing:
            self.app.back_to_start()


LUCK_WORDS = {
    "vigo": "Luck: credits won beyond what the exact odds expected at each round's stake.",
    "valdes": "Luck: right calls beyond the half that a fair cube gives on average.",
    "victim": "Luck: matches won beyond the win chances the exact odds gave at the start.",
}
