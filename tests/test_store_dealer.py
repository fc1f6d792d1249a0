"""The dealer of a table kept in a durable store (here the in-memory one, made durable, so
no Redis is needed): a decision is applied only once the store took it, waits while the
store is away, is applied once when its answer was lost, and the log rebuilds the table,
the AI's own dice included; a table the store lost stops saying so; a waiting
table read back by the lobby waits a while for its people."""

from __future__ import annotations

import asyncio
import random
import threading
from functools import partial
from typing import Any

import pytest
import waiting

from cantina.dealer import ASKING, OVER, Dealer, Place, apply_entry
from cantina.games.table import Action, IllegalAction, Move
from cantina.games.valdes import ValDesSettings
from cantina.live import LiveTable
from cantina.lobby import Lobby, Player
from cantina.pace import Pace
from cantina.seating import Seat, TableSetup
from cantina.store.memory import InProcessStore, Journal, StoreAway, TableLost
from cantina.store.records import Entry, move_entry

until = partial(waiting.until, timeout=10.0)  # its limit here, as before

FAST = Pace(beat=0, roll=0)


def setup(seed: int = 11, person: bool = True) -> TableSetup:
    first = Seat("Ana") if person else Seat("Abe", "Cautious")
    seats = (first, Seat("Cyd", "Expert"), Seat("Dee", "Bold"))
    return TableSetup("valdes", ValDesSettings(seats=3), seats, seed)


class LosesAnAnswer(InProcessStore):
    """Takes the first decision, then says it is away, as a Redis whose answer was lost."""

    def __init__(self) -> None:
        super().__init__(durable=True)
        self.lost = False

    async def append(self, code: str, version: int, entry: Entry) -> bool:
        taken = await super().append(code, version, entry)
        if not self.lost:
            self.lost = True
            raise StoreAway("the answer was lost")
        return taken


def dealt(store: InProcessStore, person: bool = True) -> tuple[Dealer, Place]:
    table = LiveTable(setup(person=person))
    dealer = Dealer(table, pace=FAST, think_gap=0, journal=Journal(store, "T"))
    return dealer.start(), Place(frozenset({0}), who="key:ana")


async def test_a_pick_waits_while_the_store_is_away_and_is_applied_once() -> None:
    store = InProcessStore(durable=True)
    dealer, ana = dealt(store)
    try:
        await until(lambda: dealer.turn.kind == ASKING)
        moves = len(dealer.table.moves)
        store.away = True
        dealer.pick(ana, dealer.turn.decision.options[0])
        with pytest.raises(IllegalAction, match="still being recorded"):
            dealer.pick(ana, dealer.turn.decision.options[0])
        await asyncio.sleep(1.2)  # two tries, and more, while away
        assert len(dealer.table.moves) == moves
        store.away = False
        await until(lambda: len(dealer.table.moves) > moves)
        await until(lambda: dealer.turn.kind == ASKING)
        assert [m for m in dealer.table.moves] == [m for m in replay(store.logs["T"]).moves]
    finally:
        dealer.close()


async def test_a_decision_whose_answer_was_lost_is_applied_once() -> None:
    """The first decision (an AI's) is taken, but its answer lost: tried again, it is
    found in the log, and applied once; the game goes on."""
    store = LosesAnAnswer()
    dealer, _ = dealt(store, person=False)
    try:
        await until(lambda: len(store.logs.get("T", [])) >= 3)
        await until(lambda: len(dealer.table.moves) == len(store.logs["T"]))
        assert store.lost
        assert dealer.table.moves == replay(store.logs["T"], person=False).moves
    finally:
        dealer.close()


def applied_once(store: InProcessStore, dealer: Dealer) -> None:
    """The table's log holds each decision once, and is what the dealer applied."""
    log = store.logs["T"]
    assert dealer.failure is None, dealer.notices
    assert len({entry.id for entry in log}) == len(log), "a decision recorded twice"
    assert dealer.table.moves == replay(log, person=False).moves


async def test_a_lost_answer_read_back_before_its_retry_is_not_recorded_again() -> None:
    """Seen in the playing benchmark (two hosts, Redis out of reach for a moment): the
    first decision (an AI's) is taken but its answer lost, and before the dealer tries
    again the table's stream brings it back to this host, which applies it (`absorb`).
    The retry is not appended a second time after it (applied again, the same seat
    acting out of turn stopped the table on every host): it was taken once."""
    store = LosesAnAnswer()
    dealer, _ = dealt(store, person=False)
    try:
        await until(lambda: store.lost)
        assert len(store.logs["T"]) == 1 and dealer.table.moves == []
        assert await dealer.absorb([(1, store.logs["T"][0])]) == 1  # from the stream
        await until(lambda: len(store.logs["T"]) >= 4)
        await until(lambda: len(dealer.table.moves) == len(store.logs["T"]))
        applied_once(store, dealer)
    finally:
        dealer.close()


class NotesRecords(Journal):
    """A journal that says when its host's dealer asks it to record a decision."""

    def __init__(self, store: InProcessStore, code: str) -> None:
        super().__init__(store, code)
        self.asked = asyncio.Event()

    async def record(self, entry: Entry, at: int | None = None) -> tuple[list[Entry], bool]:
        self.asked.set()
        return await super().record(entry, at)


async def test_an_ai_decision_overtaken_while_it_waits_to_be_recorded_is_dropped() -> None:
    """An AI seat's decision waits for the journal (held while this host reads the
    table's stream), and meanwhile another host's decision for that seat lands and is
    applied here. The AI's, made on the table before it, is not appended after it (the
    seat would act out of turn, and every host's table stop): dropped, and the game
    goes on."""
    store = InProcessStore(durable=True)
    table = LiveTable(setup(person=False))
    thinks, goes_on = threading.Event(), threading.Event()
    ai_move = table.ai_move

    def slow_ai(game: Any) -> Action:
        thinks.set()
        assert goes_on.wait(10)
        return ai_move(game)

    table.ai_move = slow_ai  # type: ignore[method-assign]
    journal = NotesRecords(store, "T")
    dealer = Dealer(table, pace=FAST, think_gap=0, journal=journal).start()
    try:
        await until(thinks.is_set)
        decision = table.game.pending
        assert decision is not None and journal.version == 0
        async with journal.lock:  # as `absorb` holds it while it reads the stream
            goes_on.set()
            await asyncio.wait_for(journal.asked.wait(), 10)
            other = InProcessStore(durable=True)
            other.logs = store.logs  # another host, the same Redis
            theirs = move_entry(Move(decision.seat, decision.options[-1]), None)
            assert await Journal(other, "T").record(theirs) == ([theirs], True)
            apply_entry(table, theirs)
            journal.version += 1
        await until(lambda: len(store.logs["T"]) >= 4)
        await until(lambda: len(table.moves) == len(store.logs["T"]))
        assert store.logs["T"][0] is theirs
        applied_once(store, dealer)
        assert not any("too late" in notice for notice in dealer.notices)
    finally:
        goes_on.set()
        dealer.close()


async def test_a_log_that_cannot_be_applied_stops_its_table_alone() -> None:
    """A decision read from the table's stream that cannot be applied (a seat out of
    turn: a damaged log) stops that table, saying why, and its loop; the dealer takes
    nothing more from the stream. (It once raised out of the host's one loop that follows
    every table, which read it again, and failed again, every half second.)"""
    store = InProcessStore(durable=True)
    dealer, _ = dealt(store)
    try:
        await until(lambda: dealer.turn.kind == ASKING)
        decision = dealer.turn.decision
        assert decision is not None and dealer.journal is not None
        version, moves = dealer.journal.version, list(dealer.table.moves)
        other = (decision.seat + 1) % len(dealer.table.setup.seats)
        wrong = move_entry(Move(other, decision.options[0]), None)
        assert await dealer.absorb([(version + 1, wrong)]) == 0
        assert isinstance(dealer.failure, IllegalAction)
        assert "has stopped" in dealer.notices[-1]
        task = dealer.task
        assert task is not None
        await until(task.done)
        assert await dealer.absorb([(version + 1, wrong)]) == 0
        assert dealer.journal.version == version and dealer.table.moves == moves
    finally:
        dealer.close()


def replay(entries: list[Entry], person: bool = True) -> LiveTable:
    table = LiveTable(setup(person=person))
    for entry in entries:
        apply_entry(table, entry)
    return table


async def test_the_log_rebuilds_the_table_and_its_ai_dice() -> None:
    """A whole game, then the next, with AI seats: a table rebuilt from the log has the
    same story and the same AI dice, so its AI would choose as this one would."""
    store = InProcessStore(durable=True)
    dealer, ana = dealt(store)
    rng = random.Random(5)
    try:
        for game in (1, 2):
            while dealer.turn.kind != OVER or dealer.table.number != game:
                await until(lambda: dealer.turn.kind in (ASKING, OVER))
                if dealer.turn.kind == ASKING:
                    before = len(dealer.table.moves)
                    dealer.pick(ana, rng.choice(dealer.turn.decision.options))
                    await until(lambda b=before: len(dealer.table.moves) > b)
            if game == 1:
                assert dealer.next_game(ana, after=1)
                await until(lambda: dealer.table.number == 2)
        rebuilt = replay(store.logs["T"])
        assert rebuilt.number == 2 and rebuilt.log == dealer.table.log
        assert rebuilt.ai_dice.state() == dealer.table.ai_dice.state()
    finally:
        dealer.close()


async def test_a_table_the_store_lost_stops_saying_so() -> None:
    """A store emptied under a table (a Redis started again without its data): the
    next decision is not applied, and the table stops with a line that says why."""
    store = InProcessStore(durable=True)
    dealer, ana = dealt(store)
    try:
        await until(lambda: dealer.turn.kind == ASKING)
        moves = len(dealer.table.moves)
        store.drop("T")
        store.logs["T"] = []  # a version behind this host's, and nothing to catch up on
        assert moves > 0  # the AI seats played first (this seed): the store lost them
        dealer.pick(ana, dealer.turn.decision.options[0])
        await until(lambda: dealer.failure is not None)
        assert isinstance(dealer.failure, TableLost)
        assert len(dealer.table.moves) == moves
        assert "no longer has this table" in dealer.notices[-1]
    finally:
        dealer.close()


async def test_a_waiting_table_read_back_waits_a_while_for_its_people() -> None:
    """A table still filling up when the host stopped is read back with its seats; the
    sweep (which closes a waiting table whose people have all gone) leaves it for the
    lobby's `empty_after`, so its people can come back, then closes it, and the store
    forgets it."""
    store = InProcessStore(durable=True)
    first = Lobby(store=store)
    table = first.create(
        TableSetup("valdes", ValDesSettings(seats=2), (Seat("A"), Seat("B")), 3),
        Player("key:ana", "Ana"),
    )
    first.close_all()
    assert table.code in store.records
    again = Lobby(store=store, empty_after=0.3)
    assert await again.restore() == [table.code]
    back = again.tables[table.code]
    assert not back.started and back.seated == {0: Player("key:ana", "Ana")}
    again.sweep()
    assert table.code in again.tables
    await asyncio.sleep(0.4)
    again.sweep()
    assert table.code not in again.tables and table.code not in store.records
