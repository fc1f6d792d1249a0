"""The one turn driver of a table: who acts next, the AI seats, absent players, the pace.

One `Dealer` follows one `LiveTable`, at a local table and at a shared one alike. It runs
as a task in the event loop. It shows each new event of the table's log in turn, at the
table's `Pace` (a die rolls as long as it tumbles, a told event stays a beat), and only
then asks for the next decision: a person's pick (`pick`), an AI seat's choice (thought
out in a worker thread, on a copy of the game, so the loop never waits for it), the next
recorded move (a replay), or, once a player has been away past the grace, the stand-in
AI's. Screens `follow` it, draw the table's log up to `shown` and the state as it stood
then (`LiveTable.state_at`), and forward a person's picks; they decide nothing about
turns. Nothing here imports textual.

At a table kept in a durable store (`--store redis://…`) the dealer has the table's
`Journal`: each decision, a person's or an AI's, is recorded there first, under the
version the table is at, and applied only once the store took it; while the store is out
of reach it waits (nothing is lost, nothing is applied twice; see `_record`). With many
hosts at one table, each host's dealer applies the decisions the others recorded as they
arrive (`absorb`), and only the host holding the table's lease plays its AI seats and
stand-in (`plays_ai`); the others show the AI thinking until its choice arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from cantina.ai.temperament import temperament
from cantina.games.dice import Dice, DiceState
from cantina.games.table import Action, Decision, IllegalAction, Move
from cantina.live import LiveTable
from cantina.narration import Narrator
from cantina.pace import Pace
from cantina.store.memory import Journal, StoreAway, stop_if_cancelled
from cantina.store.records import Entry, entry_move, move_entry, next_game_entry
from cantina.tasks import detached

log = logging.getLogger("cantina.dealer")

THINK_GAP = 2 / 60
"""Seconds an AI waits before it starts thinking: two frames at 60 a second, so every
screen has drawn what came before while the thinking thread does not yet share the
interpreter with them."""
FAILED_AI_WAIT = 5.0
"""Seconds before an AI that failed is asked again."""
STORE_RETRY = 0.5
"""Seconds between tries of a decision the table's store could not take (it is away)."""
TOO_LATE = "A choice came too late: the table had moved on, so it was not made."
"""Told at the table when a pick lost to another made on another host first."""

SHOWING = "showing"
"""Events are being shown; nobody is asked yet."""
THINKING = "thinking"
"""An AI seat (or a stand-in, or a replay's next move) is about to act."""
ASKING = "asking"
"""A person must choose: `Turn.decision`."""
OVER = "over"
"""The game is over and all of it has been shown."""
REPLAYED = "replayed"
"""A replay has played its last recorded move."""


class Turn(NamedTuple):
    """Where the table stands for its viewers."""

    kind: str
    seat: int | None = None
    decision: Decision | None = None


@dataclass(frozen=True)
class Place:
    """Where one screen is at a table: the seats whose choices are made there, whether
    it is a player's (who may hurry the table and start its next game) or a spectator's,
    and who is there (a key's fingerprint over SSH, for presence)."""

    seats: frozenset[int] = frozenset()
    player: bool = True
    who: str = ""
    rejoin: str = ""
    """The code that puts a guest back in this seat from a new connection (shown to them)."""


class Countdown(NamedTuple):
    """A seat whose player is away, and the seconds left before the stand-in plays it
    (0: from its next turn on; it plays it now if `standing_in`)."""

    seat: int
    name: str
    left: float
    standing_in: bool


Follower = Callable[[], None]


class Dealer:
    """The turn driver of one table (see the module's notes)."""

    def __init__(
        self,
        table: LiveTable,
        *,
        pace: Pace | None = None,
        replay: Sequence[Move] | None = None,
        grace: float | None = None,
        stand_in: str = "Cautious",
        think_gap: float = THINK_GAP,
        journal: Journal | None = None,
    ) -> None:
        self.table = table
        self.pace = pace if pace is not None else Pace()
        self.replay = list(replay) if replay is not None else None
        """Recorded moves still to play, instead of asking anyone (None: not a replay)."""
        self.grace = grace
        """Seconds an away player's seat waits before the stand-in plays it (None: never,
        as at a local table)."""
        self.stand_in = stand_in
        self.think_gap = think_gap
        self._shown = 0
        self.turn = Turn(SHOWING)
        self.hurrying = False
        """Set by `hurry`: show at once and let the AI act without a beat, until a person
        is asked."""
        self.notices: list[str] = []
        """What every viewer is told besides the game (who left, who stands in)."""
        self.away_since: dict[int, float] = {}
        self.standing_in: set[int] = set()
        """Seats for people that the stand-in AI plays now."""
        self.owners: dict[int, str] = {}
        """Who (by key, or a guest's identity) plays each seat for a person, where known:
        only their places act for it (a guest back by rejoin code takes it over)."""
        self.failure: BaseException | None = None
        """What stopped this dealer, if something went wrong in it."""
        self.closed = False
        self._number = table.number
        self._followers: dict[int, tuple[Follower, Place]] = {}
        self.on_follow: Callable[[], None] | None = None
        """Told when a screen begins to follow the table (a shared lobby reads the log
        of a table another host plays at once then, if it was not reading it)."""
        self._woken = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._narrate = Narrator(table.setup.names)
        self._unlisten = table.listen(lambda _events: self._wake())
        self.journal = journal
        """Where each decision is recorded before it is applied, if the table is kept in
        a durable store (None: applied at once, kept nowhere)."""
        self._chosen: tuple[int, Move | None] | None = None
        """A person's decision (None: the next game) on its way to the journal, with the
        version of the table it was made at."""
        self._ai_dice_moved = False
        """An AI has thought since the last recorded decision: the next one carries the
        AI's dice, so a table rebuilt from its log chooses as this one would."""
        self.elsewhere: set[str] = set()
        """Who follows the table from any host, by the lobby's last beat (with many hosts;
        empty with one)."""
        self.plays_ai = True
        """Whether this host plays the AI seats and the stand-in (with many hosts at one
        table, only the one holding its lease does; `set_plays_ai`)."""

    # --- life ------------------------------------------------------------------------------

    def start(self) -> Dealer:
        """Begin dealing, in the running event loop."""
        if self._task is None:
            self._task = detached(self._run(), name="dealer")
        return self

    def close(self) -> None:
        """Stop: nothing more is shown or played (an AI still thinking is not heard)."""
        if self.closed:
            return
        self.closed = True
        self._unlisten()
        if self._task is not None:
            self._task.cancel()
        self._notify()

    @property
    def task(self) -> asyncio.Task[None] | None:
        return self._task

    # --- viewers ---------------------------------------------------------------------------

    def follow(self, follower: Follower, place: Place) -> Callable[[], None]:
        """Be called after every change (events shown, a new turn, a new game, a notice);
        returns the way out. A player who follows is at the table: a seat of theirs that
        was away is theirs again."""
        key = id(follower)
        self._followers[key] = (follower, place)
        for seat in place.seats:
            if seat in self.away_since:
                self.set_back(seat)
        if self.on_follow is not None:
            self.on_follow()
        return lambda: self._followers.pop(key, None) and None

    def watching(self, who: str) -> bool:
        """Whether a screen of this person (by key) follows the table now."""
        return any(place.who == who for _, place in self._followers.values())

    @property
    def followed(self) -> bool:
        """Whether any screen follows the table now (a player's or a spectator's)."""
        return bool(self._followers)

    def present(self) -> set[str]:
        """Who follows the table from this host, players and spectators, by key."""
        return {place.who for _, place in self._followers.values() if place.who}

    def spectators(self) -> list[str]:
        """Who watches without a seat of their own, by key, once each: here (a screen whose
        seat is played from another connection now among them), then from other hosts
        (`elsewhere`)."""
        places = [place for _, place in self._followers.values()]
        here = [p.who for p in places if p.who and not self.holds(p)]  # (a seat taken back)
        players = set(self.owners.values())
        there = [who for who in sorted(self.elsewhere) if who not in players]
        return list(dict.fromkeys([*here, *there]))

    def countdowns(self, now: float) -> list[Countdown]:
        """The seats whose player is away, in order, with the grace left for each."""
        if self.grace is None:
            return []
        return [
            Countdown(
                seat, self._name(seat), max(since + self.grace - now, 0.0), seat in self.standing_in
            )
            for seat, since in sorted(self.away_since.items())
        ]

    @property
    def shown(self) -> int:
        """How many events of the table's current game have been shown to its viewers
        (none yet of a game begun a moment ago)."""
        return self._shown if self._number == self.table.number else 0

    def state(self) -> object:
        """The game's state as its viewers have been shown it so far."""
        return self.table.state_at(self.shown)

    def caught_up(self) -> None:
        """Count everything the table holds as shown: a table rebuilt from its log, whose
        players saw it all before the host restarted."""
        self._shown = len(self.table.log)

    def _notify(self) -> None:
        for follower, _ in list(self._followers.values()):
            try:
                follower()
            except Exception:  # one viewer's fault must not silence the others
                log.exception("a table's follower failed")

    # --- what people do --------------------------------------------------------------------

    def pick(self, place: Place, action: Action) -> None:
        """A person's choice for a seat of theirs (IllegalAction when it is not theirs to
        make now, or not on offer; nothing changes then)."""
        table = self.table
        decision = table.game.pending
        if self.closed:
            raise IllegalAction("the table has closed")
        if self.replay is not None:
            raise IllegalAction("nobody chooses in a replay")
        if decision is None or decision.seat not in place.seats:
            raise IllegalAction("it is not your turn")
        if place.who and self.owners.get(decision.seat, place.who) != place.who:
            raise IllegalAction("that seat is played from another connection now")
        if not table.setup.seats[decision.seat].human:
            raise IllegalAction(f"seat {decision.seat} is an AI seat")
        if self.shown < len(table.log) or self.turn.kind == SHOWING:
            raise IllegalAction("the table is still showing what happened")
        if self.journal is None:
            table.submit(decision.seat, action)
            return
        if self._chosen is not None:
            raise IllegalAction("your last choice is still being recorded")
        if action not in decision.options:
            raise IllegalAction("that is not one of the choices on offer")
        self._chosen = (self.journal.version, Move(decision.seat, action))
        self._wake()  # the dealer's loop records it, then applies it

    def hurry(self, place: Place) -> None:
        """Show what is in progress at once and let the AI seats act without a beat,
        until a person is asked (a spectator cannot hurry the players' table)."""
        if place.player and not self.hurrying and not self.closed:
            self.hurrying = True
            self._wake()

    def holds(self, place: Place) -> bool:
        """Whether `place` is a player's that still plays a seat here: not once every seat
        of it is played from another connection (a guest's, taken back by its rejoin code:
        see `owners`), whose screen then only watches. A place with no seats or no one
        named (a local table's) holds what it had."""
        if not place.player:
            return False
        if not (place.who and place.seats):
            return True
        return any(self.owners.get(seat, place.who) == place.who for seat in place.seats)

    def next_game(self, place: Place, after: int) -> bool:
        """Start the next game, once for everyone, when the game numbered `after` is over.
        False when it has begun already (another player started it). IllegalAction for a
        spectator, and for a screen whose seat is played from another connection now
        (`holds`); ValueError when the series cannot go on (a campaign's last round)."""
        if not place.player:
            raise IllegalAction("only the table's players start its next game")
        if not self.holds(place):
            raise IllegalAction("that seat is played from another connection now")
        if self.replay is not None:
            raise ValueError("a replay has no next game")
        if self.table.number != after:
            return False
        if self.journal is not None:
            if self.table.game.pending is not None:
                raise ValueError("the current game is not over yet")
            if self._chosen is None:
                self._chosen = (self.journal.version, None)
                self._wake()
            return True
        self.table.next_game()
        self._new_game()
        self._notify()
        return True

    # --- who is here -----------------------------------------------------------------------

    def set_away(self, seat: int, since: float) -> None:
        """The player of `seat` has left the table; after the grace, the stand-in plays."""
        if seat not in self.away_since:
            self.away_since[seat] = since
            if self.journal is not None:  # kept with the table: a host taking it up after
                self.journal.store.seat_away(self.journal.code, seat, since)  # a restart
            self.notice(f"{self._name(seat)} has left the table; their seat waits.")
            self._wake()

    def set_back(self, seat: int) -> None:
        """The player of `seat` is at the table again, and plays their own seat."""
        if self.away_since.pop(seat, None) is None and seat not in self.standing_in:
            return
        if self.journal is not None:
            self.journal.store.seat_away(self.journal.code, seat, None)
        if seat in self.standing_in:
            self.standing_in.discard(seat)
            self.table.ai.temperaments[seat] = None
        self.notice(f"{self._name(seat)} is back at the table.")
        self._wake()

    def went_away(self, away: dict[int, float]) -> None:
        """Seats whose player went away before this dealer was made (seconds ago, by
        seat: as the store kept it, `StoredTable.away`): the stand-in's grace counts
        from then, not from now."""
        if not away:
            return
        now = asyncio.get_running_loop().time()
        for seat, ago in away.items():
            if seat in self.owners and seat not in self.away_since:
                self.away_since[seat] = now - ago
        self._wake()

    def stand_in_for(self, seat: int) -> None:
        """Let the stand-in AI play a seat for a person (one nobody took, or whose player
        has been away past the grace), telling everyone."""
        if seat in self.standing_in:
            return
        self.standing_in.add(seat)
        self.table.ai.temperaments[seat] = temperament(self.stand_in)
        self.notice(f"{self._name(seat)} is away: a {self.stand_in} AI plays their seat.")
        self._wake()

    def set_plays_ai(self, plays: bool) -> None:
        """This host takes up (or gives up) the table's AI seats and stand-in."""
        if plays != self.plays_ai:
            self.plays_ai = plays
            self._wake()

    async def absorb(self, items: list[tuple[int, Entry]]) -> int:
        """Apply the decisions another host recorded (each with its number in the log),
        in order, each once: those this host applied already are skipped, and a gap
        before them is read from the store. How many were applied (StoreAway)."""
        journal = self.journal
        if journal is None or self.closed or self.failure is not None or not items:
            return 0
        applied = 0
        async with journal.lock:
            if items[0][0] > journal.version + 1:  # some went by unread: read them all
                missed = await journal.store.entries(journal.code, journal.version)
                items = [(journal.version + 1 + i, e) for i, e in enumerate(missed)]
            for number, entry in items:
                if number != journal.version + 1:
                    continue
                try:
                    apply_entry(self.table, entry)
                except (IllegalAction, ValueError) as error:  # a damaged log
                    self._fail(error)  # this table stops; the host's others go on
                    break
                journal.version += 1
                applied += 1
        return applied

    def notice(self, text: str) -> None:
        self.notices.append(text)
        self._notify()

    def _name(self, seat: int) -> str:
        return self.table.setup.seats[seat].name

    # --- the loop --------------------------------------------------------------------------

    def _wake(self) -> None:
        self._woken.set()

    async def _wait(self, timeout: float | None = None) -> None:
        """Until something changes (a move, a hurry, a new game), or `timeout` passes."""
        if timeout is not None and timeout <= 0:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._woken.wait(), timeout)

    def _set_turn(self, turn: Turn) -> None:
        if turn != self.turn:
            self.turn = turn
            self._notify()

    def _new_game(self) -> None:
        self._number = self.table.number
        self._shown = 0
        self.hurrying = False
        self.turn = Turn(SHOWING)
        self._wake()

    async def _run(self) -> None:
        try:
            while not self.closed:
                self._woken.clear()
                if self.table.number != self._number:  # begun without us (a campaign, say)
                    self._new_game()
                    self._notify()
                if self._chosen is not None:
                    await self._record_chosen()
                elif self.shown < len(self.table.log):
                    await self._show()
                else:
                    await self._decide()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # one table's fault must not end the loop it runs in
            self._fail(error)

    def _fail(self, error: Exception) -> None:
        """Stop this table, saying why at it and in the host's log: a fault of its own
        (a damaged log, say), not the host's, whose other tables go on. Its loop ends;
        a host no longer reads its log (`Hosts._worth_following`)."""
        log.error("a table's dealer failed", exc_info=error)
        self.failure = error
        self.notice(f"Something went wrong at this table, and it has stopped: {error}")
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()

    async def _pause(self, seconds: float) -> None:
        """Let `seconds` pass, unless hurried, closed or overtaken meanwhile (a move made,
        a new game begun): other changes (someone arriving, a notice) do not cut it."""
        loop = asyncio.get_running_loop()
        ends = loop.time() + seconds
        before = (self.table.number, len(self.table.moves))
        while not (self.hurrying or self.closed or self._moved(before)):
            left = ends - loop.time()
            if left <= 0:
                return
            self._woken.clear()
            await self._wait(left)

    def _moved(self, before: tuple[int, int]) -> bool:
        return (self.table.number, len(self.table.moves)) != before

    async def _show(self) -> None:
        """Show the next events: those that need no time at once, up to one that does,
        which then stays for its time (a hurry cuts it short)."""
        log = self.table.log
        shown = self._shown
        wait = 0.0
        while shown < len(log):
            event = log[shown]
            shown += 1
            if self.hurrying:
                continue
            following = log[shown] if shown < len(log) else None
            wait = self.pace.after(event, following, self._narrate(event) is not None)
            if wait > 0:
                break
        self._shown = shown
        self.turn = Turn(SHOWING)
        self._notify()
        await self._pause(wait)

    async def _decide(self) -> None:
        """Everything has been shown: ask for the next decision, or wait."""
        table = self.table
        decision = table.game.pending
        if decision is None:
            self._set_turn(Turn(OVER if self.replay is None else REPLAYED))
            await self._wait()
            return
        seat = decision.seat
        if self.replay is not None:
            if not self.replay:
                self._set_turn(Turn(REPLAYED))
                await self._wait()
                return
            await self._replay_move(seat)
        elif self._ai_plays(seat) and not self.plays_ai:
            self._set_turn(Turn(THINKING, seat))  # another host plays it: its choice comes
            await self._wait()
        elif self._ai_plays(seat):
            await self._ai_move(seat)
        else:
            left = self._grace_left(seat)
            if left is not None and left <= 0:
                self.stand_in_for(seat)
                return
            self.hurrying = False
            self._set_turn(Turn(ASKING, seat, decision))
            await self._wait(left)

    def _grace_left(self, seat: int) -> float | None:
        if self.grace is None or seat not in self.away_since:
            return None
        now = asyncio.get_running_loop().time()
        return self.away_since[seat] + self.grace - now

    async def _replay_move(self, seat: int) -> None:
        """The next recorded move, after a beat (and the gap that lets screens draw)."""
        before = (self.table.number, len(self.table.moves))
        self._set_turn(Turn(THINKING, seat))
        await self._pause(max(self.think_gap, self.pace.beat))
        if not self._moved(before) and not self.closed and self.replay:
            move = self.replay.pop(0)
            self.table.submit(move.seat, move.action)

    async def _ai_move(self, seat: int) -> None:
        """An AI seat's turn: a beat to let people follow and, meanwhile, the thinking,
        in a worker thread on a copy of the game. A person may choose meanwhile (a player
        back at a seat the stand-in was about to play): the AI's choice is then dropped."""
        table = self.table
        before = (table.number, len(table.moves))
        # the log's entries the AI thinks on (any later one moves the table: `_moved`)
        at = self.journal.version if self.journal is not None else 0
        self._set_turn(Turn(THINKING, seat))
        await self._pause(self.think_gap)  # what came before is drawn first
        if self._moved(before) or self.closed or not self._ai_plays(seat) or not self.plays_ai:
            return  # a person chose, or came back to the seat, meanwhile
        loop = asyncio.get_running_loop()
        thought = loop.run_in_executor(None, table.ai_move, table.game.clone())
        self._ai_dice_moved = True
        await self._pause(self.pace.beat - self.think_gap)
        try:
            action = await thought
        except Exception as error:
            log.exception("an AI seat failed")
            self.notice(f"The AI failed at this table: {error}")
            await self._wait(FAILED_AI_WAIT)
            return
        decision = table.game.pending
        if self._moved(before) or self.closed or decision is None or decision.seat != seat:
            return  # overtaken: a person chose meanwhile
        if not self._ai_plays(seat) or self._chosen is not None:
            return  # its player came back meanwhile: they choose
        if self.journal is None:
            table.submit(seat, action)
        else:
            await self._record(move_entry(Move(seat, action), self._ai_dice()), at)

    def _ai_plays(self, seat: int) -> bool:
        """Whether the AI chooses for `seat` now: an AI seat, or one the stand-in plays."""
        return not self.table.setup.seats[seat].human or seat in self.standing_in

    # --- the table's store -----------------------------------------------------------------

    def _ai_dice(self) -> DiceState | None:
        """The AI's dice for the next entry, if an AI has thought since the last one."""
        if not self._ai_dice_moved:
            return None
        self._ai_dice_moved = False
        return self.table.ai_dice.state()

    async def _record_chosen(self) -> None:
        """Record and apply the decision a person made (or the next game they began),
        unless the table moved on since it was made."""
        assert self._chosen is not None and self.journal is not None
        version, move = self._chosen
        try:
            if version != self.journal.version:
                if move is not None or self.table.game.pending is None:
                    self.notice(TOO_LATE)
                return  # (a next game asked for as another host began it: it has begun)
            dice = self._ai_dice()
            entry = next_game_entry(dice) if move is None else move_entry(move, dice)
            landed, accepted = await self._record(entry, version)
            if not accepted and not (entry.next_game and any(e.next_game for e in landed)):
                self.notice(TOO_LATE)  # (a next game another began as it was asked: no news)
        finally:
            self._chosen = None

    async def _record(self, entry: Entry, at: int) -> tuple[list[Entry], bool]:
        """Record `entry`, decided on the table as it stood after `at` entries of its
        log, then apply what the store took: the same entry, tried again while the store
        is away (nothing is applied meanwhile), never once the table has moved on from
        `at` (`Journal.record`). What was applied, and whether `entry` was taken (not:
        the table had moved on, and what moved it is applied instead, if not already)."""
        assert self.journal is not None
        while True:
            try:
                landed, accepted = await self.journal.record(entry, at)
                break
            except StoreAway:
                stop_if_cancelled()
                if self.closed:  # the table ended here meanwhile (the host stopped, say)
                    raise asyncio.CancelledError from None
                await asyncio.sleep(STORE_RETRY)  # the lobby tells every table it is away
        for item in landed:
            apply_entry(self.table, item, own=item.id == entry.id)
        return landed, accepted


def apply_entry(table: LiveTable, entry: Entry, *, own: bool = False) -> None:
    """Apply one recorded decision to `table` (ValueError or IllegalAction when the log
    is damaged); the AI's dice as recorded, unless this dealer's own AI made them so."""
    if entry.next_game:
        table.next_game()
    else:
        move = entry_move(table.setup.game, entry)
        table.submit(move.seat, move.action)
    if entry.ai_dice is not None and not own:
        table.ai_dice = Dice.from_state(entry.ai_dice)
