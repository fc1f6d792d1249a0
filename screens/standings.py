"""A campaign's standings: banks, rounds won, times as Vigo, best streaks, skill and
luck; the way into a replay of any round, and (g) a chart of the banks over the rounds.

Skill and luck come from analysing every finished round (`cantina.analysis`), which takes
a moment on a long campaign, so they are worked out in a thread and filled in when done."""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Static

from cantina.analysis_report import SkillAndLuck, campaign_skill_and_luck, standings_hint
from cantina.campaign.series import Campaign
from cantina.games import GAMES
from cantina.text import clean_text
from screens.charts import BankChartScreen
from screens.dialogs import AskScreen
from screens.footer import CantinaFooter
from screens.services import UsesApp
from screens.stylesheets import stylesheets


class StandingsScreen(UsesApp, ModalScreen[None]):
    """Where a campaign stands: at its end, looked at mid-campaign or from the saves list.
    Leaving goes back to where it was opened from."""

    CSS_PATH = stylesheets("campaigns.tcss")

    BINDINGS = [
        # one `p` for each game's word for a round, the footer showing this campaign's
        *(
            Binding("p", f"replay({unit!r})", f"Replay a {unit}", id="standings.replay")
            for unit in sorted({info.unit for info in GAMES.values()})
        ),
        Binding("g", "graph", "Banks chart", id="standings.graph"),
        Binding("b,escape", "back", "Back", id="standings.back"),
    ]

    def __init__(self, campaign: Campaign) -> None:
        super().__init__()
        self.campaign = campaign
        self.skill_and_luck: list[SkillAndLuck] | None = None
        """Each seat's, once worked out."""

    def compose(self) -> ComposeResult:
        c = self.campaign
        info = GAMES[c.game]
        with Vertical(id="standings-box"):
            yield Static(Content(self.headline()), id="standings-title")
            table: DataTable[str | Text] = DataTable(
                id="standings-table", cursor_type="none", zebra_stripes=True
            )
            table.add_column("Seat")
            table.add_column("Bank")
            table.add_column(f"{info.units.title()} won")
            if info.title_holder:
                table.add_column(f"As {info.title_holder}")
            table.add_column("Best streak")
            table.add_column("Skill", key="skill")
            table.add_column("Luck", key="luck")
            for s in sorted(c.standings(), key=lambda s: (-s.bank, s.seat)):
                # a name as given: a plain string cell would be read as Rich markup
                row: list[str | Text] = [Text(s.name), str(s.bank), str(s.won)]
                if info.title_holder:
                    row.append(str(s.vigo))
                row += [str(s.best_streak), "...", "..."]
                table.add_row(*row, key=str(s.seat))
            yield table
            yield Static(Content(standings_hint(c.game)), classes="hint")
            with Horizontal(id="standings-buttons"):
                yield Button(
                    Content(f"Replay a {info.unit}  [p]"), id="replay", disabled=not self.rounds()
                )
                yield Button(Content("Back  [b]"), id="back", variant="primary")
        yield CantinaFooter()

    def on_mount(self) -> None:
        self.run_worker(self.work_out(), exclusive=True)

    async def work_out(self) -> None:
        """Skill and luck, analysed in a thread so the screen answers meanwhile."""
        found = await asyncio.to_thread(campaign_skill_and_luck, self.campaign)
        table = self.query_one("#standings-table", DataTable)
        for seat, figures in enumerate(found):
            table.update_cell(str(seat), "skill", f"{figures.skill:+z.2f}", update_width=True)
            table.update_cell(str(seat), "luck", f"{figures.luck:+z.2f}", update_width=True)
        self.skill_and_luck = found

    def headline(self) -> str:
        c = self.campaign
        if not c.over:
            return f"{c.name}: {c.where()}"
        ended = f" ({clean_text(c.data.ended)})" if c.data.ended else ""
        info = GAMES[c.game]
        unit = info.unit if c.played == 1 else info.units
        return f"{c.name}: finished after {c.played} {unit}{ended}"

    def rounds(self) -> list[int]:
        """The rounds that can be replayed: every finished one, and the one under way once
        a move has been made in it, but not over SSH: a replay tells its round's seed, and
        at a shared table the dice to come of the round under way are everyone's secret
        (a finished round's seed tells nothing of the next ones')."""
        numbers = self.campaign.replayable()
        under_way = self.campaign.data.table
        if self.cantina.files_on_host or under_way is None:
            return numbers
        return [n for n in numbers if n != under_way.start.number]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`p` is named with this game's word for a round, and dimmed, as its button is,
        while there is no round to replay."""
        if action == "replay":
            if parameters != (GAMES[self.campaign.game].unit,):
                return False
            return True if self.rounds() else None
        return True

    @on(Button.Pressed, "#replay")
    def replay_pressed(self) -> None:
        self.action_replay()

    @on(Button.Pressed, "#back")
    def back_pressed(self) -> None:
        self.action_back()

    def action_replay(self, unit: str = "") -> None:
        """Ask which round (`unit` only names it in the footer), then replay it."""
        numbers = self.rounds()
        if not numbers:
            return
        unit = GAMES[self.campaign.game].unit

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
        numbers = self.rounds()
        unit = GAMES[self.campaign.game].unit
        try:
            number = int(answer)
        except ValueError:
            self.cannot_replay(
                f"{answer!r} is not a {unit} number: give one from {numbers[0]} to {numbers[-1]}"
            )
            return
        try:
            self.campaign.replay(number)  # ValueError for a round it does not have
        except ValueError as err:
            self.cannot_replay(str(err))
            return
        if number not in numbers:  # the round under way, over SSH (`rounds`)
            self.cannot_replay(
                f"{unit} {number} is under way: its replay would tell the dice to come"
            )
            return
        self.cantina.open_replay(self.campaign, number)

    def cannot_replay(self, why: str) -> None:
        """Say why; the answer is quoted as typed, so it is not read as markup."""
        self.notify(why, title="Cannot replay", severity="warning", markup=False)

    def action_graph(self) -> None:
        """Each seat's bank over the rounds, as a chart (screens/charts.py)."""
        self.app.push_screen(BankChartScreen(self.campaign))

    def action_back(self) -> None:
        self.dismiss()
