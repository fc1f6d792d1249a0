"""Each session's share of the host's time (cantina/ssh/budget.py): the budget's logic on
a fake clock, and, with real asyncssh clients on 127.0.0.1, that one session's flood of
Tabs or window changes slows only itself. And the footer, which made a Tab dear."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import copy_context
from pathlib import Path

import asyncssh
import pytest
from ssh_clients import Terminal, make_key
from textual.widgets import Footer

from cantina.app import CantinaApp
from cantina.cli import build_parser
from cantina.ssh import budget as budget_module
from cantina.ssh.budget import (
    BUSY_FLOOR,
    CHURN,
    DEEP_DEBT,
    DRAW_MAX,
    INBOX_MAX,
    MANY,
    OWNER,
    POLL,
    QUEUE_MAX,
    READ_SLICE,
    RESIZE_MAX,
    REST,
    REST_MAX,
    STEP_PAUSE,
    STRAINED,
    TYPING,
    Bucket,
    Budgets,
    InputPacer,
    ReadPacer,
    WorkBudget,
    WorkMeter,
    keys_of,
)
from cantina.ssh.cli import host_options
from cantina.ssh.keys import load_or_create_host_key
from cantina.ssh.limits import Limits
from cantina.ssh.server import Host, HostOptions
from screens.textual_compat import FooterKey


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_goes_into_debt_and_refills_at_its_rate():
    clock = Clock()
    bucket = Bucket(rate=0.1, burst=0.3, clock=clock)
    bucket.charge(0.2)
    assert bucket.wait() == 0  # within the burst
    bucket.charge(0.15)
    assert bucket.wait() == pytest.approx(0.5)  # 0.05 s of debt at 0.1 s a second
    clock.now += 0.5
    assert bucket.wait() == 0
    clock.now += 100
    assert bucket.level() == pytest.approx(0.3)  # never more than the burst


def test_only_the_work_that_follows_input_is_charged():
    clock = Clock()
    own = Bucket(0.1, 0.3, clock)
    budget = WorkBudget([own], clock)
    budget.scheduled()
    budget.work(0.05)  # the app's own work (a clock): free
    assert budget.spent == 0
    budget.began()  # a key
    budget.scheduled()
    budget.scheduled()
    clock.now += 0.01
    budget.work(0.02)
    clock.now += REST * 3  # a crowded loop: the app's next piece comes late, but was due
    budget.work(0.02)
    assert budget.spent == pytest.approx(0.04)
    assert not budget.quiet()
    clock.now += REST / 2
    budget.scheduled()  # its frame, soon after
    budget.work(0.01)
    assert budget.spent == pytest.approx(0.05)
    clock.now += REST * 2
    assert budget.quiet()
    budget.scheduled()  # after a rest: a table's move, not the key's
    budget.work(0.02)
    assert budget.spent == pytest.approx(0.05)


def test_an_address_bucket_is_shared_by_its_sessions():
    clock = Clock()
    address = Bucket(0.1, 0.2, clock)
    first = WorkBudget([Bucket(0.1, 0.3, clock), address], clock)
    second = WorkBudget([Bucket(0.1, 0.3, clock), address], clock)
    first.charge(0.25)
    assert first.owed() > 0 and second.owed() > 0  # the address is in debt for both


def test_a_share_overspent_a_little_waits_only_while_others_are_at_work():
    """A player going from screen to screen spends past the burst now and then: on a
    quiet host that slows nobody, so they go on; while another session (within its share)
    is at work on a key, they wait. A debt past DEEP_DEBT (a flood's) waits regardless."""
    clock = Clock()
    mover = WorkBudget([Bucket(0.05, 0.3, clock)], clock)
    typist = WorkBudget([Bucket(0.05, 0.3, clock)], clock)
    mover.charge(0.4)  # a little over: 2 s owed
    assert mover.owed() == pytest.approx(2.0)
    assert mover.wait() == 0  # nobody else is at work
    typist.began()  # a key of the typist's, being handled
    typist.scheduled()
    assert mover.wait() == pytest.approx(2.0)
    clock.now += REST * 2
    typist.work(0.003)
    clock.now += REST * 2
    assert not typist.at_work() and mover.wait() == 0  # the typist's key is done
    mover.charge(DEEP_DEBT + 0.1)
    assert mover.wait() > 0  # a flood's debt: held to its share whoever is at work


def test_a_heavy_session_makes_way_for_a_lighter_one_even_in_debt():
    """Eight honest players from one address keep that address a little in debt; a flood
    from another, still within its burst, went first and they waited behind it (p95 0.25
    to 0.5 s under a Tab flood). Now whoever has worked much less lately goes first,
    in debt or not, and a light session within its share never waits."""
    clock = Clock()
    crowd = Bucket(0.08, 0.3, clock)  # the honest players' address
    crowd.charge(2.0)  # their apps made, long ago
    clock.now += 15
    assert crowd.wait() > 0 and crowd.recent() < 0.02  # still a little in debt
    typist = WorkBudget([Bucket(0.05, 0.3, clock), crowd], clock)
    flood = WorkBudget([Bucket(0.05, 5.0, clock)], clock)  # within its share
    typist.charge(0.01)  # a key a second, lately
    flood.charge(0.6)  # Tabs, lately
    assert typist.owed() > 0 and flood.owed() == 0
    flood.began()
    flood.scheduled()  # the flood at work on a Tab
    assert typist.wait() == 0, "the typist does not wait behind the flood"
    typist.began()
    typist.scheduled()  # a key of the typist's, being handled
    assert flood.wait() > 0, "the flood makes way"
    clock.now += REST * 2
    typist.work(0.003)
    clock.now += REST * 2
    assert flood.wait() == 0  # the key is done: the flood goes on (within its share)
    other = WorkBudget([Bucket(0.05, 0.3, clock)], clock)
    other.charge(0.001)  # another player, much lighter still
    other.began()
    other.scheduled()
    assert typist.wait() > 0  # in debt, it makes way for the lighter one at work
    fresh = WorkBudget([Bucket(0.05, 0.3, clock)], clock)
    assert fresh.wait() == 0  # light and within its share: never waits


def test_new_sessions_from_a_busy_address_are_as_heavy_as_it():
    """A table hog's sessions come and go, each new and light on its own account; their
    address's recent work (their apps made, half a second each) is theirs, so each makes
    way for a player at work whose address is light."""
    clock = Clock()
    hogs = Bucket(0.08, 0.3, clock)
    for _ in range(3):
        WorkBudget([Bucket(0.05, 0.3, clock), hogs], clock).charge(0.2)
    newcomer = WorkBudget([Bucket(0.05, 0.3, clock), hogs], clock)
    player = WorkBudget([Bucket(0.05, 0.3, clock), Bucket(0.08, 0.3, clock)], clock)
    player.charge(0.01)
    assert newcomer.recent() == pytest.approx(0.6)
    player.began()
    player.scheduled()
    assert newcomer.wait() > 0


def test_a_heavy_sessions_long_step_pauses_its_address_while_a_lighter_one_types():
    """A key that arrives during a long step (a screen composed, a start-up) waits for
    all of it, and a table hog's eight sessions had theirs one behind the other. After
    a long step a heavy session, and every session of its address, pause STEP_PAUSE
    times its length while a lighter player types; not for a player of their own
    address (as heavy as they are), nor once the typist has stopped."""
    clock = Clock()
    hogs = Bucket(0.08, 0.3, clock, extra=0.6)
    first = WorkBudget([Bucket(0.05, 0.3, clock), hogs], clock)
    second = WorkBudget([Bucket(0.05, 0.3, clock), hogs], clock)
    first.charge(0.3)  # its app made: heavy
    hogs.charge(0.8)  # and its address's other start-ups: under STRAINED of its burst
    typist = WorkBudget([Bucket(0.05, 0.3, clock), Bucket(0.08, 0.3, clock)], clock)
    typist.began()  # a key
    typist.scheduled()
    clock.now += REST * 2
    typist.work(0.003)
    clock.now += REST * 2
    assert not typist.at_work()
    assert first.wait() == 0 and second.wait() == 0  # no long step yet: they go on
    first.began()
    first.scheduled()
    first.work(0.04)  # one long step
    assert first.wait() == pytest.approx(0.04 * STEP_PAUSE)
    assert second.wait() == pytest.approx(0.04 * STEP_PAUSE)  # its address's too
    clock.now += 0.04 * STEP_PAUSE
    assert first.wait() == 0 and second.wait() == 0
    first.scheduled()
    first.work(0.003)  # a short one: no pause
    assert first.wait() == 0
    mate = WorkBudget([Bucket(0.05, 0.3, clock), hogs], clock)
    clock.now = typist.began_at + TYPING  # the typist has stopped
    mate.began()  # one of their own address types
    first.scheduled()
    first.work(0.04)
    assert first.wait() == 0 and second.wait() == 0
    typist.began()  # the lighter player types again
    assert first.wait() > 0 and mate.wait() > 0


def test_a_player_within_their_burst_is_not_paused_after_a_long_step():
    """A player who opens a screen now and then (each compose a long step) while others
    type has most of their burst left: not paused after it (on a busy host, someone is
    always typing, and an Esc after the first setup screen had waited 1.2-1.4 s). The
    same step from a session under STRAINED of its burst is paused."""
    clock = Clock()
    typist = WorkBudget([Bucket(0.05, 0.3, clock), Bucket(0.08, 0.3, clock)], clock)
    typist.began()
    typist.scheduled()
    typist.work(0.003)
    clock.now += REST * 2
    player = WorkBudget([Bucket(0.05, 0.3, clock), Bucket(0.08, 0.3, clock)], clock)
    player.charge(0.1)  # a screen opened lately: heavier than the typist
    player.began()
    player.scheduled()
    player.work(0.04)  # another screen's compose
    assert player.wait() == 0
    flood = WorkBudget([Bucket(0.05, 0.3, clock), Bucket(0.08, 0.3, clock)], clock)
    flood.charge(0.3 * (1 - STRAINED) + 0.01)  # screens one after another
    flood.began()
    flood.scheduled()
    flood.work(0.04)
    assert flood.wait() == pytest.approx(0.04 * STEP_PAUSE)


def test_a_session_showing_screen_after_screen_pauses_within_its_burst():
    """One session alternating `v` and Esc, each a screen shown (a long step), well
    within its burst (its start's allowance): after a few a second kept up
    (`SCREENS_MANY`), its long steps pause it while a lighter player types, as a
    strained session's do. A player going from screen to screen now and then, a few in a
    row, is not paused; nor is one whose long steps are new sizes (a window dragged)."""
    clock = Clock()

    def session() -> WorkBudget:
        return WorkBudget(
            [Bucket(0.05, 0.3, clock, extra=0.6), Bucket(0.08, 0.3, clock, extra=0.6)], clock
        )

    typist = session()
    typist.began()
    typist.scheduled()
    typist.work(0.003)
    clock.now += REST * 2

    def show(budget: WorkBudget, key: bool = True) -> None:
        budget.began(key)
        budget.scheduled()
        budget.work(0.008)  # a screen's frame
        clock.now += 0.15

    player, dragger, flood = session(), session(), session()
    for _ in range(4):  # four screens in a row
        show(player)
        assert player.wait() == 0
        show(dragger, key=False)
        assert dragger.wait() == 0
        typist.began()  # still typing
    for budget in (player, dragger):
        for _ in range(20):
            show(budget, key=False)  # new sizes, over and over
        assert budget.wait() == 0
    paused = 0
    for _ in range(20):
        typist.began()
        show(flood)
        clock.now -= 0.15  # just after its step
        paused += flood.wait() > 0.2
        clock.now += 0.15 + flood.wait()
    assert paused >= 5  # once it has shown a few a second: then about every other one
    assert flood.debt() == 0, "within its share all along"


def test_sessions_sharing_an_address_pause_after_a_long_step_within_its_burst():
    """Two sessions of one address (a table hog's start-ups), both well within their
    bursts: after one's long step, both pause while another player types."""
    budgets = Budgets(0.05, 0.3, 0.08, 0.3)
    typist = budgets.open("10.0.0.1")
    typist.began()
    typist.scheduled()
    typist.work(0.003)
    hogs = [budgets.open("10.0.0.2") for _ in range(2)]
    hogs[0].charge(0.1)  # heavier than the typist
    hogs[0].began()
    hogs[0].scheduled()
    hogs[0].work(0.04)
    assert hogs[0].wait() > 0.5 and hogs[1].wait() > 0.5
    budgets.close("10.0.0.2", hogs[1])
    budgets.close("10.0.0.2", hogs[0])
    budgets.close("10.0.0.1", typist)
    for budget in (typist, *hogs):
        budget.close()


def test_short_steps_of_one_address_back_to_back_are_a_long_step():
    """Eight sessions' passes over their put-off work, each short, one behind the other
    in a turn of the loop, keep a key waiting as long as one long step: they pause as
    after one. Apart (a few milliseconds between), they are short steps."""
    clock = Clock()
    hogs = Bucket(0.08, 0.3, clock, extra=0.6)
    sessions = [WorkBudget([Bucket(0.05, 0.3, clock), hogs], clock) for _ in range(8)]
    sessions[0].charge(0.3)  # heavy
    hogs.charge(0.8)  # the address's start-ups: under STRAINED of its burst
    typist = WorkBudget([Bucket(0.05, 0.3, clock), Bucket(0.08, 0.3, clock)], clock)
    typist.began()
    typist.scheduled()
    typist.work(0.003)
    clock.now += REST * 4
    for session in sessions:  # apart: short steps (of their input's work: start-ups)
        session.began()
        session.scheduled()
        clock.now += 0.01
        session.work(0.002)
        assert session.wait() == 0
    for session in sessions:  # back to back
        session.began()
        session.scheduled()
        clock.now += 0.002
        session.work(0.002)
    assert all(session.wait() > 0 for session in sessions)


def test_a_busy_address_starting_sessions_pauses_for_a_crowd_typing_from_one_address():
    """Eight players typing from one address cost it as much work, and as many 5 ms runs
    of a key's work, as a table hog's start-ups, throttled: by their address's account the
    hog was no heavier than they, and never paused (bench --abuse f). Each of them is
    light, and a session starting (and its address) is heavy: the hog's start-up pauses
    after a long step while one of them types. A typist does not pause for the hog, and
    an address's one session starting (a first login) is not paused at all."""
    clock = Clock()
    crowd = Bucket(0.08, 0.3, clock)
    crowd.users = 8
    typists = [WorkBudget([Bucket(0.05, 0.3, clock), crowd], clock) for _ in range(8)]
    for _ in range(10):  # a key each, each key's work a run of 6 ms
        for typist in typists:
            typist.began()
            typist.scheduled()
            clock.now += 0.01
            typist.work(0.006)
        clock.now += 0.2
    hogs = Bucket(0.08, 0.3, clock, extra=0.6)
    hogs.users = MANY
    starting = [WorkBudget([Bucket(0.05, 0.3, clock, extra=0.6), hogs], clock) for _ in range(2)]
    for hog in starting:
        hog.opened()
    assert crowd.recent() > hogs.recent()
    typists[0].began()  # typing
    starting[0].scheduled()
    starting[0].work(0.02)  # a long step of its start-up
    assert starting[0].wait() == pytest.approx(0.02 * STEP_PAUSE)
    assert starting[1].wait() == pytest.approx(0.02 * STEP_PAUSE)
    typists[1].scheduled()
    typists[1].work(0.02)  # a long step of a typist's (its address has several)
    starting[1].began()
    assert typists[1].wait() == 0, "a typist does not pause for a start-up"
    first = WorkBudget([Bucket(0.05, 0.3, clock, extra=0.6), Bucket(0.08, 0.3, clock)], clock)
    first.opened()
    first.scheduled()
    first.work(0.02)
    assert first.wait() == 0, "a first login is not paused"


def test_a_session_opened_right_after_its_addresss_last_starts_as_one_of_many():
    """A client that quits and comes back over and over (bench --abuse e: 22 start-ups in
    12 s, each with a new address account and its start allowance) is one address
    starting many sessions: from the `MANY`th within `CHURN`, each start-up pauses after
    a long step while anyone types, and its account is kept for `CHURN` after it leaves.
    A first login is not held, nor a player back at once after their link dropped."""
    budgets = Budgets(0.05, 0.3, 0.08, 0.3)
    first = budgets.open("198.51.100.7")
    assert not first.starting_many()
    first.close()
    budgets.close("198.51.100.7", first)
    back = budgets.open("198.51.100.7")  # at once, its last one gone: a dropped link
    assert back.buckets[1] is first.buckets[1], "the address's account is kept"
    assert not back.starting_many(), "a player back after a drop is not one of many"
    for _ in range(MANY - 2):
        back.close()
        budgets.close("198.51.100.7", back)
        back = budgets.open("198.51.100.7")
    assert back.starting_many()
    back.close()
    budgets.close("198.51.100.7", back)


def test_a_second_session_of_an_address_starts_unheld_and_a_crowd_of_them_held():
    """A player's second session, or a friend's behind the same router, is not held after
    a long step (it took 1.2-1.6 s to reach the lobby while eight others typed, against
    60-110 ms); the `MANY`th of an address at once (a table hog's eight) is."""
    budgets = Budgets(0.05, 0.3, 0.08, 0.3)
    one = budgets.open("192.0.2.9")
    for bucket in one.buckets:
        bucket.opens.clear()  # as if opened long ago
    two = budgets.open("192.0.2.9")
    assert not one.starting_many() and not two.starting_many()
    three = budgets.open("192.0.2.9")
    assert three.starting_many() and two.starting_many()


def test_the_sessions_a_heavy_one_makes_way_for_are_those_at_work():
    """Whether a session makes way (`WorkBudget.wait`) was a walk over every session on
    the host, for each of its callbacks; it looks at those at work on input only (and,
    after a long step, those typing lately): a host of idle sessions is not walked."""
    clock = Clock()
    idle = [WorkBudget([Bucket(0.05, 0.3, clock)], clock) for _ in range(200)]
    heavy = WorkBudget([Bucket(0.05, 0.3, clock)], clock)
    heavy.charge(0.3)
    assert not any(budget in WorkBudget.working for budget in idle)
    typist = WorkBudget([Bucket(0.05, 0.3, clock)], clock)
    typist.began()
    typist.scheduled()
    assert typist in WorkBudget.working
    assert heavy.wait() == POLL  # it makes way while the typist is at work
    clock.now += 0.01
    typist.work(0.003)
    clock.now += REST * 2
    assert heavy.wait() == 0  # the typist has rested: no longer looked at
    assert typist not in WorkBudget.working and not typist.busy
    typist.began()
    typist.scheduled()
    typist.close()
    assert heavy.wait() == 0 and typist not in WorkBudget.working
    assert len(idle) == 200


async def test_a_connections_bytes_held_are_not_read_in_one_long_step():
    """A resize storm's bytes, held while its session paused after a long step, piled up
    to 64 KB and were then read in one go (100 to 600 ms): reading them is part of the
    address's run, and past a long step of it the rest waits while a lighter one types."""
    clock = Clock()
    heavy = WorkBudget([Bucket(0.05, 0.3, clock), Bucket(0.08, 0.3, clock)], clock)
    heavy.charge(0.3)
    typist = WorkBudget([Bucket(0.05, 0.3, clock), Bucket(0.08, 0.3, clock)], clock)
    typist.began()
    typist.scheduled()
    typist.work(0.001)
    clock.now += REST * 4
    chunks: list[int] = []

    def read(chunk: bytes) -> None:
        started = time.thread_time()
        while time.thread_time() - started < 0.002:  # the SSH layer's work on it
            pass
        chunks.append(len(chunk))

    pacer = ReadPacer(read, None)
    pacer.budget = heavy
    pacer.data_received(b"x" * READ_SLICE * 10)
    assert 0 < len(chunks) < 10, chunks
    pacer.close()


async def test_a_busy_session_is_given_one_key_at_a_time():
    """Textual handles all the keys it is given at once in one go: six Tabs in a packet
    were 150 ms of the loop, nobody else's key read meanwhile (the flood's p95 damage).
    A session with recent work past BUSY_FLOOR is given the first key, the rest held and
    fed one by one (Tabs in a row coalesced); a light one is given what came, whole."""
    clock = Clock()
    budget = WorkBudget([Bucket(0.05, 5.0, clock)], clock)
    fed: list[bytes] = []
    pacer = InputPacer(budget, fed.append, lambda w, h: None)
    pacer.input(b"\t\t\t")
    assert fed == [b"\t\t\t"]  # light: as it came
    budget.charge(BUSY_FLOOR * 2)
    assert budget.owed() == 0  # still within its share
    pacer.input(b"\t\t\t\tab")
    assert fed[1:] == [b"\t"]
    assert list(pacer.held) == [b"\t", b"a", b"b"]
    pacer.close()


def test_input_is_cut_into_keys():
    data = b"a\t\x1b[A\x1b[<35;10;5M\xc3\xa9\x1bx\x1b[200~pasted\r\x1b[201~\x1b"
    assert keys_of(data) == [
        b"a",
        b"\t",
        b"\x1b[A",
        b"\x1b[<35;10;5M",
        "é".encode(),
        b"\x1bx",
        b"\x1b[200~pasted\r\x1b[201~",
        b"\x1b",
    ]


async def test_input_over_budget_is_held_coalesced_and_bounded():
    clock = Clock()
    budget = WorkBudget([Bucket(0.1, 0.3, clock)], clock)
    fed: list[bytes] = []
    pacer = InputPacer(budget, fed.append, lambda w, h: None)
    pacer.input(b"ab")
    assert fed == [b"ab"]  # within the budget: at once, as it came
    budget.charge(DEEP_DEBT + 0.5)  # deep in debt: held even with nobody else at work
    pacer.input(b"\t\t\t")
    pacer.input(b"\t")
    pacer.input(b"\x1b[<35;1;1M\x1b[<35;2;2M\x1b[<35;3;3M")
    assert list(pacer.held) == [b"\t", b"\x1b[<35;3;3M"]  # one focus move, the last motion
    pacer.input(b"x" * (QUEUE_MAX + 10))
    assert QUEUE_MAX - 10 < pacer.held_bytes <= QUEUE_MAX and pacer.dropped >= 10
    assert fed == [b"ab"]  # nothing more while in debt
    pacer.close()


def test_an_address_that_leaves_in_debt_comes_back_to_its_debt():
    """Its last session gone, an address's account stays while in debt: one that ends its
    session and connects again (each new app costs the host) is not let off; once paid,
    it is forgotten (once `CHURN` has passed since it last opened one), and comes back to a
    full account."""
    budgets = Budgets(0.05, 0.3, 0.08, 0.3)
    first = budgets.open("192.0.2.1")
    first.charge(2.0)
    budgets.close("192.0.2.1", first)
    again = budgets.open("192.0.2.1")
    assert again.buckets[1] is first.buckets[1] and again.owed() > 10
    budgets.close("192.0.2.1", again)
    quick = Budgets(0.05, 0.3, 1000.0, 0.3)  # an address's share that pays any debt at once
    gone = quick.open("192.0.2.2")
    gone.charge(0.5)
    quick.close("192.0.2.2", gone)
    time.sleep(0.01)
    quick.open("192.0.2.3")
    assert "192.0.2.2" in quick.addresses, "kept for CHURN after its last session opened"
    quick.addresses["192.0.2.2"].opened_at -= CHURN  # as if CHURN had passed
    quick.open("192.0.2.4")
    assert "192.0.2.2" not in quick.addresses


def test_a_frame_still_to_draw_is_the_inputs_work():
    """On a crowded loop the screen's update timer fires late: until the frame a key or
    resize asked for is drawn (within DRAW_MAX), the app has not rested, so the drawing
    is charged to the session; after DRAW_MAX an app that never stops drawing is at its
    own work."""
    clock = Clock()
    budget = WorkBudget([Bucket(0.1, 0.3, clock)], clock)
    due = [True]
    budget.drawing = lambda: due[0]
    budget.began()
    clock.now += REST * 3
    assert not budget.rested()
    budget.scheduled()
    budget.work(0.02)  # the late frame, drawn
    assert budget.spent == pytest.approx(0.02)
    due[0] = False
    clock.now += REST * 2
    assert budget.rested()
    due[0] = True
    budget.began()
    clock.now += DRAW_MAX
    budget.scheduled()
    budget.work(0.001)  # an animation: always at work, always a frame to draw
    clock.now += REST * 1.5
    assert budget.rested()


class Transport:
    """A transport's reading switch, as asyncio's has."""

    def __init__(self) -> None:
        self.reading = True

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True


async def test_a_connection_over_its_budget_is_held_until_it_is_paid():
    """The SSH layer's work is charged to the session; while the session is deep in
    debt its connection's bytes wait (past INBOX_MAX of them, its socket is not read);
    once the debt is paid they reach the SSH layer whole, in order, a slice at a time."""
    clock = Clock()
    budget = WorkBudget([Bucket(0.1, 0.3, clock)], clock)
    given: list[bytes] = []

    def ssh_layer(data: bytes) -> None:
        given.append(data)
        started = time.thread_time()
        while time.thread_time() - started < 0.002:  # decrypting, dispatching
            pass

    transport = Transport()
    reader = ReadPacer(ssh_layer, transport)
    reader.budget = budget
    reader.data_received(b"a" * 100)
    assert given == [b"a" * 100] and budget.spent >= 0.002  # the SSH layer's time, charged
    budget.charge(DEEP_DEBT + 0.5)  # a flood's debt: 1.5 s at 0.1 s a second
    reader.data_received(b"b" * (READ_SLICE + 10))
    await asyncio.sleep(0.05)
    assert len(given) == 1 and reader.holds > 0 and transport.reading  # held, still read
    reader.data_received(b"c" * INBOX_MAX)
    assert not transport.reading  # too much held: the socket waits too
    clock.now += 1000  # paid
    for _ in range(200):
        if not reader.inbox:
            break
        await asyncio.sleep(0.01)
    assert transport.reading
    assert b"".join(given[1:]) == b"b" * (READ_SLICE + 10) + b"c" * INBOX_MAX
    assert all(len(chunk) <= READ_SLICE for chunk in given)
    reader.close()


# --- with real clients ----------------------------------------------------------------------


@pytest.fixture
def host_key(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path / "host_key"


async def start_host(host_key: Path, **limits: object) -> Host:
    options = HostOptions(
        port=0, host_key=host_key, open=True, limits=dataclasses.replace(Limits(), **limits)
    )
    host = Host(options, None)
    await host.start(load_or_create_host_key(host_key))
    return host


async def connect_from(
    port: int, address: str, key: asyncssh.SSHKey, size: tuple[int, int] = (80, 24)
) -> tuple[asyncssh.SSHClientConnection, asyncssh.SSHClientChannel, Terminal]:
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username="player",
        client_keys=[key],
        known_hosts=None,
        agent_path=None,
        connect_timeout=10,
        local_addr=(address, 0),
    )
    chan, terminal = await conn.create_session(
        Terminal, term_type="xterm-256color", term_size=size, encoding=None
    )
    await terminal.expect("shared tables", timeout=30)
    return conn, chan, terminal


async def echo_times(chan, terminal: Terminal, seconds: float) -> list[float]:
    """Type into the join-code field (a letter, then Backspace) four times a second;
    from each key to the first output after it."""
    times: list[float] = []
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        mark = len(terminal.output)
        started = time.perf_counter()
        chan.write((b"a", b"\x7f")[n % 2])
        n += 1
        while len(terminal.output) == mark and time.perf_counter() - started < 5:
            terminal.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(terminal.changed.wait(), 0.05)
        times.append(time.perf_counter() - started)
        await asyncio.sleep(max(0.0, started + 0.25 - time.perf_counter()))
    return times


def flood_tabs(port: int, key: asyncssh.SSHKey, seconds: float, ready: threading.Event) -> int:
    """A client from another address sending Tab at 500 bytes a second (far under the
    byte budget) for `seconds`, in a thread and event loop of its own: a flooder does not
    wait for the host, as a client in the host's own loop would. Its session's dropped
    bytes."""

    async def flood() -> None:
        conn, chan, _ = await connect_from(port, "127.0.0.2", key)
        ready.set()
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            chan.write(b"\t" * 5)
            await asyncio.sleep(0.01)
        conn.close()

    asyncio.run(flood())


async def test_a_tab_flood_slows_only_the_flooder(tmp_path, host_key):
    """One session floods Tab for 6 s from another address; an honest session's keys are
    still answered quickly. (With `work_rate=0`, no budget, this test fails: the honest
    p95 is then seconds.)"""
    host = await start_host(host_key)
    key = asyncssh.read_private_key(make_key(tmp_path / "player"))
    links = []
    try:
        links.append(honest := await connect_from(host.port, "127.0.0.1", key))
        honest[1].write(b"j")  # to the join-code field
        ready = threading.Event()
        flood = asyncio.create_task(asyncio.to_thread(flood_tabs, host.port, key, 6, ready))
        while not ready.is_set():
            await asyncio.sleep(0.05)
        flooding = next(s for s in host.sessions if s.gate.address == "127.0.0.2")
        await asyncio.sleep(1)  # the flooder has spent its burst
        times = await echo_times(honest[1], honest[2], 4)
        dropped = flooding.pacer.dropped
        reader = flooding.gate.reader
        held = reader.holds if reader is not None else 0
        await asyncio.wait_for(flood, 30)
        p95 = sorted(times)[round(0.95 * (len(times) - 1))]
        assert p95 < 0.25 and max(times) < 1.0, f"p95 {p95:.3f}s, max {max(times):.3f}s"
        # The flooder's excess was dropped or held back before the SSH layer (at most
        # INBOX_MAX bytes of it), not queued without end.
        assert dropped > 0 or held > 0
    finally:
        for conn, _, _ in links:
            conn.close()
        await asyncio.wait_for(host.close(), 10)


@pytest.mark.parametrize(
    ("flags", "shares"),
    [
        ((), [(0.05, 0.3), (0.08, 0.3)]),
        (
            ("--session-share", "0.02", "--address-share", "0.5", "--burst", "2"),
            [(0.02, 2), (0.5, 2)],
        ),
        (("--session-share", "0"), None),
    ],
)
async def test_the_share_flags_reach_each_sessions_budget(tmp_path, host_key, flags, shares):
    """`cantina serve --session-share S --address-share S --burst S`: a session that
    logs in is held to those shares (its own bucket, then its address's); 0 for no limit."""
    args = build_parser().parse_args(["serve", "--open", "--port", "0", *flags])
    options = dataclasses.replace(host_options(args), host_key=host_key)
    host = Host(options, None)
    await host.start(load_or_create_host_key(host_key))
    key = asyncssh.read_private_key(make_key(tmp_path / "player"))
    conn, _, _ = await connect_from(host.port, "127.0.0.1", key)
    try:
        (session,) = host.sessions
        budget = session.budget
        if shares is None:
            assert budget is None and session.pacer.budget is None
        else:
            assert budget is not None
            assert [(b.rate, b.burst) for b in budget.buckets] == shares
    finally:
        conn.close()
        await asyncio.wait_for(host.close(), 10)


async def test_a_resize_storm_is_a_few_resizes_and_the_last_size_wins(tmp_path, host_key):
    # past `Limits.resize_rate` a storm's session ends (test_ssh_abuse_resize.py): not here
    host = await start_host(host_key, resize_burst=10_000)
    key = asyncssh.read_private_key(make_key(tmp_path / "player"))
    conn, chan, _ = await connect_from(host.port, "127.0.0.1", key)
    try:
        session = next(iter(host.sessions))
        app = session.app
        seen: list[tuple[int, int]] = []  # each resize given to the app
        resized = session.driver.resized

        def counted(width: int, height: int) -> None:
            seen.append((width, height))
            resized(width, height)

        session.driver.resized = counted
        started = time.perf_counter()
        for n in range(300):  # about 1.5 s of window changes, two sizes in turn
            chan.change_terminal_size(*((120, 40), (90, 30))[n % 2])
            await asyncio.sleep(0.005)
        chan.change_terminal_size(100, 35)
        storm = time.perf_counter() - started
        for _ in range(100):
            if tuple(app.size) == (100, 35):
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        assert tuple(app.size) == (100, 35)
        assert seen[-1] == (100, 35)
        assert len(seen) <= storm / RESIZE_MAX + 3, seen  # not one per change (300)
    finally:
        conn.close()
        await asyncio.wait_for(host.close(), 10)


# --- the footer -------------------------------------------------------------------------------


async def test_a_focus_change_that_keeps_the_keys_keeps_the_footer():
    """Textual's footer made its keys anew (and laid the screen out again) at each change
    of the screen's bindings, several for one Tab; now only when the keys differ."""
    app = CantinaApp(animation_speed=0, save_preferences=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        footer = app.screen.query_one(Footer)
        keys = list(footer.query(FooterKey))
        focused = app.focused
        await pilot.press("tab")
        await pilot.pause()
        assert app.focused is not focused  # the focus moved
        assert list(footer.query(FooterKey)) == keys  # the very same keys
        await pilot.press("s")  # another screen: other keys
        await pilot.pause()
        assert app.screen.query_one(Footer).query(FooterKey)
        assert {key.key for key in app.screen.query(FooterKey)} != {key.key for key in keys}


def test_a_new_player_starts_out_of_debt_but_an_address_coming_back_does_not():
    """Making a session's app (about half a second of work) is covered once by the start
    allowance: a newcomer's first keys are not held behind others' play. A second session
    from the same address, its address's allowance spent, owes its start-up."""
    budgets = Budgets(rate=0.05, burst=0.3, address_rate=0.08, address_burst=0.3)
    first = budgets.open("192.0.2.1")
    first.charge(0.5)
    assert first.owed() == 0
    again = budgets.open("192.0.2.1")
    again.charge(0.5)
    assert again.owed() > 1.0
    elsewhere = budgets.open("192.0.2.2")
    elsewhere.charge(0.5)
    assert elsewhere.owed() == 0
    elsewhere.charge(0.5)
    assert elsewhere.owed() > 1.0, "the allowance is once, not a bigger burst"


async def test_keys_a_text_field_takes_are_dimmed_in_place_not_made_anew(tmp_path, host_key):
    """In the lobby, the join-code field takes the letter keys while it has the focus, and
    gives them back at the next Tab. Over SSH, the footer dims those keys where they are
    and lights them again (a repaint), instead of removing every key and mounting new ones
    (two layouts of the whole screen, most of a Tab's cost). A dimmed key does not act:
    the letter goes into the field."""
    host = await start_host(host_key)
    key = asyncssh.read_private_key(make_key(tmp_path / "player"))
    conn, chan, terminal = await connect_from(host.port, "127.0.0.1", key)
    try:
        (session,) = host.sessions
        app = session.app
        footer = app.screen.query_one(Footer)

        async def settle(check) -> None:
            for _ in range(100):
                if check():
                    return
                await asyncio.sleep(0.05)
            raise AssertionError("the footer never showed what was expected")

        def dimmed() -> set[str]:
            return {k.key for k in footer.query(FooterKey) if k.has_class("-disabled")}

        await settle(lambda: {"c", "w", "m"} <= {k.key for k in footer.query(FooterKey)})
        keys = list(footer.query(FooterKey))
        assert dimmed() == {"w"}  # no table to watch yet
        chan.write(b"j")  # the join-code field
        await settle(lambda: getattr(app.focused, "id", None) == "code" and bool(dimmed()))
        assert {"c", "w", "m"} <= dimmed()
        assert list(footer.query(FooterKey)) == keys, "the very same keys"
        shown = len(terminal.output)
        chan.write(b"c")  # typed, not a new campaign
        await terminal.expect("c", since=shown)
        await asyncio.sleep(0.2)
        assert app.focused is not None and getattr(app.focused, "value", "") == "c"
        chan.write(b"\t" * 3)  # round to the table list, whose keys are lit (but Watch)
        await settle(lambda: getattr(app.focused, "id", None) == "tables" and dimmed() == {"w"})
        assert list(footer.query(FooterKey)) == keys
    finally:
        conn.close()
        await asyncio.wait_for(host.close(), 10)


async def test_work_held_back_is_still_the_inputs_work():
    """An app whose work is put off (`WorkBudget.park`) for longer than `REST_MAX` has
    not finished with its input: what it does once let go is charged. A table hog's new
    sessions, held while others played, made the rest of their apps for free."""
    clock = Clock()
    budget = WorkBudget([Bucket(0.05, 0.3, clock)], clock)
    budget.began()  # the session starts: making its app is its work
    budget.scheduled()
    budget.park(copy_context(), lambda: None, ())
    clock.now += REST_MAX * 3
    assert not budget.rested()
    budget.scheduled()  # more of the app's work comes up meanwhile
    budget.work(0.1)
    assert budget.busy and budget.spent == pytest.approx(0.1)
    budget.close()


def test_a_session_looks_past_its_own_addresss_sessions_at_work_and_typing():
    """A session never makes way, nor pauses, for those of its own address (one account:
    they are as heavy as it), so `wait` does not look at each of them: sixty-four players
    behind one address each looked at all the others on every callback of theirs, and
    their keystroke p95 at a table went from 150 ms to 300-550 ms (bench_ssh --at-table
    --sessions 64). A lighter player of another address is still made way for."""
    clock = Clock()
    address = Bucket(0.05 * 64, 64.0, clock)
    address.users = 64
    crowd = [WorkBudget([Bucket(0.05, 64.0, clock), address], clock) for _ in range(64)]
    looked: list[WorkBudget] = []

    class Counted(WorkBudget):
        def rested(self) -> bool:
            looked.append(self)
            return super().rested()

        def recent(self) -> float:
            looked.append(self)
            return super().recent()

    for budget in crowd:
        budget.__class__ = Counted
        budget.began()
        budget.scheduled()
        budget.charge(0.1)  # heavier than `BUSY_FLOOR`: each looks for lighter ones
    one = crowd[0]
    address.ran(0.01, clock.now)  # a long step: they pause for any lighter typist
    assert address.pause_until > clock.now
    looked.clear()
    assert one.wait() == 0  # nobody of another address is at work or typing
    assert set(looked) <= {one}, f"looked at {len(set(looked) - {one})} of its mates"
    typist = WorkBudget([Bucket(0.05, 0.3, clock), Bucket(0.08, 0.3, clock)], clock)
    typist.began()
    typist.scheduled()
    assert one.wait() > 0  # a lighter player of another address at work: it makes way
    for budget in crowd:
        budget.close()
    typist.close()


def test_a_newcomers_start_up_is_not_typing_that_others_pause_for():
    """Players behind one address pause after a long step while a lighter player types;
    a newcomer's start-up counted as typing for two seconds (its app given its first
    size), so eight typists from one address paused for each login, their p95 370-700
    ms while others logged in, 29 ms now (benchmarks/bench_logins.py). Its first key
    once started is typing."""
    clock = Clock()
    address = Bucket(0.08, 0.3, clock)
    address.users = 8
    crowd = [WorkBudget([Bucket(0.05, 0.3, clock), address], clock) for _ in range(8)]
    for budget in crowd:
        budget.began()
        budget.scheduled()
        budget.work(0.004)
        budget.charge(0.03)
    newcomer = WorkBudget([Bucket(0.05, 0.3, clock), Bucket(0.08, 0.3, clock)], clock)
    newcomer.opened()  # its app is being made, and given its first size
    newcomer.began()
    newcomer.scheduled()
    clock.now += 0.01
    newcomer.work(0.004)
    clock.now += REST * 2
    newcomer.scheduled()  # it has rested: started (and makes way for nobody now)
    newcomer.work(0.001)
    assert not newcomer.starting and not newcomer.busy
    address.ran(0.01, clock.now)  # a typist's key was a long step
    assert crowd[0].wait() == 0, "they do not pause for a start-up"
    newcomer.began()  # its first key
    newcomer.scheduled()
    newcomer.work(0.001)
    clock.now += REST * 2
    newcomer.scheduled()  # done with it
    newcomer.work(0.001)
    address.ran(0.01, clock.now)
    assert crowd[0].wait() > 0, "they pause for a lighter player typing"
    for budget in (*crowd, newcomer):
        budget.close()


@contextlib.contextmanager
def started_sessions(
    monkeypatch: pytest.MonkeyPatch, count: int, keys_first: bool = True
) -> Iterator[list[WorkBudget]]:
    """`count` sessions past their start-ups, on the running loop with the meter on it and
    `KEYS_FIRST` as given; closed, and the meter taken off, afterwards."""
    monkeypatch.setattr(budget_module, "KEYS_FIRST", keys_first)
    loop = asyncio.get_running_loop()
    WorkMeter.install(loop)
    budgets = [WorkBudget([Bucket(1.0, 1.0)]) for _ in range(count)]
    try:
        for budget in budgets:
            budget.opened()
            budget.busy = False  # started: out of its start-up
        yield budgets
    finally:
        for budget in budgets:
            budget.close()
        WorkMeter.uninstall(loop)


def soon(budget: WorkBudget, callback: Callable[..., object], *args: object) -> None:
    """`callback` scheduled as work of `budget`'s session (in a context it owns)."""
    context = copy_context()
    context.run(OWNER.set, budget)
    asyncio.get_running_loop().call_soon(callback, *args, context=context)


async def test_a_light_players_key_goes_ahead_of_the_loops_other_work_in_its_order(monkeypatch):
    """`KEYS_FIRST`: the callbacks of a light session at work on a key run before what the
    loop already had ready (another session's animation, a table playing), in the order
    they were made; a session not at work on a key takes its turn, and a heavy session's
    key (past `BUSY_FLOOR` lately) is not put ahead (it makes way, as ever). Each hop of a
    key waited out a whole turn of everybody's ready work: at 64 players on one host,
    half of their keystroke -> frame p95."""
    ran: list[str] = []
    with started_sessions(monkeypatch, 3) as (typist, background, flooder):
        flooder.charge(BUSY_FLOOR * 2)  # heavy lately
        flooder.began()
        soon(background, ran.append, "tumble 1")
        soon(flooder, ran.append, "flood 1")
        typist.began()  # a key
        soon(typist, ran.append, "key 1")
        soon(background, ran.append, "tumble 2")
        soon(typist, ran.append, "key 2")
        soon(flooder, ran.append, "flood 2")
        for _ in range(5):
            await asyncio.sleep(0)
        assert ran[:4] == ["key 1", "key 2", "tumble 1", "tumble 2"]
        for _ in range(500):  # the flood's work makes way while the key is at work
            if len(ran) == 6:
                break
            await asyncio.sleep(0.01)
        assert ran[4:] == ["flood 1", "flood 2"]


async def test_without_keys_first_a_key_takes_its_turn(monkeypatch):
    """The rule off (`KEYS_FIRST` False): the loop's own order."""
    ran: list[str] = []
    with started_sessions(monkeypatch, 2, keys_first=False) as (typist, background):
        typist.began()
        soon(background, ran.append, "tumble")
        soon(typist, ran.append, "key")
        for _ in range(3):
            await asyncio.sleep(0)
        assert ran == ["tumble", "key"]


async def test_a_keys_work_never_overtakes_its_own_sessions_earlier_work(monkeypatch):
    """A session whose earlier callback still waits its turn (scheduled before its key, in
    the loop's order) is not put ahead (`waiting_in_turn`): its callbacks run in the order
    they were made. Once that one has run, its key's next work goes ahead again."""
    ran: list[str] = []
    with started_sessions(monkeypatch, 2) as (typist, background):
        soon(background, ran.append, "tumble 1")
        soon(typist, ran.append, "its earlier work")
        typist.began()  # a key, while that waits its turn
        soon(typist, ran.append, "key 1")
        soon(background, ran.append, "tumble 2")
        for _ in range(3):
            await asyncio.sleep(0)
        assert ran == ["tumble 1", "its earlier work", "key 1", "tumble 2"]
        soon(background, ran.append, "tumble 3")
        soon(typist, ran.append, "key 2")  # nothing of its own waits now
        for _ in range(3):
            await asyncio.sleep(0)
        assert ran[4:] == ["key 2", "tumble 3"]


async def test_keys_first_loses_and_repeats_nothing_other_threads_schedule(monkeypatch):
    """Another thread's callback (an AI's move worked out off the loop comes back through
    `call_soon_threadsafe`, appended to the ready callbacks from that thread at any moment)
    may arrive while a key's work is being put ahead: each callback, the key's and the
    thread's, runs once. (Moving the key's by popping the last one popped a thread's that
    came in between, and left the key's there too: the AI's move was lost, its table stood
    still "thinking", and a task was woken twice, the second time after it had finished.)"""
    loop = asyncio.get_running_loop()
    mine: dict[int, int] = {}
    theirs: dict[tuple[int, int], int] = {}
    went_first = 0

    def ran(counts: dict, key: object) -> None:
        counts[key] = counts.get(key, 0) + 1

    def hammer(thread: int) -> None:
        for number in range(4000):
            loop.call_soon_threadsafe(ran, theirs, (thread, number))

    switching = sys.getswitchinterval()
    threads = [threading.Thread(target=hammer, args=(n,)) for n in range(2)]
    with started_sessions(monkeypatch, 1) as (typist,):
        first = typist.first

        def counted_first() -> bool:
            nonlocal went_first
            goes = first()
            went_first += goes
            return goes

        typist.first = counted_first  # type: ignore[method-assign]
        sys.setswitchinterval(1e-6)  # the threads cut in as often as they may
        try:
            for thread in threads:
                thread.start()
            made = 0
            while any(thread.is_alive() for thread in threads) and made < 20_000:
                typist.began()  # a key: its work goes ahead
                for _ in range(20):
                    soon(typist, ran, mine, made)
                    made += 1
                await asyncio.sleep(0)
            for thread in threads:
                thread.join(10)
        finally:
            sys.setswitchinterval(switching)
        for _ in range(100):
            await asyncio.sleep(0)
            if len(mine) == made and len(theirs) == 8000:
                break
        assert went_first > 0
        assert len(theirs) == 8000 and set(theirs.values()) == {1}
        assert len(mine) == made and set(mine.values()) == {1}
