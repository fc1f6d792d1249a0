"""The live table: the one place decisions are applied, recorded and announced."""

from __future__ import annotations

import random
from typing import Any

import pytest

from cantina.games import GAMES
from cantina.games.dice import Dice, ScriptedDice
from cantina.games.events import (
    POT,
    Eliminated,
    Event,
    GameOver,
    HealthChanged,
    Scored,
    Transfer,
)
from cantina.games.table import Game, IllegalAction, Move, play_moves
from cantina.games.victim import VictimSettings
from cantina.games.vigo import Claim, RollAgain, SetStake, TitlePassed, VigoGame, VigoSettings, Vote
from cantina.live import LiveTable, Moment
from cantina.narration import Narrator
from cantina.seating import TableSetup, seats_from_text


def victim_table(seed: int = 3) -> LiveTable:
    return LiveTable(TableSetup("victim", VictimSettings(), seats_from_text("you,you,you"), seed))


def test_submit_records_the_move_and_tells_every_listener_in_order() -> None:
    table = victim_table()
    heard: list[list[str]] = [[], []]
    for log in heard:
        table.listen(lambda events, log=log: log.extend(type(e).__name__ for e in events))
    decision = table.game.pending
    events = table.submit(decision.seat, decision.options[0])
    assert [type(e).__name__ for e in events] == heard[0] == heard[1]
    assert events and len(table.moves) == 1 and table.moves[0].seat == decision.seat


def test_an_illegal_submit_changes_nothing_and_tells_nobody() -> None:
    table = victim_table()
    heard: list[object] = []
    table.listen(heard.append)
    before = table.game.to_json()
    wrong = (table.game.pending.seat + 1) % 3
    with pytest.raises(IllegalAction):
        table.submit(wrong, table.game.pending.options[0])
    assert table.game.to_json() == before and table.moves == [] and heard == []


def test_the_recorded_moves_replay_the_game_from_its_seed() -> None:
    table = victim_table(seed=11)
    while table.game.pending is not None:
        decision = table.game.pending
        table.submit(decision.seat, decision.options[-1])
    replayed = table.setup.new_game()
    play_moves(replayed, table.moves)
    assert replayed.to_json() == table.game.to_json()


def test_next_game_starts_a_rematch_and_announces_its_opening() -> None:
    table = victim_table()
    heard: list[object] = []
    with pytest.raises(ValueError, match="not over"):
        table.next_game()
    while table.game.pending is not None:
        decision = table.game.pending
        table.submit(decision.seat, decision.options[0])
    stop = table.listen(heard.append)
    opening = table.next_game()
    assert table.game.pending is not None and table.moves == []
    assert heard == [opening] and opening
    stop()
    decision = table.game.pending
    table.submit(decision.seat, decision.options[0])
    assert len(heard) == 1, "an unsubscribed listener is told nothing more"


# --- the whole story: state_at, resumed, key moments, the next game ----------------------

FIGURES = ("banks", "pot", "health", "scores")
"""The figures a board shows and events move; each game's state has some of them."""

Figures = dict[str, Any]

KINDS = [("vigo", False), ("vigo", True), ("valdes", False), ("victim", False)]
"""Each game, and Vigo's Favor with mercy too (its Mercy decision pays in mid-pass)."""

SEATS = {"vigo": "you,you,you,you", "valdes": "you,you,you,you", "victim": "you,you,you"}


def figures(state: Any) -> Figures:
    """A copy of the figures present in a game's state."""
    found: Figures = {}
    for name in FIGURES:
        if hasattr(state, name):
            value = getattr(state, name)
            found[name] = list(value) if isinstance(value, list) else value
    return found


def fold(before: Figures, event: Event, *, undo: bool = False) -> Figures:
    """`before` moved by what `event` reports, worked out here from the event alone (not
    with `move_figures`), checking that a health or score event agrees with what it moves."""
    after: Figures = {name: list(v) if isinstance(v, list) else v for name, v in before.items()}
    sign = -1 if undo else 1
    if isinstance(event, Transfer):
        for account, change in ((event.source, -event.amount), (event.target, event.amount)):
            if account == POT:
                after["pot"] += sign * change
            else:
                after["banks"][account] += sign * change
    elif isinstance(event, HealthChanged):
        after["health"] = moved(after["health"], event.seat, event.delta, event.health, undo)
    elif isinstance(event, Scored):
        after["scores"] = moved(after["scores"], event.seat, event.points, event.total, undo)
    return after


def moved(values: list[int], seat: int, change: int, total: int, undo: bool) -> list[int]:
    """`values` with `seat` moved by `change` to `total` (or back from it), checked."""
    expected = total if undo else total - change
    assert values[seat] == expected, (values, seat, change, total)
    values[seat] = total - change if undo else total
    return values


def setup_of(game_id: str, seed: int, mercy: bool = False, seats: str = "") -> TableSetup:
    roster = seats_from_text(seats or SEATS[game_id])
    chosen = {"mercy": True} if mercy else {}
    return TableSetup(game_id, GAMES[game_id].settings_for(len(roster), **chosen), roster, seed)


def play_randomly(table: LiveTable, rng: random.Random) -> list[Figures]:
    """Play the table's game to its end with random legal choices; the figures the rules
    left after each step (the opening, then every move)."""
    left = [figures(table.game.state)]
    while (decision := table.game.pending) is not None:
        table.submit(decision.seat, rng.choice(decision.options))
        left.append(figures(table.game.state))
    return left


@pytest.mark.parametrize(("game_id", "mercy"), KINDS)
def test_state_at_moves_the_figures_event_by_event(game_id: str, mercy: bool) -> None:
    """At every event of every step, `state_at` shows the figures the step's events shown so
    far moved from where the previous step left them; at each step's end those are the
    rules' own; the opening starts from the figures before it (Val-Des: before the antes).
    Over many seeded random games, and a second game at each table (banks carried)."""
    for seed in range(25):
        table = LiveTable(setup_of(game_id, seed, mercy))
        rng = random.Random(seed)
        carried = None
        for number in (1, 2):
            assert table.number == number
            left = play_randomly(table, rng)
            bounds = [*table.steps, len(table.log)]
            assert len(table.steps) == len(left) == len(table.moves) + 1
            opening = table.log[: bounds[1]]
            start = left[0]
            for event in reversed(opening):
                start = fold(start, event, undo=True)
            if game_id == "valdes":  # before the antes: every bank whole, no pot
                settings = table.setup.settings
                banks = carried or [settings.starting_bank] * settings.seats
                assert start["banks"] == banks and start["pot"] == 0, (seed, number)
            for step in range(len(table.steps)):
                shown_figures = start if step == 0 else left[step - 1]
                for shown in range(bounds[step], bounds[step + 1] + 1):
                    if shown > bounds[step]:
                        shown_figures = fold(shown_figures, table.log[shown - 1])
                    assert figures(table.state_at(shown)) == shown_figures, (seed, step, shown)
                assert shown_figures == left[step], (seed, number, step)
            carried = list(table.game.state.banks) if game_id == "valdes" else None
            table.next_game()


@pytest.mark.parametrize("game_id", list(GAMES))
def test_resumed_tells_the_same_story_as_the_live_table(game_id: str) -> None:
    """A table rebuilt from how its game began and the moves since has the same log, steps,
    moves, state and view at every event as the table played live; its keeper hears none
    of the rebuilt moves, only those after; its AI (given the saved AI dice) chooses on as
    the live one's does."""
    seats = "Expert,Bold,Cautious" + (",Superstitious" if game_id == "vigo" else "")
    for seed in range(8):
        setup = setup_of(game_id, seed, seats=seats)
        live = LiveTable(setup)
        while (decision := live.game.pending) is not None and len(live.moves) < 3:
            live.submit(decision.seat, live.ai_move())
        made = len(live.moves)
        keeper = RecordingKeeper()
        saved = live.ai_dice.state()
        resumed = LiveTable.resumed(
            setup, setup.new_game(), live.moves, keeper=keeper, ai_dice=Dice.from_state(saved)
        )
        assert keeper.recorded_count == 0, "nothing is recorded on the way"
        assert resumed.keeper is keeper and resumed.number == 1
        for table in (live, resumed):  # both play on, each AI with its own dice
            while (decision := table.game.pending) is not None:
                table.submit(decision.seat, table.ai_move())
        assert resumed.moves == live.moves and resumed.log == live.log
        assert resumed.steps == live.steps
        assert resumed.game.to_json() == live.game.to_json()
        for shown in range(len(live.log) + 1):
            assert figures(resumed.state_at(shown)) == figures(live.state_at(shown))
        assert keeper.recorded_count == len(live.moves) - made, "then each move is kept"


def test_resumed_refuses_a_move_the_rules_refuse() -> None:
    """A record with a move the rules do not allow raises IllegalAction, not a half story."""
    setup = setup_of("valdes", 4)
    decision = setup.new_game().pending
    assert decision is not None
    wrong = Move((decision.seat + 1) % 4, decision.options[0])
    with pytest.raises(IllegalAction):
        LiveTable.resumed(setup, setup.new_game(), [wrong])


class RecordingKeeper:
    """A keeper that only counts the decisions it is asked to keep."""

    def __init__(self) -> None:
        self.recorded_count = 0

    @property
    def over(self) -> bool:
        return False

    def recorded(self, table: LiveTable) -> None:
        self.recorded_count += 1

    def next_game(self, table: LiveTable) -> Game[Any]:
        return table.game.next_game()

    def status(self, table: LiveTable) -> str:
        return f"{self.recorded_count} kept"


@pytest.mark.parametrize(("game_id", "mercy"), KINDS)
def test_key_moments_are_the_games_own_in_log_order(game_id: str, mercy: bool) -> None:
    """`key_moments()` holds every event of the game's key-moment types and nothing else, in
    the order of the log (each distinct one once, counted), and only the current game's."""
    kinds = GAMES[game_id].key_moments
    seen: set[type] = set()
    for seed in range(20):
        table = LiveTable(setup_of(game_id, seed, mercy))
        rng = random.Random(seed)
        for _ in range(2):
            play_randomly(table, rng)
            moments = [moment.event for moment in table.key_moments()]
            where = [i for i, event in enumerate(table.log) if isinstance(event, kinds)]
            firsts = [table.log[i] for i in where if table.log[i] not in table.log[:i]]
            assert moments == firsts, "each moment once, where it first happened"
            assert sum(moment.times for moment in table.key_moments()) == len(where)
            assert all(type(event) in kinds for event in moments)
            assert any(isinstance(e, GameOver) for e in moments)
            seen.update(type(event) for event in moments)
            table.next_game()
            assert table.key_moments() == [], "the last game's moments went with it"
    assert len(seen) > 1, "the games played showed more than their ends"


@pytest.mark.parametrize("game_id", list(GAMES))
def test_next_game_begins_a_new_story(game_id: str) -> None:
    """`next_game()` numbers the table's next game, starts its log, steps and moves afresh
    from its opening, tells every listener that opening, and `state_at` then draws the new
    game, never the old one it may have looked at."""
    table = LiveTable(setup_of(game_id, 9))
    heard: list[list[Event]] = []
    table.listen(lambda events: heard.append(list(events)))
    play_randomly(table, random.Random(9))
    table.state_at(1)  # a view of the old game at event 1, which must not be served again
    heard.clear()
    opening = table.next_game()
    assert table.number == 2 and table.moves == [] and table.steps == [0]
    assert table.log == opening == list(table.game.opening_events)
    assert heard == [opening]
    for shown in range(len(table.log) + 1):
        expected = figures(table.game.state)
        for event in reversed(table.log[shown:]):
            expected = fold(expected, event, undo=True)
        assert figures(table.state_at(shown)) == expected
    decision = table.game.pending
    assert decision is not None
    table.submit(decision.seat, decision.options[0])
    assert table.steps == [0, len(opening)] and len(table.moves) == 1


def test_a_moment_repeated_is_one_moment_with_its_count() -> None:
    """Two survivors who refuse to split six times over are one key moment, counted, at the
    place it first happened; the result dialog tells it once: 'No split: … (6 times).'"""
    # the favor, both players red, five more passes both red, then Cy misses
    script = ["red", "red", "red"] + ["red", "red"] * 5 + ["red", "blue"]
    game = VigoGame.new(VigoSettings(seats=3), ScriptedDice(script))
    table = LiveTable(setup_of("vigo", 1, seats="you,you,you"), game)
    table.submit(0, SetStake(1))
    for _ in range(6):
        table.submit(1, Vote(split=False))
    table.submit(1, Claim())
    assert table.game.pending is None
    moments = table.key_moments()
    assert moments == [
        Moment(RollAgain((1, 2), 1), 6),
        Moment(Eliminated(2, "missed the favor")),
        Moment(GameOver((1,))),
        Moment(TitlePassed(0, 1)),
    ]
    assert Narrator(["Ana", "Bo", "Cy"]).moments(moments) == [
        "No split: Bo, Cy roll again at a stake of 1 (6 times).",
        "Cy is out (missed the favor).",
        "It is over: Bo comes out ahead.",
        "The title of Vigo passes to Bo.",
    ]
