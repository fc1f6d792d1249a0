"""Tournament throughput on one process and on two: games per second and their ratio.

Each run is a fresh interpreter (so no run finds another's solved odds warm), timing the
`tournament()` call alone (the process pool's start included, the interpreter's not), with
every temperament entered (336 seatings of 3). The target is J=2 at least 1.8x the games
per second of J=1 on a 2-core machine; the script also checks that both give the same
results (a digest of the JSON), and the CPU time per game each used (the parent's and its
workers'), which shows what running on two processes costs in work whatever the load.
Medians of R repeats, all measured in this one run; the
machine may be shared, so a ratio below the target on a busy machine is worth a rerun.

    .venv/bin/python benchmarks/bench_tournament.py                 (all three games)
    .venv/bin/python benchmarks/bench_tournament.py -g victim --games 6000 -r 3
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time

GAMES = {"victim": 4000, "vigo": 8000, "valdes": 8000}
"""Default games per run: a few seconds each on one process."""
SPIN = 2_000_000
"""Loop turns in one calibration task (about 0.1 s)."""


def spin(turns: int) -> int:
    """Pure CPU work, sharing nothing: what the machine's free cores give right now."""
    total = 0
    for i in range(turns):
        total += i * i
    return total


def calibrate(tasks: int = 30) -> float:
    """The ratio of spin tasks per second on two processes to one: about 2 on two free
    cores, less when others use them."""
    from concurrent.futures import ProcessPoolExecutor

    start = time.perf_counter()
    for _ in range(tasks):
        spin(SPIN)
    one = time.perf_counter() - start
    start = time.perf_counter()
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(spin, [SPIN] * tasks))
    two = time.perf_counter() - start
    return one / two


def child(game: str, games: int, jobs: int, seed: int) -> None:
    """One timed run, printed as JSON: seconds and a digest of the results."""
    from cantina.ai.temperament import temperaments
    from cantina.games import GAMES as REGISTRY
    from cantina.games.table import checked
    from cantina.tournament import TABLE_SEATS, tournament

    settings = checked(REGISTRY[game].settings_for(TABLE_SEATS[game]))
    players = list(temperaments().values())
    cpu_before = sum(
        u.ru_utime + u.ru_stime
        for u in (
            resource.getrusage(resource.RUSAGE_SELF),
            resource.getrusage(resource.RUSAGE_CHILDREN),
        )
    )
    start = time.perf_counter()
    result = tournament(game, players, games, seed, settings, jobs=jobs)
    seconds = time.perf_counter() - start
    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    cpu = sum(u.ru_utime + u.ru_stime for u in used) - cpu_before
    digest = hashlib.sha256(json.dumps(result.to_json()).encode()).hexdigest()[:16]
    print(json.dumps({"seconds": seconds, "cpu": cpu, "games": result.games, "digest": digest}))


def run(game: str, games: int, jobs: int, seed: int) -> dict[str, float | str]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", game, str(games), str(jobs), str(seed)],
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, float | str] = json.loads(done.stdout)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-g", "--game", choices=list(GAMES), action="append")
    parser.add_argument("--games", type=int, help="games per run (default: by game)")
    parser.add_argument("-r", "--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        game, games, jobs, seed = args.child
        child(game, int(games), int(jobs), int(seed))
        return 0
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f} (1 min)")
    print(f"the machine now: 2 processes of pure CPU work run {calibrate():.2f}x one")
    print(
        f"{'game':<8} {'games':>6} {'J=1 games/s':>12} {'J=2 games/s':>12} {'ratio':>6} "
        f"{'CPU ms/game J=1':>16} {'J=2':>6}  same"
    )
    worst = True
    for game in args.game or list(GAMES):
        games = args.games or GAMES[game]
        rates: dict[int, list[float]] = {1: [], 2: []}
        cpu: dict[int, list[float]] = {1: [], 2: []}
        digests = set()
        for _ in range(args.repeats):
            for jobs in (1, 2):  # interleaved, so a burst of load hits both alike
                found = run(game, games, jobs, args.seed)
                rates[jobs].append(float(found["games"]) / float(found["seconds"]))
                cpu[jobs].append(1000 * float(found["cpu"]) / float(found["games"]))
                digests.add(found["digest"])
        one, two = statistics.median(rates[1]), statistics.median(rates[2])
        same = len(digests) == 1
        worst &= same
        print(
            f"{game:<8} {games:>6} {one:>12,.0f} {two:>12,.0f} {two / one:>5.2f}x "
            f"{statistics.median(cpu[1]):>16.2f} {statistics.median(cpu[2]):>6.2f}  "
            f"{'yes' if same else 'NO: results differ'}"
        )
    print(f"the machine after: 2 processes of pure CPU work run {calibrate():.2f}x one")
    print("target: J=2 at least 1.8x J=1 (on 2 free cores); results the same for any J")
    return 0 if worst else 1


if __name__ == "__main__":
    sys.exit(main())
