"""Charts, drawn by plotext inside Textual (textual-plotext): a tournament's ratings with
their intervals, and each seat's bank over a campaign's rounds.

Every series is told apart by its marker or its label as well as its colour, so a chart
reads the same under NO_COLOR: bank lines are drawn with the seat's number, ratings are
one row per temperament, named on the axis.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static
from textual_plotext import PlotextPlot

from cantina.campaign.series import Campaign
from cantina.games import GAMES
from cantina.tournament import Rating, TournamentResult
from screens.footer import CantinaFooter


class RatingsChart(PlotextPlot):
    """One row per temperament, best at the top: a bar from 0 to its rating (█ marks
    the rating), the 95% interval between [ and ]."""

    def __init__(self, ratings: Sequence[Rating], *, id: str | None = None) -> None:
        super().__init__(id=id)
        ranked = sorted(ratings, key=lambda r: (r.rating, r.temperament))  # best on top
        rows = [float(row) for row in range(1, len(ranked) + 1)]
        plt = self.plt
        for row, r in zip(rows, ranked, strict=True):
            plt.plot([r.low, r.high], [row, row], marker="─", color="white")
            plt.plot([0, r.rating], [row, row], marker="▒", color="cyan")
        plt.scatter([r.low for r in ranked], rows, marker="[", color="white")
        plt.scatter([r.high for r in ranked], rows, marker="]", color="white")
        plt.scatter([r.rating for r in ranked], rows, marker="█", color="cyan")
        plt.vertical_line(0)
        # whole Elo points a round step apart, 0 among them (plotext's own marks read
        # -351.5, -183.3, -15.1: the line at 0 fell between two marks that named neither)
        ends = [math.floor(min(r.low for r in ranked)), math.ceil(max(r.high for r in ranked))]
        marks = whole_ticks([*ends, 0], most=7)
        plt.xticks(
            [float(mark) for mark in marks], [f"{mark:+d}" if mark else "0" for mark in marks]
        )
        plt.yticks(rows, [r.temperament for r in ranked])
        plt.ylim(0.5, len(ranked) + 0.5)
        plt.xlabel("Elo points above the field's average: █ rating, [ ] 95% interval")


def bank_history(campaign: Campaign) -> list[list[int]]:
    """Every seat's bank at the start and after each finished round."""
    finished = campaign.data.finished
    if not finished:
        return [list(campaign.data.banks)]
    return [list(finished[0].start.banks)] + [list(r.banks) for r in finished]


def whole_ticks(values: Sequence[int], most: int = 6) -> list[int]:
    """Marks for an axis of whole numbers (credits, rounds): at most `most`, a round step
    apart (1, 2 or 5 times a power of ten), so no label reads 33.3 credits."""
    low, high = min(values), max(values)
    if low == high:
        return [low]
    span = high - low
    magnitude = 1
    while True:
        for step in (magnitude, 2 * magnitude, 5 * magnitude):
            if span // step + 1 <= most:
                first = -(-low // step) * step
                return list(range(first, high + 1, step))
        magnitude *= 10


MARKERS = "12345678"
"""Each seat's line is drawn with its number (a campaign has at most 8 seats)."""


def same_lines(
    history: Sequence[Sequence[int]], names: Sequence[str]
) -> list[tuple[list[int], list[str]]]:
    """The seats grouped by their banks over the rounds: seats whose banks were the same
    after every round share one line, drawn with the first one's number and named together
    in the legend (drawn apart, the later line hid the earlier one whole, and a seat the
    legend named had no line to be seen: the two losers of every Victim! match so far)."""
    groups: dict[tuple[int, ...], tuple[list[int], list[str]]] = {}
    for seat, name in enumerate(names):
        seats, named = groups.setdefault(tuple(banks[seat] for banks in history), ([], []))
        seats.append(seat)
        named.append(name)
    return list(groups.values())


class BankChart(PlotextPlot):
    """Each seat's bank over the rounds: one line a seat, drawn with its number."""

    def __init__(self, campaign: Campaign, *, id: str | None = None) -> None:
        super().__init__(id=id)
        history = bank_history(campaign)
        rounds = [float(number) for number in range(len(history))]
        plt = self.plt
        for seats, names in same_lines(history, [s.name for s in campaign.data.roster]):
            banks = [banks[seats[0]] for banks in history]
            marker = MARKERS[seats[0] % len(MARKERS)]
            plt.plot(rounds, banks, marker=marker, label=f"{marker} {' and '.join(names)}")
        unit = GAMES[campaign.game].units
        plt.xlabel(f"{unit} played")
        # a mark for every round up to 12, then a round step apart (plotext's own choice,
        # xticks(None), raised TypeError: a campaign of 12 rounds or more ended the app)
        marks = [float(mark) for mark in whole_ticks(range(len(history)), most=13)]
        plt.xticks(marks, [str(int(mark)) for mark in marks])
        ticks = whole_ticks([bank for banks in history for bank in banks])
        plt.yticks([float(tick) for tick in ticks], [str(tick) for tick in ticks])


class BankChartScreen(ModalScreen[None]):
    """A campaign's banks over its rounds, opened from the standings with g."""

    CSS = """
    BankChartScreen { align: center middle; }
    #chart-box { width: 100%; height: 100%; border: double $primary; background: $surface; }
    #chart-title { text-style: bold; color: $primary; padding: 0 1; }
    #bank-chart { height: 1fr; }
    #no-chart { height: 1fr; padding: 1 2; content-align: center middle; }
    """
    BINDINGS = [Binding("g,b,escape", "back", "Back", id="chart.back")]

    def __init__(self, campaign: Campaign) -> None:
        super().__init__()
        self.campaign = campaign

    def compose(self) -> ComposeResult:
        with Vertical(id="chart-box"):
            title = f"{self.campaign.name}: banks over the {self.unit()}"
            yield Static(Content(title), id="chart-title")
            if self.campaign.data.finished:
                yield BankChart(self.campaign, id="bank-chart")
            else:  # one dot a seat, all on the starting bank: nothing to read
                info = GAMES[self.campaign.game]
                yield Static(
                    Content(
                        f"No {info.unit} has finished yet. Each seat's bank is drawn here "
                        f"after every {info.unit}, from the starting bank on."
                    ),
                    id="no-chart",
                )
        yield CantinaFooter()

    def unit(self) -> str:
        return GAMES[self.campaign.game].units

    def action_back(self) -> None:
        self.dismiss()


class RatingsApp(App[None]):
    """`cantina tournament --plot`: the ratings chart on the terminal until q."""

    CSS = """
    #ratings-title { text-style: bold; padding: 0 1; }
    #ratings-chart { height: 1fr; }
    """
    BINDINGS = [Binding("q,escape", "quit", "Close")]

    def __init__(self, result: TournamentResult) -> None:
        super().__init__()
        self.result = result

    def compose(self) -> ComposeResult:
        r = self.result
        many = "laps" if r.game == "vigo" else GAMES[r.game].units
        stopped = f" (stopped; {r.requested:,} asked for)" if r.stopped else ""
        title = f"{GAMES[r.game].title} tournament: {r.games:,} {many}{stopped}, seed {r.seed}"
        yield Static(Content(title), id="ratings-title")
        yield RatingsChart(r.ratings, id="ratings-chart")
        yield CantinaFooter()
