"""Tournaments: a round robin of temperaments over every seating, on every core.

A tournament chooses its tables from the temperaments given: every ordered seating of
`TABLE_SEATS` different temperaments (so each meets each other in every seat order), and
game `i` sits at seating `i mod S`. Each game is played by `cantina.sim`'s own runners (one
game loop for sims and tournaments) from a seed of its own, derived from the tournament's
seed and the game's index, so which process plays a game, and in what order, changes
nothing: the same seed gives the same results with any number of processes.

Table size: Victim! is for exactly 3 seats; Vigo's Favor and Val-Des take 2 to 8, and play
here at 3 too, the smallest table where everybody faces two others (8 temperaments make
8 x 7 x 6 = 336 seatings; at 4 seats it would be 1,680, too many to play each often).

Ratings: a maximum-likelihood fit of the Luce choice model (Bradley-Terry for more than
two players: a seat wins with chance e^s_i over the sum of e^s_j at its table), with a weak
normal prior (sd 2 in log-strength) so that a temperament that never or always won still
has a finite rating, and 95% intervals from the curvature of the fit (the Laplace
approximation). Ratings are shown on the Elo scale (400/ln 10 points per unit of log
strength, 0 the field's average), so +100 means winning a head-to-head about 64% of the
time. Why a fit and not openskill: openskill (like Elo) updates game by game, so its
numbers depend on the order games are fed in and its sigma is an online approximation
with drift, not an interval for a fixed skill; here every game is known at the end, and a
batch fit over them all is order-free (results identical for any number of processes) and
gives a real interval, with no new dependency. A game without a sole winner (a tie for
the top bank at Vigo's Favor) says nothing about who is stronger and is left out of the
fit (it still counts in the games and nets).
"""

from __future__ import annotations

import concurrent.futures as futures
import gc
import itertools
import math
import multiprocessing
import queue
import random
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cantina.ai.player import TableAI
from cantina.ai.temperament import Temperament
from cantina.games.dice import Dice
from cantina.sim import RUNNERS, SeatTally, mean_interval, wilson

TABLE_SEATS = {"vigo": 3, "valdes": 3, "victim": 3}
"""Seats at every tournament table, by game (see the module's docstring)."""
MAX_CHUNK = 256
"""The most games of one seating a process plays as one task: a seating's games stay
together (its AI's solved odds stay warm in one process) up to this many."""
BATCH_GAMES = 1024
"""The most games in one batch sent to a worker process: a second or so of play."""
PRIOR_SD = 2.0
"""The prior's spread of log strengths: weak, there only to keep a rating finite."""
ELO = 400 / math.log(10)
"""Elo points per unit of log strength."""
Z95 = 1.959964


def game_seed(seed: int, index: int) -> int:
    """Game `index`'s own seed, fixed by the tournament's seed alone."""
    return random.Random(f"cantina:tournament:{seed}:{index}").getrandbits(63)


def seatings(count: int, seats: int) -> list[tuple[int, ...]]:
    """Every ordered choice of `seats` different entries of `count`."""
    return list(itertools.permutations(range(count), seats))


@dataclass(frozen=True, slots=True)
class Outcome:
    """One game's result: its index, its seating, the winning seat (None when no one
    seat won outright) and each seat's net. Slotted: a tournament may keep a million."""

    index: int
    seating: int
    winner: int | None
    nets: tuple[int, ...]


@dataclass(frozen=True)
class Task:
    """Games of one seating for one process to play."""

    game: str
    settings: Any
    seating: int
    players: tuple[Temperament, ...]
    indices: tuple[int, ...]
    seed: int


_tables: dict[tuple[Any, ...], TableAI] = {}
"""This process's TableAI for each seating it has played: the solved odds stay warm."""
_MAX_TABLES = 512
_stop_event: Any = None
"""Set in worker processes: the tournament's stop flag, shared with the parent."""


def play_task(task: Task, stop: Callable[[], bool] | None = None) -> list[Outcome]:
    """Play a task's games in order, asking `stop` (or the shared stop flag) before
    each: a game is never cut short."""
    if stop is None:
        event = _stop_event
        stop = event.is_set if event is not None else (lambda: False)
    runner = RUNNERS[task.game](task.settings)
    key = (task.game, task.players)
    table = _tables.get(key)
    if table is None:
        if len(_tables) >= _MAX_TABLES:
            _tables.clear()
        table = _tables[key] = TableAI(list(task.players))
    seats = list(range(len(task.players)))
    played = []
    for index in task.indices:
        if stop():
            break
        tallies = [SeatTally(t.name) for t in task.players]
        runner.run(Dice(game_seed(task.seed, index)), table, seats, tallies)
        winners = [seat for seat, tally in enumerate(tallies) if tally.wins]
        played.append(
            Outcome(
                index,
                task.seating,
                winners[0] if len(winners) == 1 else None,
                tuple(tally.net for tally in tallies),
            )
        )
    return played


Packed = tuple[int, int, int | None, tuple[int, ...]]
"""An outcome as a plain tuple, for the trip from a worker process: a tuple pickles in a
twentieth of the time of the slotted dataclass, and on two cores the parent's unpickling
takes its time from the workers."""


def play_batch(batch: Sequence[Task]) -> list[Packed]:
    """A batch of tasks in a worker process, its outcomes as plain tuples."""
    return [(o.index, o.seating, o.winner, o.nets) for task in batch for o in play_task(task)]


def batches(tasks: Sequence[Task], jobs: int) -> list[list[Task]]:
    """The tasks in order, in batches for `jobs` processes: each batch a quarter of a
    process's share of the games left (at most BATCH_GAMES, so progress keeps coming), so
    big at first and single tasks at the end. Every batch costs the pool's threads about
    half a millisecond of the parent's time, which on two cores is taken from the
    workers; small batches at the end keep the processes finishing together."""
    found: list[list[Task]] = []
    left = sum(len(task.indices) for task in tasks)
    batch: list[Task] = []
    size = 0
    target = 0.0
    for task in tasks:
        games = len(task.indices)
        if batch and size + games > BATCH_GAMES:
            found.append(batch)
            left -= size
            batch, size = [], 0
        if not batch:
            target = min(left / (4 * jobs), BATCH_GAMES)
        batch.append(task)
        size += games
        if size >= target:
            found.append(batch)
            left -= size
            batch, size = [], 0
    if batch:
        found.append(batch)
    return found


def _start_worker(event: Any) -> None:
    """In each worker process: Ctrl-C is the parent's to handle (it sets `event`)."""
    global _stop_event
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _stop_event = event
    gc.freeze()  # what the fork copied is never freed here: keep it out of collections


def plan(
    game: str, settings: Any, players: Sequence[Temperament], games: int, seed: int
) -> tuple[list[tuple[int, ...]], list[Task]]:
    """The seatings, and the tasks that play games 0 to `games - 1`: each seating's games
    in runs of at most MAX_CHUNK, seatings in an order shuffled by the seed (so the games
    done when a run is stopped early do not favour the first temperament's seatings)."""
    tables = seatings(len(players), TABLE_SEATS[game])
    count = len(tables)
    order = list(range(count))
    random.Random(f"cantina:tournament-order:{seed}").shuffle(order)
    per_seating = -(-games // count)
    tasks = []
    for start in range(0, per_seating, MAX_CHUNK):
        for s in order:
            indices = tuple(range(s + start * count, games, count)[:MAX_CHUNK])
            if indices:
                seated = tuple(players[entry] for entry in tables[s])
                tasks.append(Task(game, settings, s, seated, indices, seed))
    return tables, tasks


@dataclass(frozen=True)
class Rating:
    temperament: str
    rating: float
    """Elo points above the field's average."""
    low: float
    high: float
    games: int
    wins: int
    net_per_game: tuple[float, float, float]
    """The mean net per game and its 95% interval."""


@dataclass
class TournamentResult:
    game: str
    seed: int
    temperaments: list[str]
    table_seats: int
    seatings: int
    requested: int
    outcomes: list[Outcome]
    ratings: list[Rating]

    @property
    def games(self) -> int:
        return len(self.outcomes)

    @property
    def stopped(self) -> bool:
        return self.games < self.requested

    @property
    def no_winner(self) -> int:
        return sum(o.winner is None for o in self.outcomes)

    def ranked(self) -> list[Rating]:
        return sorted(self.ratings, key=lambda r: (-r.rating, r.temperament))

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "game": self.game,
            "seed": self.seed,
            "games": self.games,
            "table_seats": self.table_seats,
            "seatings": self.seatings,
            "no_sole_winner": self.no_winner,
            "rating_method": "Luce choice model (multiplayer Bradley-Terry), Elo scale",
            "ratings": [
                {
                    "temperament": r.temperament,
                    "rating": r.rating,
                    "rating_ci95": [r.low, r.high],
                    "games": r.games,
                    "wins": r.wins,
                    "win_rate": r.wins / r.games if r.games else 0.0,
                    "win_rate_ci95": list(wilson(r.wins, r.games)),
                    "net_per_game": list(r.net_per_game),
                }
                for r in self.ranked()
            ],
        }
        if self.stopped:
            found["stopped"] = {"requested": self.requested}
        return found


def tournament(
    game: str,
    players: Sequence[Temperament],
    games: int,
    seed: int,
    settings: Any,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> TournamentResult:
    """Play the tournament on `jobs` processes (1: in this one). `progress(done)` hears
    the games done so far; once `stop()` says yes, the games under way finish and the
    result is of the games played."""
    seats = TABLE_SEATS[game]
    if len(players) < seats:
        raise ValueError(f"a tournament needs at least {seats} temperaments, not {len(players)}")
    if len({p.name for p in players}) != len(players):
        raise ValueError("each temperament may enter only once")
    tables, tasks = plan(game, settings, players, games, seed)
    asked = stop or (lambda: False)
    outcomes: list[Outcome] = []
    if jobs == 1:
        gc.freeze()  # as in a worker: the heap already here is not the games' to walk
        try:
            for task in tasks:
                if asked():
                    break
                outcomes += play_task(task, asked)
                if progress:
                    progress(len(outcomes))
        finally:
            gc.unfreeze()
    else:
        outcomes = _in_processes(tasks, jobs, progress, asked)
    outcomes.sort(key=lambda o: o.index)
    return TournamentResult(
        game,
        seed,
        [p.name for p in players],
        seats,
        len(tables),
        games,
        outcomes,
        fit_ratings([p.name for p in players], tables, outcomes),
    )


def _in_processes(
    tasks: list[Task], jobs: int, progress: Callable[[int], None] | None, stop: Callable[[], bool]
) -> list[Outcome]:
    context = multiprocessing.get_context()
    event = context.Event()
    outcomes: list[Outcome] = []
    finished: queue.SimpleQueue[futures.Future[list[Packed]]] = queue.SimpleQueue()
    with futures.ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_start_worker, initargs=(event,)
    ) as pool:
        pending = [pool.submit(play_batch, batch) for batch in batches(tasks, jobs)]
        for submitted in pending:  # each tells the queue when done: no scan of all pending
            submitted.add_done_callback(finished.put)
        left = len(pending)
        try:
            while left:
                try:
                    future = finished.get(timeout=0.1)
                except queue.Empty:
                    pass
                else:
                    left -= 1
                    if not future.cancelled():
                        outcomes += [Outcome(*packed) for packed in future.result()]
                        if progress:
                            progress(len(outcomes))
                if not event.is_set() and stop():
                    event.set()  # the games under way end, no new ones start
                    for waiting in pending:
                        waiting.cancel()
        except BaseException:
            event.set()  # a second Ctrl-C, or a failure: leave no work running
            for waiting in pending:
                waiting.cancel()
            raise
    return outcomes


def fit_ratings(
    names: Sequence[str], tables: Sequence[tuple[int, ...]], outcomes: Sequence[Outcome]
) -> list[Rating]:
    """Each temperament's rating (see the module docstring) with its 95% interval, plus
    its games, wins and net per game."""
    k = len(names)
    games = [0] * k
    wins = [0] * k
    nets: list[list[float]] = [[] for _ in range(k)]
    counts: dict[tuple[int, ...], list[int]] = {}
    """For each set of temperaments met (sorted), how often each won there."""
    for o in outcomes:
        seated = tables[o.seating]
        for seat, entry in enumerate(seated):
            games[entry] += 1
            nets[entry].append(o.nets[seat])
        if o.winner is None:
            continue
        winner = seated[o.winner]
        wins[winner] += 1
        group = tuple(sorted(seated))
        counts.setdefault(group, [0] * len(group))[group.index(winner)] += 1
    strength, covariance = _luce_fit(k, counts)
    mean = sum(strength) / k
    # centred on the field's average: the covariance of s_i - mean(s)
    centred = [
        [
            covariance[i][j]
            - sum(covariance[i]) / k
            - sum(covariance[r][j] for r in range(k)) / k
            + sum(map(sum, covariance)) / k / k
            for j in range(k)
        ]
        for i in range(k)
    ]
    ratings = []
    for i, name in enumerate(names):
        rating = ELO * (strength[i] - mean)
        half = Z95 * ELO * math.sqrt(max(centred[i][i], 0.0))
        ratings.append(
            Rating(
                name,
                rating,
                rating - half,
                rating + half,
                games[i],
                wins[i],
                mean_interval(nets[i]),
            )
        )
    return ratings


def _luce_fit(
    k: int, counts: dict[tuple[int, ...], list[int]]
) -> tuple[list[float], list[list[float]]]:
    """Newton's method on the (concave) log posterior; returns the log strengths and
    their covariance (the inverse of the negated Hessian at the optimum)."""
    s = [0.0] * k
    hessian: list[list[float]] = []
    for _ in range(100):
        gradient = [-s[i] / PRIOR_SD**2 for i in range(k)]
        hessian = [[(1 / PRIOR_SD**2 if i == j else 0.0) for j in range(k)] for i in range(k)]
        for group, won in sorted(counts.items()):
            n = sum(won)
            top = max(s[i] for i in group)
            weights = [math.exp(s[i] - top) for i in group]
            total = sum(weights)
            p = [w / total for w in weights]
            for a, i in enumerate(group):
                gradient[i] += won[a] - n * p[a]
                for b, j in enumerate(group):
                    hessian[i][j] += n * (p[a] * (a == b) - p[a] * p[b])
        step = _solve(hessian, gradient)
        s = [x + d for x, d in zip(s, step, strict=True)]
        if max(map(abs, step)) < 1e-10:
            break
    identity = [[float(i == j) for j in range(k)] for i in range(k)]
    columns = [_solve(hessian, column) for column in identity]
    return s, [[columns[j][i] for j in range(k)] for i in range(k)]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix @ x = vector (Gaussian elimination with partial pivoting; the
    matrices here are small, symmetric and positive definite)."""
    n = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, n):
            factor = rows[r][col] / rows[col][col]
            for c in range(col, n + 1):
                rows[r][c] -= factor * rows[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (rows[r][n] - sum(rows[r][c] * x[c] for c in range(r + 1, n))) / rows[r][r]
    return x
