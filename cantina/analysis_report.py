"""An analysis in words: the seats' skill and luck, then the decisions, biggest mistake
first. `cantina replay NAME [ROUND] --analyse` prints it; the Review screen shows the same
lines; campaign standings total each seat's skill and luck over its finished rounds."""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cantina.analysis import NO_DECISIONS, DecisionReview, Review, analyse, format_value
from cantina.campaign.commands import round_heading, round_to_replay
from cantina.games import GAMES

NAME_WIDTH = 14


def seat_lines(review: Review, names: Sequence[str]) -> list[str]:
    """A header and one line a seat: skill, luck, and result against expectation."""
    unit = review.unit
    lines = [
        f"{'Seat':<{NAME_WIDTH}} {'Skill':>8} {'Luck':>8} {'Dice':>8} {'Expected':>9} "
        f"{'Result':>8}",
    ]
    for seat in review.seats:
        lines.append(
            f"{names[seat.seat][:NAME_WIDTH]:<{NAME_WIDTH}} "
            f"{format_value(unit, seat.skill, signed=True):>8} "
            f"{format_value(unit, seat.luck, signed=True):>8} "
            f"{format_value(unit, seat.dice, signed=True):>8} "
            f"{format_value(unit, seat.start):>9} "
            f"{format_value(unit, seat.result):>8}"
        )
    return lines


def option_named(decision: DecisionReview, index: int, names: Sequence[str]) -> str:
    """An option as the table offered it: a Victim! card with the seat it aims at
    ("support Expert on the left"), as its button said, not only "support left"."""
    label = decision.options[index]
    target = decision.targets[index] if index < len(decision.targets) else None
    if target is None:
        return label
    kind, _, direction = label.rpartition(" ")
    return f"{kind} {names[target][:NAME_WIDTH]} on the {direction}"


def decision_line(review: Review, decision: DecisionReview, names: Sequence[str]) -> str:
    """One decision: who, what they chose, the Expert's choice, and the cost."""
    unit = review.unit
    chosen = option_named(decision, decision.chosen, names)
    best = option_named(decision, decision.best, names)
    head = f"#{decision.move:<3} {names[decision.seat][:NAME_WIDTH]}: chose {chosen}"
    if decision.cost <= 1e-9:
        return f"{head}, the Expert's choice"
    return (
        f"{head} ({format_value(unit, decision.values[decision.chosen])}), "
        f"best {best} ({format_value(unit, decision.values[decision.best])}), "
        f"cost {format_value(unit, decision.cost)}"
    )


OPTIONS = "     options: "
"""What leads a decision's options; their lines wrap under its first option."""


def options_line(review: Review, decision: DecisionReview, width: int | None = None) -> str:
    """Every option of a decision with its Expert value, under a decision that cost;
    given a `width`, wrapped to it with each option whole and the lines after the first
    hanging under the first option, so the next decision still stands out."""
    values = [
        f"{label} {format_value(review.unit, value)}"
        for label, value in zip(decision.options, decision.values, strict=True)
    ]
    line = OPTIONS + ", ".join(values)
    if width is None or len(line) <= width:
        return line
    return textwrap.fill(
        ", ".join(value.replace(" ", "\N{NO-BREAK SPACE}") for value in values),
        width=max(width, len(OPTIONS) + 20),
        initial_indent=OPTIONS,
        subsequent_indent=" " * len(OPTIONS),
        break_on_hyphens=False,
    ).replace("\N{NO-BREAK SPACE}", " ")


DECISION_INDENT = " " * len("#12  ")
"""Where a decision's line goes on when it wraps: under its words, not its number."""


def hanging(line: str, width: int | None) -> str:
    """A decision's line wrapped to `width` (when given) with the lines after the first
    under its words, so only a decision's own number starts at the left edge (a Victim!
    decision naming its seats runs past 80 columns)."""
    if width is None or len(line) <= width:
        return line
    return textwrap.fill(
        line,
        width=max(width, len(DECISION_INDENT) + 20),
        subsequent_indent=DECISION_INDENT,
        break_on_hyphens=False,
    )


def what_it_measures(review: Review) -> str:
    title = GAMES[review.game].title
    if not review.decides:
        return NO_DECISIONS
    return (
        f"{title}, in {review.unit}: skill is the equity given up by the seat's own "
        "decisions; luck is what the dice and the other seats' choices did (Dice: the "
        "dice alone)."
    )


def review_lines(
    review: Review,
    names: Sequence[str],
    decisions: int | None = None,
    width: int | None = None,
) -> list[str]:
    """The whole analysis as text: what it measures, the seats, then the decisions
    (at most `decisions` of them), biggest mistakes first; a decision's options wrap
    to `width` under their first (an item may hold several lines)."""
    lines = [what_it_measures(review), "", *seat_lines(review, names)]
    if not review.finished:
        lines.append("(still in progress: the result is the expectation where it stands)")
    if review.decides:
        mistakes = review.mistakes()
        shown = mistakes if decisions is None else mistakes[:decisions]
        lines += ["", "Decisions, biggest mistakes first:"]
        for decision in shown:
            lines.append(hanging(decision_line(review, decision, names), width))
            if decision.cost > 1e-9:
                # plain labels: named, six Victim! options took six lines at 80 columns;
                # the decision's line above names the seats its left and right are
                lines.append(options_line(review, decision, width))
        if len(shown) < len(mistakes):
            lines.append(f"... and {len(mistakes) - len(shown)} more")
    return lines


def replay_analysis(path: Path, number: int | None) -> int:
    """`cantina replay NAME [ROUND] --analyse`: one round of a campaign analysed."""
    campaign, number, game, moves = round_to_replay(path, number, "analyse")
    names = [seat.name for seat in campaign.seats]
    review = analyse(game, moves, campaign.setup().temperaments())
    print(round_heading(campaign, number))
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    for line in review_lines(review, names, width=width):
        print(line)
    return 0


@dataclass(frozen=True)
class SkillAndLuck:
    """A seat's skill and luck summed over a campaign's finished rounds."""

    skill: float
    luck: float


def campaign_skill_and_luck(campaign: Any) -> list[SkillAndLuck]:
    """Each seat's skill and luck over every finished round of `campaign` (a
    `cantina.campaign.series.Campaign`), each round analysed from its seed and moves."""
    seats = len(campaign.seats)
    skill = [0.0] * seats
    luck = [0.0] * seats
    temperaments = campaign.setup().temperaments()
    for record in campaign.data.finished:
        game, moves = campaign.replay(record.start.number)
        review = analyse(game, moves, temperaments)
        for seat in review.seats:
            skill[seat.seat] += seat.skill
            luck[seat.seat] += seat.luck
    return [SkillAndLuck(s, lk) for s, lk in zip(skill, luck, strict=True)]


def standings_hint(game: str) -> str:
    """What the standings' skill and luck columns measure, in the game's unit."""
    if game == "valdes":
        return (
            "Luck: points beyond the 1/2 a call and the streak bonus's chance. No call "
            "costs anything at Val-Des, so skill is 0."
        )
    unit = "credits" if game == "vigo" else "wins (win chance summed over matches)"
    return (
        f"In {unit}. Skill: what the seat's own decisions gave up against the Expert. "
        "Luck: what the dice and the other seats' choices did."
    )
