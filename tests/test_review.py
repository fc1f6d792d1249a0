"""Where a player sees the analysis: the Review from the result dialog, `cantina replay
--analyse`, and skill and luck as two columns of a campaign's standings."""

from __future__ import annotations

import re
from itertools import takewhile

import pytest
from test_campaign_ui import app_for, saved
from test_cli import cantina, finished_campaign
from test_table_play import SIZE, app_at, to_the_result
from textual.widgets import DataTable, Static
from waiting import until_drawn

from cantina.ai.player import TableAI
from cantina.ai.temperament import temperament
from cantina.analysis import analyse
from cantina.analysis_report import OPTIONS, review_lines
from cantina.campaign.store import Store, load
from cantina.games.dice import Dice
from cantina.games.table import Move
from cantina.games.valdes import ValDesSettings
from cantina.games.victim import Plan, VictimGame, VictimSettings
from cantina.games.vigo import VigoSettings
from screens.result import ResultScreen
from screens.review import ReviewScreen
from screens.standings import StandingsScreen

SEATS = "you,Expert,Reckless"


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))


def vigo_table():
    return app_at("vigo", VigoSettings(seats=3), SEATS, 5)


async def to_the_review(pilot, app) -> ReviewScreen:
    await to_the_result(pilot, app)
    await pilot.press("a")
    await until_drawn(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.review)
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


def text(screen) -> str:
    return str(screen.query_one("#review-text", Static).render())


async def test_the_review_opens_from_the_result_and_goes_back_to_it():
    app = vigo_table()
    async with app.run_test(size=SIZE) as pilot:
        review = await to_the_review(pilot, app)
        shown = text(review)
        assert "Seat" in shown and "Skill" in shown and "Luck" in shown
        assert review.names == ["Player 1", "Expert", "Reckless"]
        for name in review.names:
            assert name in shown
        assert "Decisions, biggest mistakes first:" in shown
        # the same figures as the analysis of the table's game itself
        assert review.review is not None
        assert shown.splitlines()[2:6] == review_lines(review.review, review.names)[2:6]
        await pilot.press("escape")
        await until_drawn(pilot, lambda: isinstance(app.screen, ResultScreen))


async def test_a_val_des_review_says_it_is_luck_alone():
    app = app_at("valdes", ValDesSettings(seats=2), "you,Expert", 2)
    async with app.run_test(size=SIZE) as pilot:
        review = await to_the_review(pilot, app)
        shown = " ".join(text(review).split())
        assert "no call costs anything; this analysis is luck alone" in shown
        assert "Decisions" not in shown


def options_of_first_costly(shown: str) -> list[str]:
    """The lines of the first options listed: the `options:` line and those hanging
    under it."""
    lines = shown.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(OPTIONS))
    hanging = " " * len(OPTIONS)
    return [lines[at], *takewhile(lambda line: line.startswith(hanging), lines[at + 1 :])]


async def test_a_decisions_options_wrap_under_the_first_and_rewrap_on_resize():
    """Victim!'s six options do not fit 80 columns: they go on under the first option,
    never at the left edge where the next decision starts, and take one line again on
    a wider terminal."""
    app = app_at("victim", VictimSettings(), "you,Expert,Bold", 469257226)
    async with app.run_test(size=SIZE) as pilot:
        review = await to_the_review(pilot, app)
        narrow = options_of_first_costly(text(review))
        assert len(narrow) == 2
        assert all(len(line) <= SIZE[0] - 3 for line in narrow)  # padding and scrollbar
        assert not narrow[1][len(OPTIONS)].isspace()
        assert review.review is not None
        decisions = [line for line in text(review).splitlines() if line.startswith("#")]
        assert len(decisions) == len(review.review.mistakes())
        await pilot.resize_terminal(160, SIZE[1])
        await until_drawn(pilot, lambda: len(options_of_first_costly(text(review))) == 1)
        assert options_of_first_costly(text(review))[0].split() == " ".join(narrow).split()


def test_snapshot_review(snap_compare):
    async def open_review(pilot):
        await to_the_review(pilot, pilot.app)

    assert snap_compare(vigo_table(), terminal_size=SIZE, run_before=open_review)


def test_replay_analyse_prints_the_analysis_of_a_round(tmp_path):
    """`cantina replay NAME 1 --analyse`: the seats' skill and luck, as the Review shows."""
    campaign = finished_campaign(tmp_path)
    game, moves = campaign.replay(1)
    names = [seat.name for seat in campaign.seats]
    expected = review_lines(analyse(game, moves, campaign.setup().temperaments()), names)
    done = cantina("replay", "Robots", "1", "--analyse", "--save-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Robots, game 1:")
    assert lines[1:] == expected
    assert "luck alone" in lines[1] and lines[3].split()[:3] == ["Seat", "Skill", "Luck"]


async def test_standings_show_skill_and_luck_columns(tmp_path):
    """The standings' single luck figure is now two: skill (each seat's own decisions
    against the Expert) and luck (the dice and the other seats' choices); together they
    are each seat's results beyond what the odds expected at each round's start."""
    path = saved(tmp_path, "Robots", "vigo", "Expert,Reckless,Rookie", VigoSettings(seats=3), 2)
    with Store(tmp_path).open(path) as session:
        campaign = session.campaign
        table = campaign.table()
        while not campaign.over:
            while table.game.pending is not None:
                table.submit(table.game.pending.seat, table.ai_move())
            if campaign.played < campaign.data.rounds:
                table.next_game()
        reviews = [
            analyse(*campaign.replay(r.start.number), campaign.setup().temperaments())
            for r in campaign.data.finished
        ]
    app = app_for(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(StandingsScreen(load(path)))
        await until_drawn(
            pilot, lambda: isinstance(app.screen, StandingsScreen) and app.screen.skill_and_luck
        )
        grid = app.screen.query_one(DataTable)
        labels = [str(c.label) for c in grid.ordered_columns]
        assert labels[-2:] == ["Skill", "Luck"] and labels.count("Luck") == 1
        for seat in range(3):
            row = grid.get_row(str(seat))
            skill = sum(r.seats[seat].skill for r in reviews)
            luck = sum(r.seats[seat].luck for r in reviews)
            assert row[-2:] == [f"{skill:+.2f}", f"{luck:+.2f}"]
        assert any(sum(r.seats[s].skill for r in reviews) < 0 for s in (1, 2))


def test_analyse_temperaments_prints_a_table_per_game():
    done = cantina(
        "analyse-temperaments", "vigo", "--games", "4", "--temperaments", "Expert,Reckless"
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == "Vigo's Favor: equity given up per decision (credits), 95% interval"
    expert = lines[3].split()
    assert expert[:2] == ["Expert", "4"] and expert[3:] == ["0.000", "0.000", "to", "0.000"]
    assert lines[4].split()[0] == "Reckless"
    assert "Victim!" not in done.stdout and "Val-Des" not in done.stdout  # only what was asked


def test_a_victim_review_names_the_seat_each_card_aims_at():
    """A Victim! review listed "chose support left, best support right": the table offers
    each card with the seat it aims at, and the review now says it too ("support Expert on
    the left"), the seat read from the game as the decision was made."""
    temperaments = [temperament("Rookie")] * 3
    game = VictimGame.new(VictimSettings(starting_health=3), Dice(5))
    names = ["Ana", "Expert", "Bold"]
    ai, ai_dice = TableAI(temperaments), Dice(6)
    start = game.clone()
    moves, aimed = [], []
    while game.pending is not None:
        seat = game.pending.seat
        aimed.append(
            {
                option: names[game.target_of(option.direction)]
                for option in game.pending.options
                if isinstance(option, Plan)
            }
        )
        action = ai.choose(game, ai_dice)
        moves.append(Move(seat, action))
        game.apply(seat, action)
    review = analyse(start, moves, temperaments)
    lines = review_lines(review, names)
    plans = [d for d in review.decisions if "left" in d.options[0] or "right" in d.options[0]]
    assert plans
    for decision in plans:
        line = next(line for line in lines if line.startswith(f"#{decision.move:<3} "))
        for index in (decision.chosen, decision.best):
            plan = game_option(aimed[decision.move - 1], decision.options[index])
            target = aimed[decision.move - 1][plan]
            assert f"{decision.options[index].split()[0]} {target} on the {plan.direction}" in line
        assert not re.search(r"(support|sabotage|neutral) (left|right)", line), line


def game_option(targets: dict, label: str) -> Plan:
    """The Plan a review's plain label ("support left") stands for."""
    return next(plan for plan in targets if f"{plan.die} {plan.direction}" == label)


async def test_a_decision_too_long_for_the_screen_goes_on_under_its_words():
    """A Victim! decision naming the seats its cards aim at runs past 80 columns; its
    line went on at the left edge, where only a decision's number should stand. It goes
    on under its words now, as its options do."""
    app = app_at("victim", VictimSettings(), "you,Expert,Bold", 469257226)
    async with app.run_test(size=SIZE) as pilot:
        review = await to_the_review(pilot, app)
        lines = text(review).splitlines()
        at = lines.index("Decisions, biggest mistakes first:")
        decisions = [line for line in lines[at + 1 :] if line.strip()]
        assert all(line[0] in "# " for line in decisions), decisions
        assert all(len(line) <= SIZE[0] - 3 for line in decisions), decisions  # as drawn
        heads = [line for line in decisions if line.startswith("#")]
        assert len(heads) == len(review.review.mistakes())
        going_on = [line for line in decisions if re.match(r" {5}\S", line) and OPTIONS not in line]
        assert going_on, decisions  # a decision's line went on, under its words
