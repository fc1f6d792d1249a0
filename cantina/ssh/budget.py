"""Each session's share of the host's time: its input waits while it has used up its share.

Every session's app runs in the host's one event loop, so a key that costs the host 30
ms delays every other player by up to 30 ms. Counting input bytes does not bound that (a
Tab is one byte), so the host counts the time it spends on each session's input, and a
session that has spent more than its share waits until the share comes back: its excess
slows only itself.

What is counted (`WorkMeter`, `WorkBudget`): the processor time of every event-loop
callback run for a session's app, from the moment the app is given input (a key, a new
size) until it has rested (had nothing scheduled) for `REST` seconds; while the loop is
crowded, the app's work on one key is spread thin, but it has not rested. A session's
app and every task it creates run in a context where `OWNER` names the session's budget
(set as the session starts, inherited by each task made after it); the meter wraps the
loop's `call_soon`, which schedules every step of every task and every future's
callbacks, and charges each callback's time to the budget its context names. That is the
app's message handling, layout, rendering and writing of frames, whatever caused them;
another session's callback is charged to that one, so one session's flood never shows up
in another's account, and the time is the host thread's own (`thread_time`), so a busy
machine does not make a key look dearer. What the app does after resting (a table's
moves, a clock, the lobby's list redrawn for others' tables) is not its input's doing
and costs it nothing. Parsing the keys runs in the SSH connection's callback, and is
timed and charged there (`InputPacer.feed`). The SSH layer's work on a connection's
bytes (decrypting and dispatching each packet: a flood of window changes costs the host
there, not in the app) is timed and charged to the session it carries, and while that
session must wait its connection's bytes wait too (`ReadPacer`). A frame the app has still to
draw after its input counts as that input's work (`WorkBudget.drawing`): on a crowded
loop the screen's update timer fires late. Not counted: AI players, who think in worker
threads, nor any task of a table's, the lobby's or the store's (a table's dealer, the
store's writers), which start in no session's context wherever they were set going
(`cantina.tasks.detached`): a session in debt holds up its own work, not a table others
play at, nor an answer from Redis.

The share (`Bucket`): a token bucket of seconds of work, refilled at `rate` seconds per
second up to `burst`. Each session has one, and so has each client address, which all
its sessions draw on too: eight sessions from one address get one address's share, not
eight. Honest typing never meets it (a letter costs a few milliseconds, a Tab about 15).

Who goes first: a light session's work on a key of its own runs ahead of whatever else
the loop has ready, in its order, so a key does not wait out a turn of every other
session's animation at each hop (`KEYS_FIRST`). And (`WorkBudget.wait`) a session that
has worked much more than another lately (`recent`, a decaying sum) makes way while that one
is at work on a key, in debt or not; past `DEEP_DEBT` owed a session waits out its debt
whoever is at work. A long step (`LONG_STEP`, on the clock: a screen composed, a
start-up) is cut short by nothing, so a key that arrives during one waits for all of it:
after one, a session that has spent more than half its burst (`STRAINED`), or that shows
screen after screen (`SCREENS_MANY`), or any of an address with several, pauses
`STEP_PAUSE` times its length while a lighter player types (`Bucket.ran`; a busy
address's start-up pauses for anyone typing, see `WorkBudget.starting_many`), so their
long steps come one at a time, far apart. And a busy session is given its input one key
at a time (`InputPacer.input`): Textual handles every key it is given in one go, without
a break for anyone else.

What waits, while either bucket is in debt (or the session makes way): the rest of the
app's work (each of its callbacks is put off, in order, until the debt is paid:
`WorkBudget.park`), so even one costly key is cut short for the others; and its input
(`InputPacer`), which joins a queue (at most `QUEUE_MAX` bytes; more is dropped) fed to
the app one key at a time, each once the budget is out of debt and the app has rested
after the last (or after `QUIET_MAX` at most), so the cost of each key is counted before
the next goes in. A Tab or shift+Tab already waiting swallows another (focus moves
coalesce), and a mouse movement waiting is replaced by the next. Window changes coalesce
too: the last size wins, given to the app once the client's size has stayed put for
`RESIZE_QUIET` (or every `RESIZE_MAX` during a storm), and, like keys, only when the
budget allows; the redraw is charged as any work.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
import weakref
from collections import deque
from collections.abc import Callable
from contextvars import Context, ContextVar, copy_context
from typing import Any

from cantina.ssh.asyncio_compat import put_ahead, ready_queue

OWNER: ContextVar[WorkBudget | None] = ContextVar("cantina_work_owner", default=None)
"""The budget charged for the work of the task running now (None: nobody's)."""

QUEUE_MAX = 4096
"""Bytes of input held for a session over its budget; more is dropped."""
REST = 0.05
"""Seconds with nothing scheduled after which a session's app has finished with the
input it was given: work after that is its own (a clock, a table's moves), not charged.
(A frame the app waits for comes sooner: Textual draws up to 60 a second.)"""
REST_MAX = 1.0
"""Seconds without running anything after which the app has finished, whatever it has
scheduled (a callback cancelled before it ran is never counted as done)."""
QUIET = 0.01
"""Seconds between looks at whether a session's next held key may be fed."""
QUIET_MAX = 0.5
"""Seconds after which a held key is fed even if the app never rested (an animation)."""
ESCAPE_GAP = 0.12
"""Seconds after a held Esc before the next held key (Textual's ESCDELAY is 0.1): fed
sooner, the two would be read as one alt+key."""
RESIZE_QUIET = 0.05
"""Seconds a client's size must stay put before its app is resized."""
RESIZE_MAX = 0.25
"""Seconds at most between resizes while the size keeps changing (a storm)."""
RESIZE_POLL = 0.1
"""Seconds between looks at whether a session's new size, held with no key, may be given
(a key's are `QUIET` and `POLL`): a resize storm's eight sessions, each looking every 10
to 20 ms, made a tenth of the host's busy time in a profile of bench --abuse d, in
looks at the budget that nobody's share was charged for."""
DRAW_MAX = 1.0
"""Seconds after input is given during which a frame the app has still to draw (see
`WorkBudget.drawing`) keeps it from having rested: on a crowded loop the screen's update
timer fires late, and its layout and drawing are the dearest part of a key or a resize.
(Past it, an app that never stops drawing, an animation, is at its own work.)"""
UNPARK_SLICE = 0.01
"""Seconds of work at most in one pass over a session's put-off callbacks: between passes
the loop reads the others' keys (a session's whole start-up, put off, is a second of work
in one go otherwise)."""
START_ALLOWANCE = 0.6
"""Seconds of work a new session, and an address new to the host, have beyond their
burst, once: making a session's app costs 0.3 to 0.5 s, and a player who has just
arrived should not start in debt, their first keys held while others play. An address
that leaves and comes back while in debt keeps its account, so gets no new allowance."""
DEEP_DEBT = 1.0
"""Seconds of work owed past which a session waits out its debt whoever else is at work:
a flood's debt grows past it within seconds, a player going from screen to screen seldom
comes near it."""
RECENT_HALF_LIFE = 2.0
"""Seconds over which a session's recent work (`WorkBudget.recent`) halves: how far back
the host looks to tell a flood from a player."""
LIGHTER = 0.5
"""A session makes way for one at work whose recent work is at most this part of its own."""
BUSY_FLOOR = 0.05
"""Seconds of recent work under which a session within its share never makes way: a
player typing (a few milliseconds a key) does not wait for another typing."""
POLL = 0.02
"""Seconds between looks, while a session over its share waits for the others to be
done with their keys (see `WorkBudget.wait`)."""

KEYS_FIRST = True
"""Whether a light session's work on a key goes ahead of what the loop has ready
(`WorkBudget.first`, `WorkMeter`). A key's work hops from callback to callback (the
connection, the app, the screen, the table, the frame), and each hop waits a turn of the
loop: on a crowded loop a turn is every other session's ready work, dice tumbling and
tables playing, so one key waited out several. Put ahead, the key's hops follow each other
within a turn, and what it passed goes on a moment later. Measured (bench_ssh.py
--playing; BENCH_KEYS_FIRST=0 turns it off): at 64 players on one process the keystroke
-> frame p95 went from 39 to 20 ms, and one process held 96 where it held 80. (It was off
for a while: an AI's move, coming back from its thread, was now and then lost as a key's
work was moved ahead, and its table stood still; see `put_ahead`.)"""

PAUSED_POLL = 0.1
"""Seconds between looks, while a start-up of many (`WorkBudget.starting_many`) waits out
a pause after a long step (see `Bucket.ran`): the pause ends on its own clock, or sooner
only once nobody types. A table hog's eight start-ups, each looking every `POLL`, were
4400 turns of the loop in a 12 s phase of bench --abuse f (365 a second: with the work
the pauses let run, 0.69 s of the loop's 2.1 s busy; 1045 turns, 0.41 s, at 0.1 s)."""

LONG_STEP = 0.005
"""Seconds of processor time from which a session's callback, or a run of its address's
callbacks back to back, is a long step (a screen composed, a session's start-up, a full
frame): a key of anyone's that arrives meanwhile waits for the whole of it (see
`Bucket.ran`)."""
STEP_PAUSE = 39.0
"""After a long step, a heavy session and every session of its address pause this many
times its length before their next callback, while a lighter player types: their long
steps take at most a fortieth of the loop's time then, one at a time. (At 19, a twentieth,
a key in twenty met one: the table hog's p95 was 2.7-3.3x the baseline in 2 runs of 3.)"""
PAUSE_LIGHTER = 0.8
"""A session pauses after a long step for a typing one whose recent work is at most this
part of its own (a little lighter; the sessions of one address never
pause for each other; a heavy one paced long enough to come near a typist's lightness
keeps pausing, rather than stacking its steps again)."""
STRAINED = 0.5
"""A session's bucket pauses it after a long step only while under this part of its
burst: a player who opens a screen now and then (its compose a long step, 0.1-0.3 s on a
busy host) is within it and is not paused for a second or two after each (an Esc after
the first setup screen had waited 1.2-1.4 s), where a flood of screens soon is not. An
address's bucket shared by several sessions (a table hog's eight start-ups at once)
pauses them after each long step whatever is left of it (`Bucket.ran`)."""
SCREENS_MANY = 8.0
"""Inputs with a long step in them (each a screen shown: `v`, Esc), counted as `recent`
work is (halved every `RECENT_HALF_LIFE`), from which a session pauses after its long
steps even within its burst (see `STRAINED`): about three a second kept up (a player
going from screen to screen does one now and then, a few in a row at most). One session
alternating `v` and Esc (bench_ssh --abuse c) showed a screen thirteen times a second,
never strained in a 12 s phase (its start's allowance and its burst), and every other
player's key that came during one of its frames waited for it."""
RUN_GAP = 0.002
"""Seconds between two callbacks of an account's sessions within which they count as one
run (one turn of the loop: see `Bucket.ran`)."""
CHURN = 5.0
"""Seconds within which the sessions an address opens count together (`MANY`)."""
MANY = 3
"""Sessions of one address, at once or opened within `CHURN`, from which its start-ups
are many (`WorkBudget.starting_many`): a table hog's eight, or a client quitting and
coming back over and over, but not a player's second session, nor a player back a
moment after their link dropped, nor two friends behind one router (each of those
logins, held as many, took 1.2-1.6 s while eight others typed, against 60-110 ms)."""
TYPING = 2.0
"""Seconds since a session was last given input within which it counts as typing (a
player a key a second, or slower, between keys), for `STEP_PAUSE`. Its start-up is not
typing: the players behind one address paused for every newcomer's login; nor is a new
size (see `WorkBudget.began`)."""

Clock = Callable[[], float]


class Bucket:
    """A token bucket of seconds of work: `rate` seconds a second, up to `burst`. Work is
    charged after it is done, so the bucket may go into debt; it is `ready` again once
    refilled to zero."""

    def __init__(
        self, rate: float, burst: float, clock: Clock = time.perf_counter, extra: float = 0.0
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = burst + extra
        """Above `burst` only at first, by `extra`: what is spent of it is not refilled."""
        self.stamp = clock()
        self.debt_until = self.stamp
        """When this bucket is out of debt (in the past when it is not in debt)."""
        self.pause_until = self.stamp
        """Until when its sessions pause after a long step (see `ran`)."""
        self.run = 0.0
        """Seconds of its sessions' work run back to back lately (see `ran`)."""
        self.run_end = self.stamp
        self.users = 1
        """Sessions drawing on it now (an address's: all of its sessions)."""
        self.starting = 0
        """Sessions of it whose app is still starting (see `WorkBudget.opened`)."""
        self.opened_at = -1e9
        """When a session of it last opened (the clock's time; see `Budgets.open`)."""
        self.opens: deque[float] = deque()
        """When its sessions opened, within the last `CHURN` (see `Budgets.open`)."""
        self._recent = 0.0
        self._recent_at = self.stamp
        self._screens = 0.0
        self._screens_at = self.stamp
        self._screen_input = -1e9
        """When the last input counted in `screens` was given (see `ran`)."""

    def level(self) -> float:
        now = self.clock()
        refilled = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.tokens = max(self.tokens, refilled)
        self.stamp = now
        return self.tokens

    def charge(self, seconds: float) -> None:
        self.level()
        self.tokens -= seconds
        if self.tokens < 0:
            self.debt_until = self.stamp - self.tokens / self.rate
        self._recent = self.recent() + seconds

    def ran(self, seconds: float, now: float, given_at: float | None = None) -> None:
        """Its sessions' callbacks ran `seconds` up to `now`: with those run just before
        (within `RUN_GAP`, the same turn of the loop), once they come to `LONG_STEP`,
        one long step, after which they pause `STEP_PAUSE` times as long (see
        `WorkBudget.wait`). A key that arrives meanwhile waits for all of it, whether one
        callback or many: eight sessions' passes over their put-off work, each short,
        were 80 ms in one turn. `given_at`: when the input whose work this is was given
        (None: no input's), each input with a long step counted once (`screens`)."""
        if now - seconds - self.run_end > RUN_GAP:
            self.run = 0.0
        self.run += seconds
        self.run_end = now
        if self.run >= LONG_STEP:
            if given_at is not None and given_at != self._screen_input:
                self._screen_input = given_at
                self._screens = self.screens() + 1.0
            if (
                self.users > 1
                or self.level() < self.burst * STRAINED
                or self.screens() >= SCREENS_MANY
            ):
                self.pause_until = max(self.pause_until, now + self.run * STEP_PAUSE)
            self.run = 0.0

    def screens(self) -> float:
        """Inputs with a long step in them lately, each halved every `RECENT_HALF_LIFE`
        (see `SCREENS_MANY`)."""
        now = self.clock()
        if now > self._screens_at:
            self._screens *= 0.5 ** ((now - self._screens_at) / RECENT_HALF_LIFE)
            self._screens_at = now
        return self._screens

    def recent(self) -> float:
        """Seconds of work charged lately, each halved every `RECENT_HALF_LIFE`: about
        1.4 s of a flood's, a few hundredths of a typist's."""
        now = self.clock()
        if now > self._recent_at:
            self._recent *= 0.5 ** ((now - self._recent_at) / RECENT_HALF_LIFE)
            self._recent_at = now
        return self._recent

    def wait(self) -> float:
        """Seconds until this bucket is out of debt (0 when it is)."""
        return max(0.0, self.debt_until - self.clock())


class WorkBudget:
    """One session's account: its own bucket and its address's, and whether the work
    its app does now follows from its input (see `began`)."""

    def __init__(self, buckets: list[Bucket], clock: Clock = time.perf_counter) -> None:
        self.buckets = buckets
        self.clock = clock
        self.last_work = -1e9
        """When the app's last piece of work ended (the clock's time)."""
        self.pending = 0
        """The app's callbacks scheduled and not yet run (or put off)."""
        self.idle_since = -1e9
        """When the app last had nothing scheduled (the clock's time)."""
        self._busy = False
        self.began_at = -1e9
        """When input was last given to the app (the clock's time)."""
        self.keyed = False
        """Whether that input was a key (not a new size: see `began`)."""
        self.drawing: Callable[[], bool] | None = None
        """Whether the app still has a frame to draw (set once the app is made)."""
        self.spent = 0.0
        """Seconds of work charged in all (for tests and benchmarks)."""
        self.metered = 0.0
        """Seconds of work run for this session's app in all, charged or not (the same)."""
        self.parked: deque[tuple[Context, Callable[..., Any], tuple[Any, ...]]] | None = None
        """The app's callbacks put off while in debt, in order."""
        self._unpark: asyncio.TimerHandle | None = None
        self.closed = False
        self.in_turn: weakref.ref[asyncio.Handle] | None = None
        """The last of the app's callbacks scheduled in the loop's own order (not put ahead:
        see `first`), while it has not run."""
        self.pausing = False
        """Whether the last `wait` was a start-up of many's pause after a long step (see
        `_next_look`)."""

    working: weakref.WeakSet[WorkBudget] = weakref.WeakSet()
    """The sessions at work on input given to them (`busy`): those a heavier one may make
    way for (see `wait`), so that looking is not a walk over every session on the host."""
    typing: weakref.WeakKeyDictionary[WorkBudget, float] = weakref.WeakKeyDictionary()
    """The sessions given input lately, with when, oldest first (see `wait`): an entry
    goes once `TYPING` old, at anyone's next input, or as its session closes."""
    working_by: weakref.WeakKeyDictionary[Bucket, weakref.WeakSet[WorkBudget]] = (
        weakref.WeakKeyDictionary()
    )
    """`working`, by account (`account`): a session never makes way for those of its own
    account (they are as heavy as it), so it looks at the others' accounts, not at every
    session (sixty-four players behind one address each walked all the others' on every
    callback of theirs: their keystroke p95 at a table went from 150 ms to 300-550 ms)."""
    typing_by: weakref.WeakKeyDictionary[Bucket, weakref.WeakKeyDictionary[WorkBudget, float]] = (
        weakref.WeakKeyDictionary()
    )
    """`typing`, by account, each oldest first."""

    @property
    def account(self) -> Bucket:
        """The account its work counts on with its mates' (its address's), or its own
        when it has no address: every session of an account has done as much work lately
        (`recent`), since each charge is charged to the account too."""
        return self.buckets[-1]

    @property
    def busy(self) -> bool:
        """Whether the app is still at work on input given to it."""
        return self._busy

    @busy.setter
    def busy(self, busy: bool) -> None:
        self._busy = busy
        if busy:
            WorkBudget.working.add(self)
            group = WorkBudget.working_by.get(self.account)
            if group is None:
                group = WorkBudget.working_by[self.account] = weakref.WeakSet()
            group.add(self)
        else:
            self._not_working()
            self._started()

    def _not_working(self) -> None:
        WorkBudget.working.discard(self)
        group = WorkBudget.working_by.get(self.account)
        if group is not None:
            group.discard(self)
            if not group:
                del WorkBudget.working_by[self.account]

    starting = False
    """Whether the session's app is still starting: from `opened` until it first rests."""
    again = False
    """Whether its address had opened `MANY` sessions within `CHURN`, this one among them."""

    def opened(self) -> None:
        """A new session: its app is being made (given input, as a key is). Until it
        first rests it, and its address, are heavy (`starting_many`)."""
        self.starting = True
        for bucket in self.buckets:
            bucket.starting += 1
        self.began()

    def _started(self) -> None:
        if self.starting:
            self.starting = False
            for bucket in self.buckets:
                bucket.starting -= 1

    def began(self, key: bool = True) -> None:
        """Input (a key, a new size) is being given to the app: its work from now until
        it rests is charged. A `key` is a player typing (whom others' long steps pause
        for); a new size is not: a resize storm's sessions, resized in turn, counted as
        typing all the time, and a crowd of players from one address, about as heavy
        as the storm held to its share, paused their own keys for it after each of their
        frames whenever the storm's account was the lighter (`PAUSE_LIGHTER`)."""
        self.busy = True
        self.began_at = self.last_work = self.idle_since = now = self.clock()
        self.keyed = key
        if self.starting or not key:
            return  # a start-up is not a player typing (see `_paused`)
        typing = WorkBudget.typing
        typing.pop(self, None)  # to the end: the newest
        typing[self] = now
        mates = WorkBudget.typing_by.get(self.account)
        if mates is None:
            mates = WorkBudget.typing_by[self.account] = weakref.WeakKeyDictionary()
        mates.pop(self, None)
        mates[self] = now
        done = []
        for other, began_at in typing.items():
            if now - began_at < TYPING:
                break
            done.append(other)
        for other in done:
            other._not_typing()

    def _not_typing(self) -> None:
        WorkBudget.typing.pop(self, None)
        mates = WorkBudget.typing_by.get(self.account)
        if mates is not None:
            mates.pop(self, None)
            if not mates:
                del WorkBudget.typing_by[self.account]

    def rested(self) -> bool:
        """Whether the app has had nothing to do for `REST` and has no frame left to
        draw (within `DRAW_MAX` of its input), or has run nothing for `REST_MAX` with
        none of its work put off. (Work held back is still its input's: a new session's
        start-up held for a second while others played went on uncharged, half of it.)"""
        now = self.clock()
        if now - self.last_work >= REST_MAX and self.parked is None:
            return True
        if self.pending > 0 or now - self.idle_since < REST:
            return False
        drawing = self.drawing
        return drawing is None or now - self.began_at >= DRAW_MAX or not drawing()

    def quiet(self) -> bool:
        """Whether the app has finished with the input it was given."""
        return self.parked is None and (not self.busy or self.rested())

    def scheduled(self) -> None:
        """One more callback of the app's is due; if it had rested, its input's work is
        over, and what it does now is its own."""
        if self.busy and self.rested():
            self.busy = False
        self.pending += 1

    def park(self, context: Context, callback: Callable[..., Any], args: tuple[Any, ...]) -> None:
        """Put off one of the app's callbacks until out of debt: the rest of the work of
        a session over its share waits, not everyone."""
        if self.parked is None:
            self.parked = deque()
            self._next_pass(self._next_look())
        self.parked.append((context, callback, args))

    def _next_look(self) -> float:
        """Seconds until the work put off is looked at again: when it may go on, if that
        is soon; else in `POLL`, or `PAUSED_POLL` while a start-up of many pauses after a
        long step (held by design, it may go on a little late; anyone else's pause may
        end early, once nobody lighter types, and is looked at every `POLL`)."""
        wait = self.wait()
        return min(wait, PAUSED_POLL if self.pausing else POLL)

    def _next_pass(self, delay: float) -> None:
        # A timer, not `call_soon`: the meter must not put off its own release.
        if self._unpark is None:
            self._unpark = asyncio.get_running_loop().call_later(delay, self.unpark)

    def unpark(self) -> None:
        """Run the callbacks put off, in their order, while out of debt (or closed). They
        run here, not scheduled anew, so that nothing the app scheduled meanwhile (put
        off behind them as it comes up) runs before them; one pass runs at most those
        put off before it began, and the next comes at the loop's next turn."""
        self._unpark = None
        parked = self.parked
        if parked is None:
            return
        began = time.thread_time()
        for _ in range(len(parked)):
            if self.wait() > 0 or time.thread_time() - began >= UNPARK_SLICE:
                break
            context, callback, args = parked.popleft()
            started, wall = time.thread_time(), time.perf_counter()
            try:
                context.run(callback, *args)
            except (SystemExit, KeyboardInterrupt):
                raise
            except BaseException as error:  # as asyncio's own Handle does
                asyncio.get_running_loop().call_exception_handler(
                    {"message": f"Exception in callback {callback!r}", "exception": error}
                )
            finally:
                self.work(time.thread_time() - started, time.perf_counter() - wall)
        if parked:
            self._next_pass(self._next_look())
        else:
            self.parked = None

    def close(self) -> None:
        """The session is ending: nothing of its app waits any more (it must shut down)."""
        self.closed = True
        self._started()
        self._not_typing()
        self._not_working()
        if self.parked is not None:
            self._next_pass(0.0)

    def work(self, seconds: float, took: float | None = None) -> None:
        """One callback of the app ran for `seconds` of processor time (`took` seconds of
        the clock's: as long or longer, when the machine is busy): charged if the app is
        at work on input. How long the others' keys waited for it is the clock's time,
        which is what makes a long step (`Bucket.ran`)."""
        self.pending -= 1
        self.metered += seconds
        self.last_work = now = self.clock()
        given_at = self.began_at if self.busy and self.keyed else None  # a key's work
        for bucket in self.buckets:
            bucket.ran(seconds if took is None else max(seconds, took), now, given_at)
        if self.pending <= 0:
            self.idle_since = now
        if self.busy:
            self.charge(seconds)

    def ran(self, seconds: float) -> None:
        """Work for this session outside its app's callbacks (the SSH layer's on its
        connection's bytes) ran just now: part of its address's run (`Bucket.ran`). A
        resize storm's bytes, held while its session paused, were 64 KB read in one go
        once it could go on, up to half a second of one step."""
        now = self.clock()
        for bucket in self.buckets:
            bucket.ran(seconds, now)

    def charge(self, seconds: float) -> None:
        self.spent += seconds
        for bucket in self.buckets:
            bucket.charge(seconds)

    def recent(self) -> float:
        """Seconds of work this session, or its address, has done lately (the more):
        an address's sessions are one account, so a flood of new sessions (each making
        its app, half a second of work) is as heavy as one session's flood."""
        return max(bucket.recent() for bucket in self.buckets)

    def owed(self) -> float:
        """Seconds until this session's (and its address's) share is out of debt."""
        return max(0.0, max(b.debt_until for b in self.buckets) - self.clock())

    def at_work(self) -> bool:
        """Whether this session is at work on a key (or a new size) of its own, its work
        not put off: what a heavier session makes way for."""
        return self.busy and not self.closed and self.parked is None and not self.rested()

    def wait(self) -> float:
        """Seconds until this session may be given more input and its work may go on
        (0: now; while it makes way for another, `POLL`, to look again).

        Past `DEEP_DEBT` owed it waits out its debt: a flood is held to its share. Short
        of that, it makes way while a session much lighter than it lately (`LIGHTER`)
        is at work on a key, whether or not either is within its share: one session's
        flood, from its first second, or a crowd from one address, goes after the
        others' keys, not before them (eight honest players from one address keep their
        address a little in debt, and were held behind a flood still within its burst).
        With nobody lighter at work it slows nobody, and goes on: a player opening
        screens on a quiet host is not kept waiting for a debt that harms no one. A
        light session within its share never waits. After a long step (`Bucket.ran`) it
        pauses while a lighter session (`PAUSE_LIGHTER`) is typing (given input within
        `TYPING`), even once closed (its app's shutting down is long steps too)."""
        self.pausing = False
        now = self.clock()
        pause = max(bucket.pause_until for bucket in self.buckets) - now
        closed = self.closed
        owed = 0.0 if closed else self.owed()
        mine = self.recent()
        if owed > 0 and self.debt() > DEEP_DEBT:
            return owed
        if owed == 0 and mine < BUSY_FLOOR and not closed:
            # light, unless starting (its long steps to come are many)
            return self._paused(now, pause) if self.starting_many() else 0.0
        if not closed:
            lighter = mine * LIGHTER
            account = self.account
            for theirs, group in list(WorkBudget.working_by.items()):
                if theirs is account or theirs.recent() > lighter:
                    continue  # none of them is lighter (see `account`)
                for other in list(group):
                    if other.closed:
                        other._not_working()  # never at work again
                    elif other.rested():
                        other.busy = False  # as its next callback would find (`scheduled`)
                    elif (
                        other.parked is None
                        and other.recent() <= lighter
                        and not other.starting_many()  # nobody makes way for a hog's start-ups
                    ):
                        return max(owed, pause, POLL)
        return self._paused(now, pause)

    def _paused(self, now: float, pause: float) -> float:
        """`pause` if a lighter session (`PAUSE_LIGHTER`), not of this one's address, is
        typing, or any is while this one's address is starting sessions (`starting_many`);
        else 0. Nobody pauses for such a start-up."""
        if pause <= 0:
            return 0.0
        starting = self.starting_many()
        lighter = self.recent() * PAUSE_LIGHTER
        account = self.account
        for theirs, group in list(WorkBudget.typing_by.items()):
            if theirs is account or not (starting or theirs.recent() <= lighter):
                continue  # its own address's, or none of them lighter (see `account`)
            for other, began_at in reversed(list(group.items())):
                if now - began_at >= TYPING:
                    break  # the rest began earlier still
                if other.closed or other.starting_many():
                    continue
                if starting or other.recent() <= lighter:
                    self.pausing = starting
                    return pause
        return 0.0

    def starting_many(self) -> bool:
        """Whether a session of this one's address, which has several, is starting (from
        `opened` until its app first rests): its long steps come one after another (a
        start-up is 0.3 to 0.5 s of work), so after one it pauses while anyone types.
        Eight players typing from one address cost their address as much work as a table
        hog's eight start-ups, throttled: by `recent` the hog was no heavier, and never
        paused (bench --abuse f). So too a session opened as the `MANY`th within `CHURN`
        (a client that quits and comes back, over and over: bench --abuse e). A first
        login is not held, nor a second session, nor a player back after a dropped link."""
        if self.starting and self.again:
            return True
        return any(bucket.starting and bucket.users >= MANY for bucket in self.buckets[1:])

    def first(self) -> bool:
        """Whether the app's next callback goes ahead of the loop's other work
        (`KEYS_FIRST`): it is at work on a key of its own, light (`BUSY_FLOOR`), within
        its share, not starting, none of its work put off, and none waiting its turn
        (`waiting_in_turn`): a session's callbacks never overtake each other."""
        return (
            self.busy
            and self.keyed
            and not self.closed
            and not self.starting
            and self.parked is None
            and not self.waiting_in_turn()
            and self.recent() < BUSY_FLOOR
            and self.owed() == 0
        )

    def waiting_in_turn(self) -> bool:
        """Whether a callback of the app's scheduled in the loop's own order has still to
        run: what it schedules now waits behind it too, so the app's own callbacks run in
        the order they were made (the loop runs a handle, then lets it go)."""
        handle = self.in_turn() if self.in_turn is not None else None
        return handle is not None and not handle.cancelled()

    def debt(self) -> float:
        """Seconds of work owed, on the session's account or its address's."""
        return max(0.0, -min(b.level() for b in self.buckets))


class Budgets:
    """The host's accounts: one per session, one per client address while it has any."""

    def __init__(
        self, rate: float, burst: float, address_rate: float, address_burst: float
    ) -> None:
        self.rate, self.burst = rate, burst
        self.address_rate, self.address_burst = address_rate, address_burst
        self.addresses: dict[str, Bucket] = {}
        """Each client address's account, while it has sessions (its `users`) or debt."""

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def open(self, address: str) -> WorkBudget:
        self._forget_paid()
        bucket = self.addresses.get(address)
        if bucket is None:
            bucket = Bucket(self.address_rate, self.address_burst, extra=START_ALLOWANCE)
            bucket.users = 0
            self.addresses[address] = bucket
        bucket.users += 1
        budget = WorkBudget([Bucket(self.rate, self.burst, extra=START_ALLOWANCE), bucket])
        now = bucket.clock()
        while bucket.opens and now - bucket.opens[0] >= CHURN:
            bucket.opens.popleft()
        bucket.opens.append(now)
        budget.again = len(bucket.opens) >= MANY
        bucket.opened_at = now
        budget.opened()
        return budget

    def close(self, address: str, budget: WorkBudget) -> None:
        """A session ended: its address's account goes when its last session has, once
        it is out of debt (an address that leaves and comes back is not let off its
        debt; one that has paid comes back to a full account)."""
        if address in self.addresses:
            bucket = self.addresses[address]
            bucket.users = max(0, bucket.users - 1)
        # Forgotten at the next session's start, not now: taking the app down is still
        # to come, and is charged to this account.

    def _forget_paid(self) -> None:
        for address, bucket in list(self.addresses.items()):
            if (
                bucket.users == 0
                and bucket.wait() == 0
                and bucket.clock() - bucket.opened_at >= CHURN
            ):
                del self.addresses[address]


# --- the meter ------------------------------------------------------------------------------


class WorkMeter:
    """Charges each callback of the event loop to the budget its context names (see the
    module's docstring). Installed on a loop while any host runs in it."""

    _installed: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, int] = (
        weakref.WeakKeyDictionary()
    )

    @classmethod
    def install(cls, loop: asyncio.AbstractEventLoop) -> None:
        users = cls._installed.get(loop, 0)
        cls._installed[loop] = users + 1
        if users:
            return
        plain = loop.call_soon
        ready = ready_queue(loop)
        ahead: weakref.WeakSet[asyncio.Handle] = weakref.WeakSet()
        """The handles put ahead (`KEYS_FIRST`) and not yet run (a run one is let go)."""

        def run(context: Context, callback: Callable[..., Any], *args: Any) -> Any:
            budget = OWNER.get()
            if budget is None:
                return callback(*args)
            if budget.parked is not None or budget.wait() > 0:
                budget.park(context, callback, args)
                return None
            started, wall = time.thread_time(), time.perf_counter()
            try:
                return callback(*args)
            finally:
                budget.work(time.thread_time() - started, time.perf_counter() - wall)

        def call_soon(callback: Callable[..., Any], *args: Any, context: Any = None) -> Any:
            if context is None:
                context = copy_context()  # as asyncio would: the caller's, as it is now
            budget = context.get(OWNER)
            if budget is not None:
                budget.scheduled()
            # Asked first, so the handle moves as soon as it is made (`put_ahead` finds it
            # wherever other threads' appends have left it).
            first = KEYS_FIRST and budget is not None and budget.first()
            handle = plain(run, context, callback, *args, context=context)
            if first and ready is not None:  # behind only the work put ahead before it
                put_ahead(ready, handle, ahead)
            elif budget is not None and KEYS_FIRST:
                budget.in_turn = weakref.ref(handle)
            return handle

        loop.call_soon = call_soon  # type: ignore[method-assign,assignment]

    @classmethod
    def uninstall(cls, loop: asyncio.AbstractEventLoop) -> None:
        users = cls._installed.get(loop, 0)
        if users <= 1:
            cls._installed.pop(loop, None)
            if "call_soon" in vars(loop):
                del loop.call_soon  # the class's own again
        else:
            cls._installed[loop] = users - 1


# --- holding input --------------------------------------------------------------------------

_KEY = re.compile(
    rb"\x1b\[200~.*?\x1b\[201~"  # a bracketed paste, whole
    rb"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: cursor keys, function keys, mouse, replies
    rb"|\x1bO."  # SS3: some terminals' cursor and function keys
    rb"|\x1b[^\x1b]"  # alt + key
    rb"|[\xc0-\xf7][\x80-\xbf]*"  # one UTF-8 character
    rb"|.",
    re.DOTALL,
)
_MOTION = re.compile(rb"\x1b\[<(\d+);\d+;\d+[Mm]")
FOCUS_MOVES = (b"\t", b"\x1b[Z")


def keys_of(data: bytes) -> list[bytes]:
    """`data` cut into keys (an unfinished sequence at the end stays one piece)."""
    return _KEY.findall(data)


def _is_motion(key: bytes) -> bool:
    found = _MOTION.fullmatch(key)
    return found is not None and bool(int(found.group(1)) & 32)


class InputPacer:
    """One session's input and window changes, on their way to its app, held while the
    session is over its budget (see the module's docstring)."""

    def __init__(
        self,
        budget: WorkBudget | None,
        feed: Callable[[bytes], None],
        resize: Callable[[int, int], None],
    ) -> None:
        self.budget = budget
        """None: nothing is held (the host's budget is off)."""
        self._feed = feed
        self._resize = resize
        self.held: deque[bytes] = deque()
        self.held_bytes = 0
        self.dropped = 0
        """Bytes dropped because the queue was full (or coalesced away)."""
        self._drain: asyncio.TimerHandle | None = None
        self._waiting_since = 0.0
        self.size: tuple[int, int] | None = None
        self.shown_size: tuple[int, int] | None = None
        self._resize_timer: asyncio.TimerHandle | None = None
        self._storm_since = 0.0
        self.resizes = 0
        """Resizes given to the app (for tests and benchmarks)."""

    # --- keys -------------------------------------------------------------------------------

    def input(self, data: bytes) -> None:
        """Give the app `data` now if the budget allows and nothing waits before it; else
        hold it. A busy session (`BUSY_FLOOR` of recent work) is given one key at a time:
        Textual's app handles every key it is given at once in one go, without a break
        for the others (six Tabs in one packet, 150 ms of work), so the rest are held, to
        be fed each once the app has rested, the budget looked at between them. A player
        typing is light, and is given what they typed as it comes."""
        budget = self.budget
        if budget is None or (not self.held and budget.parked is None and budget.wait() == 0):
            if budget is None or budget.recent() < BUSY_FLOOR:
                self.feed(data)
                return
            keys = keys_of(data)
            if len(keys) <= 1:
                self.feed(data)
                return
            self.feed(keys[0])
            data = b"".join(keys[1:])
        for key in keys_of(data):
            self._hold(key)
        self._schedule(0.0)

    def _hold(self, key: bytes) -> None:
        last = self.held[-1] if self.held else None
        if last is not None and (
            (key in FOCUS_MOVES and key == last) or (_is_motion(key) and _is_motion(last))
        ):
            # The last waiting key is the same focus move (or a mouse movement): one of
            # them is enough.
            self.held.pop()
            self.held_bytes -= len(last)
            self.dropped += len(last)
        if self.held_bytes + len(key) > QUEUE_MAX:
            self.dropped += len(key)
            return
        self.held.append(key)
        self.held_bytes += len(key)

    def feed(self, data: bytes) -> None:
        """Give the app `data` now, charging the parsing to the session."""
        budget = self.budget
        if budget is not None:
            budget.began()
        started = time.thread_time()
        try:
            self._feed(data)
        finally:
            if budget is not None:
                budget.charge(time.thread_time() - started)

    def _schedule(self, delay: float) -> None:
        if self._drain is None:
            loop = asyncio.get_running_loop()
            if not self._waiting_since:
                self._waiting_since = loop.time()
            self._drain = loop.call_later(delay, self._next)

    def _next(self) -> None:
        """Feed the next held key if the budget and the app allow; else look again when
        they might. Key first, then any held resize."""
        self._drain = None
        budget = self.budget
        if budget is None or not (self.held or self._resize_due()):
            self._waiting_since = 0.0
            return
        # a key is looked at again soon; a new size alone need not come at once
        poll, quiet = (POLL, QUIET) if self.held else (RESIZE_POLL, RESIZE_POLL)
        wait = budget.wait()
        if wait > 0:
            self._schedule(max(min(wait, poll), QUIET))
            return
        now = asyncio.get_running_loop().time()
        if budget.parked is not None or (
            not budget.quiet() and now - self._waiting_since < QUIET_MAX
        ):
            self._schedule(quiet)  # never while its work waits: a key must follow it
            return
        self._waiting_since = 0.0
        gap = QUIET
        if self.held:
            key = self.held.popleft()
            self.held_bytes -= len(key)
            self.feed(key)
            if key == b"\x1b":
                gap = ESCAPE_GAP  # an Esc is a key once nothing follows it for a while
        elif self._resize_due():
            self._give_size()
        if self.held or self._resize_due():
            self._schedule(gap)

    # --- window changes ---------------------------------------------------------------------

    def window(self, width: int, height: int) -> None:
        """The client's new size: given to the app once the sizes stop changing."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        self.size = (width, height)
        if self._resize_timer is not None:
            self._resize_timer.cancel()
        else:
            self._storm_since = now
        due = min(now + RESIZE_QUIET, self._storm_since + RESIZE_MAX)
        self._resize_timer = loop.call_at(due, self._settled)

    def _settled(self) -> None:
        self._resize_timer = None
        budget = self.budget
        if budget is None or (not self.held and budget.parked is None and budget.wait() == 0):
            self._give_size()
        else:
            self._schedule(0.0)  # after the keys held, as the budget allows

    def _resize_due(self) -> bool:
        return self._resize_timer is None and self.size != self.shown_size

    def _give_size(self) -> None:
        if self.size is not None and self.size != self.shown_size:
            self.shown_size = self.size
            self.resizes += 1
            if self.budget is not None:
                self.budget.began(key=False)
            self._resize(*self.size)

    def close(self) -> None:
        for timer in (self._drain, self._resize_timer):
            if timer is not None:
                timer.cancel()
        self._drain = self._resize_timer = None
        self.held.clear()


# --- holding a connection's bytes -----------------------------------------------------------

READ_SLICE = 1024
"""Bytes of a connection handed to the SSH layer at once, the budget looked at between:
a dozen small packets (window changes), a millisecond or two of decrypting and
dispatching. (At 4096, one slice of a resize storm's was 12 to 27 ms of the loop on a
busy host, and an honest key that came meanwhile waited for all of it.)"""
READ_STEP = 0.002
"""Seconds of the SSH layer's work on one connection's bytes in one turn of the loop: past
it the rest waits for the loop's next turn, after everyone else's ready callbacks (the
other players' keys). A flood's bytes read while its session is within its share were
read whole in one go: the share was not spent until they had all been read."""


INBOX_MAX = 65536
"""Bytes of a connection held unprocessed while its session waits; past it its socket is
not read until they are (TCP holds the rest back, in the client)."""


class ReadPacer:
    """A connection's bytes on their way into the SSH layer (asyncssh's `data_received`),
    held while the session it carries is over its budget. The SSH layer's own work (to
    decrypt each packet and dispatch it: a window change costs the host far more there
    than once coalesced) is timed and charged to that session like its app's. The socket
    is still read (that costs little, and a client that leaves is seen to leave), but
    what arrives waits; past `INBOX_MAX` bytes waiting, the socket is not read either.
    What may go on is read `READ_STEP` of work at a time, a turn of the loop each."""

    def __init__(self, read: Callable[[bytes], None], transport: Any) -> None:
        self._read = read
        self.transport = transport
        """The connection's transport (None: it is never paused)."""
        self.budget: WorkBudget | None = None
        """The budget of the session this connection carries (None: nothing held)."""
        self.inbox = bytearray()
        self.holds = 0
        """Times its bytes were held (for tests and benchmarks)."""
        self.steps = 0
        """Times the rest of its bytes waited for the loop's next turn (`READ_STEP`)."""
        self.paused = False
        self._timer: asyncio.TimerHandle | None = None

    def data_received(self, data: bytes, datatype: Any = None) -> None:
        self.inbox += data
        if len(self.inbox) > INBOX_MAX:
            self._pause()
        if self._timer is None:
            self._drain()

    def _drain(self) -> None:
        self._timer = None
        began = time.thread_time()
        while self.inbox:
            budget = self.budget
            wait = budget.wait() if budget is not None else 0.0
            if wait > 0:
                self.holds += 1
                loop = asyncio.get_running_loop()
                self._timer = loop.call_later(max(QUIET, min(wait, POLL)), self._drain)
                return
            if time.thread_time() - began >= READ_STEP:
                # The rest at the loop's next turn (a timer, not `call_soon`: the meter's).
                self.steps += 1
                self._timer = asyncio.get_running_loop().call_later(0, self._drain)
                return
            chunk = bytes(self.inbox[:READ_SLICE])
            del self.inbox[:READ_SLICE]
            charged = budget.spent if budget is not None else 0.0
            started, wall = time.thread_time(), time.perf_counter()
            self._read(chunk)
            if budget is not None:  # less what was charged inside (keys' parsing)
                took = time.thread_time() - started
                budget.charge(max(0.0, took - (budget.spent - charged)))
                budget.ran(max(took, time.perf_counter() - wall))
            if self.paused and len(self.inbox) <= INBOX_MAX // 2:
                self._resume()

    def _pause(self) -> None:
        if not self.paused and self.transport is not None:
            self.paused = True
            with contextlib.suppress(Exception):  # a transport closing
                self.transport.pause_reading()

    def _resume(self) -> None:
        self.paused = False
        with contextlib.suppress(Exception):
            self.transport.resume_reading()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.inbox.clear()
        self.budget = None
