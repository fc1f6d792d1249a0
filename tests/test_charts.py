"""Charts (screens/charts.py): a tournament's ratings with their intervals, and each seat's
bank over a campaign's rounds from the standings (g); snapshots at 80x24, and both read
under NO_COLOR by markers and labels, not colour."""

from __future__ import annotations

import itertools
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_no_color import picture

from cantina.app import CantinaApp
from cantina.campaign.series import Campaign
from cantina.campaign.store import Store, load
from cantina.games.victim import VictimSettings
from cantina.games.vigo import VigoSettings
from cantina.seating import seats_from_text
from cantina.tournament import Outcome, Rating, TournamentResult
from screens.charts import BankChart, BankChartScreen, RatingsApp, RatingsChart, bank_history
from screens.standings import StandingsScreen

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("CANTINA_SAVE_DIR", raising=False)


RATINGS = [
    ("Expert", 79, 22),
    ("Superstitious", 26, 23),
    ("Cautious", 17, 23),
    ("Bold", 16, 23),
    ("Treacherous", -1, 24),
    ("Loyal", -13, 24),
    ("Rookie", -52, 25),
    ("Reckless", -71, 25),
]
"""Ratings as a tournament of 6,000 Victim! matches gave them (fixed here, so the picture
does not move when the AI does)."""


def a_result() -> TournamentResult:
    ratings = [
        Rating(name, rating, rating - half, rating + half, 2250, 800, (0.1, 0.0, 0.2))
        for name, rating, half in RATINGS
    ]
    outcomes = [Outcome(i, 0, 0, (2, -1, -1)) for i in range(6000)]
    return TournamentResult("victim", 5, [r[0] for r in RATINGS], 3, 336, 6000, outcomes, ratings)


def finished_campaign(folder: Path, rounds: int = 6) -> Path:
    """A Vigo's Favor campaign of three AI seats, played to its end."""
    campaign = Campaign.new(
        "Robots",
        "vigo",
        seats_from_text("Expert,Bold,Cautious"),
        VigoSettings(seats=3),
        rounds=rounds,
        seed=11,
    )
    path = Store(folder).create(campaign)
    with Store(folder).open(path) as session:
        campaign = session.campaign
        table = campaign.table()
        while not campaign.over:
            while table.game.pending is not None:
                table.submit(table.game.pending.seat, table.ai_move())
            if campaign.played < campaign.data.rounds:
                table.next_game()
    return path


def app_for(folder: Path, path: Path) -> CantinaApp:
    return CantinaApp(
        animation_speed=0, pace=0, save_preferences=False, save_dir=folder, resume=path
    )


async def to_standings(pilot) -> StandingsScreen:
    for _ in range(100):
        await pilot.pause()
        if isinstance(pilot.app.screen, StandingsScreen):
            return pilot.app.screen
    raise AssertionError("the standings never opened")


def test_bank_history_is_the_start_then_each_round(tmp_path):
    path = finished_campaign(tmp_path, rounds=3)
    with Store(tmp_path).open(path) as session:
        data = session.campaign.data
        history = bank_history(session.campaign)
    assert history[0] == [20, 20, 20]
    assert history[1:] == [list(r.banks) for r in data.finished]
    assert history[-1] == list(data.banks) and len(history) == 4


async def test_before_any_round_has_finished_the_chart_says_so(tmp_path):
    """A campaign's first round under way has no bank to draw but the starting one: the
    chart screen says when there will be (it drew one dot a seat on an axis of 10 to 30
    in thirds)."""
    campaign = Campaign.new(
        "Robots", "vigo", seats_from_text("you,Bold"), VigoSettings(seats=2), rounds=2, seed=1
    )
    path = Store(tmp_path).create(campaign)
    app = app_for(tmp_path, path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("t")  # the standings, from the table
        await to_standings(pilot)
        await pilot.press("g")
        await pilot.pause()
        assert isinstance(app.screen, BankChartScreen)
        assert not app.screen.query(BankChart)
        shown = " ".join(picture(app).lines(app.screen.region))
        assert "No round has finished yet." in shown, shown
        await pilot.press("g")
        await pilot.pause()
        assert isinstance(app.screen, StandingsScreen)


def broke_campaign(folder: Path) -> Path:
    """A Victim! campaign at a match stake of 10 that ends after two matches (a seat
    cannot pay): banks of 0 to 40 over two matches."""
    return ai_campaign(folder, "Broke", rounds=10, seed=2, match_stake=10)


def ai_campaign(folder: Path, name: str, *, rounds: int, seed: int, match_stake: int) -> Path:
    """A Victim! campaign of three AI seats, played by them to its end."""
    campaign = Campaign.new(
        name,
        "victim",
        seats_from_text("Expert,Bold,Rookie"),
        VictimSettings(),
        rounds=rounds,
        seed=seed,
        match_stake=match_stake,
    )
    path = Store(folder).create(campaign)
    with Store(folder).open(path) as session:
        table = session.campaign.table()
        while not session.campaign.over:
            while table.game.pending is not None:
                table.submit(table.game.pending.seat, table.ai_move())
            if not session.campaign.over:
                table.next_game()
    return path


@pytest.mark.parametrize("made", [finished_campaign, broke_campaign], ids=["vigo", "victim"])
async def test_the_bank_axis_is_marked_in_whole_credits(tmp_path, made):
    """Banks are whole credits: every mark on the chart's bank axis is a whole number (it
    read 40.0, 33.3, 26.7, ... over banks of 0 to 40), a round step apart, and the
    marks span the banks drawn."""
    path = made(tmp_path)
    app = app_for(tmp_path, path)
    async with app.run_test(size=SIZE) as pilot:
        await to_standings(pilot)
        await pilot.press("g")
        await pilot.pause()
        chart = app.screen.query_one(BankChart)
        lines = picture(app).lines(chart.region)
        marks = [int(line.split("┤")[0]) for line in lines if "┤" in line]
        assert len(marks) >= 3, lines
        steps = {high - low for low, high in zip(marks[1:], marks, strict=False)}
        assert len(steps) == 1 and steps.pop() in (1, 2, 5, 10, 20, 50), marks
        banks = [bank for banks in bank_history(load(path)) for bank in banks]
        assert min(marks) >= min(banks) and max(marks) <= max(banks)


async def test_a_long_campaigns_chart_opens_with_a_mark_every_few_rounds(tmp_path):
    """Past a dozen rounds the chart left the round marks to plotext (xticks(None)), which
    raised TypeError: g on the standings of a campaign of 12 rounds or more ended the app.
    Its round axis is marked a round step apart now, every mark a whole round."""
    path = ai_campaign(tmp_path, "Long", rounds=20, seed=5, match_stake=0)
    assert load(path).played == 20
    app = app_for(tmp_path, path)
    async with app.run_test(size=SIZE) as pilot:
        await to_standings(pilot)
        await pilot.press("g")
        await pilot.pause()
        assert isinstance(app.screen, BankChartScreen)
        chart = app.screen.query_one(BankChart)
        lines = picture(app).lines(chart.region)
        axis = next(i for i, line in enumerate(lines) if "└" in line)
        marks = [int(mark) for mark in lines[axis + 1].split()]
        assert marks == list(range(0, 21, 2)), lines[axis + 1]


# --- snapshots at 80x24 ------------------------------------------------------------------


def test_snapshot_ratings_chart(snap_compare):
    assert snap_compare(RatingsApp(a_result()), terminal_size=SIZE)


def test_snapshot_bank_chart(snap_compare, tmp_path):
    path = finished_campaign(tmp_path)

    async def open_chart(pilot):
        await to_standings(pilot)
        await pilot.press("g")
        await pilot.pause()

    assert snap_compare(app_for(tmp_path, path), terminal_size=SIZE, run_before=open_chart)


# --- without colour ----------------------------------------------------------------------


async def test_the_bank_chart_tells_seats_apart_by_number_under_no_color(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    path = finished_campaign(tmp_path)
    app = app_for(tmp_path, path)
    async with app.run_test(size=SIZE) as pilot:
        await to_standings(pilot)
        await pilot.press("g")
        for _ in range(50):
            await pilot.pause()
            if isinstance(app.screen, BankChartScreen):
                break
        assert isinstance(app.screen, BankChartScreen)
        chart = app.screen.query_one(BankChart)
        drawn = picture(app)
        assert drawn.coloured() == set()
        shown = drawn.within(chart.region)
        for label in ("1 Expert", "2 Bold", "3 Cautious"):
            assert label in shown, shown
        plot_area = shown.replace("1 Expert", "").replace("2 Bold", "").replace("3 Cautious", "")
        for marker in "123":  # each seat's line is drawn with its number
            assert plot_area.count(marker) > 3, shown
        await pilot.press("g")
        await pilot.pause()
        assert isinstance(app.screen, StandingsScreen)


async def test_the_ratings_chart_reads_without_colour(monkeypatch):
    """Under NO_COLOR: a row per temperament, best on top, each with its rating mark and
    both ends of its interval on its own row."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = RatingsApp(a_result())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        drawn = picture(app)
        assert drawn.coloured() == set()
        lines = drawn.lines(app.screen.query_one(RatingsChart).region)
        rows = {
            name: next(i for i, line in enumerate(lines) if f"{name}┤" in line)
            for name, _, _ in RATINGS
        }
        order = sorted(rows, key=rows.get)
        assert order == [name for name, _, _ in RATINGS]
        for name, _, _ in RATINGS:
            row = lines[rows[name]]
            assert row.count("[") == 1 and row.count("]") == 1 and "█" in row, row
            assert row.index("[") < row.index("█") < row.index("]"), row
        await pilot.press("q")


def test_tournament_plot_shows_the_chart_until_q():
    """`cantina tournament --plot` on a terminal: the tables, then the chart, which q
    closes (status 0)."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "cantina", "tournament", "valdes", "--games", "30", "--plot"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={
            "PATH": "/usr/bin:/bin",
            "TERM": "xterm-256color",
            "COLUMNS": "80",
            "LINES": "24",
            "PYTHONPATH": os.getcwd(),
        },
    )
    os.close(slave)
    output = b""
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and b"30 games, seed" not in output:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                output += os.read(master, 65536)
        assert b"Rating: Elo points" in output and b"30 games, seed" in output, output[-800:]
        os.write(master, b"q")
        while time.monotonic() < deadline and process.poll() is None:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    output += os.read(master, 65536)
                except OSError:
                    break
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)


async def test_seats_with_the_same_banks_share_one_line_named_for_both(tmp_path, monkeypatch):
    """The two losers of every match of a Victim! campaign have the same banks after each
    one: drawn apart, the later line covered the earlier one whole, and the legend named a
    seat whose number was nowhere on the chart. They share one line, named for both."""
    monkeypatch.setenv("NO_COLOR", "1")
    path = ai_campaign(tmp_path, "Twice", rounds=2, seed=3, match_stake=10)  # one wins both
    history = bank_history(load(path))
    names = [seat.name for seat in load(path).data.roster]
    losers = [seat for seat in range(3) if history[-1][seat] == min(history[-1])]
    assert len(losers) == 2 and len({tuple(b[s] for b in history) for s in losers}) == 1
    winner = ({0, 1, 2} - set(losers)).pop()
    app = app_for(tmp_path, path)
    async with app.run_test(size=SIZE) as pilot:
        await to_standings(pilot)
        await pilot.press("g")
        for _ in range(50):
            await pilot.pause()
            if isinstance(app.screen, BankChartScreen):
                break
        shown = picture(app).within(app.screen.query_one(BankChart).region)
        shared = f"{losers[0] + 1} {names[losers[0]]} and {names[losers[1]]}"
        alone = f"{winner + 1} {names[winner]}"
        assert shared in shown and alone in shown, shown
        plot_area = shown.replace(shared, "").replace(alone, "")
        for seat in (losers[0], winner):  # every number the legend names is drawn
            assert plot_area.count(str(seat + 1)) > 3, shown


async def test_the_ratings_axis_is_marked_in_whole_points_with_zero_under_its_line():
    """The ratings axis was left to plotext, whose marks read -351.5, -183.3, -15.1, ...:
    the line at the field's average (0) fell between marks naming neither. The marks are
    whole Elo points a round step apart, 0 among them, under the line at 0."""
    app = RatingsApp(a_result())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        lines = picture(app).lines(app.screen.query_one(RatingsChart).region)
        axis = next(i for i, line in enumerate(lines) if "└" in line)
        labels = lines[axis + 1].split()
        marks = [int(label) for label in labels]  # whole numbers, or this raises
        steps = {high - low for low, high in itertools.pairwise(marks)}
        assert 0 in marks and len(steps) == 1 and steps.pop() in (10, 20, 50, 100), labels
        zero = lines[axis + 1].index(" 0 ") + 1
        assert lines[axis][zero] == "┴", (lines[axis], lines[axis + 1])
