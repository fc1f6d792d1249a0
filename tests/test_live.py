"""The live table: the one place decisions are applied, recorded and announced."""

from __future__ import annotations

import pytest

from cantina.games.table import IllegalAction, play_moves
from cantina.games.victim import VictimSettings
from cantina.live import LiveTable
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
