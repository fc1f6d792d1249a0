"""Rules-engine throughput: random-action games per second against a bare dice floor.

For each game it plays G whole games with random legal actions (drawn from the table's own
dice, as AI seats will), then times a loop that makes exactly the same random draws (same
methods, same sizes, same counts) with no game logic. The ratio engine/floor says what the
rules cost on top of the randomness; the target is at most 3x. Medians of R repeats, all
measured in this one run.

    python3 dev.py bench            (or: .venv/bin/python benchmarks/bench_engines.py -g 2000)
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence

from cantina.games import GAMES
from cantina.games.dice import Dice
from cantina.games.table import Game


class CountingDice(Dice):
    """Dice that tally every draw by method and size, to build the floor loop."""

    __slots__ = ("tally",)

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.tally: Counter[tuple[str, int]] = Counter()

    def cube(self):
        self.tally["cube", 2] += 1
        return super().cube()

    def d6(self):
        self.tally["d6", 6] += 1
        return super().d6()

    def d12(self):
        self.tally["d12", 12] += 1
        return super().d12()

    def face(self, faces):
        self.tally["face", len(faces)] += 1
        return super().face(faces)

    def choice(self, options):
        self.tally["choice", len(options)] += 1
        return super().choice(options)


def playout(game: Game) -> None:
    """Play to the end, every decision a uniform pick from the table's dice."""
    choose = game.dice.choice
    apply = game.apply
    while (decision := game.pending) is not None:
        apply(decision.seat, choose(decision.options))


def run_engine(new: Callable[[Dice], Game], seeds: Sequence[int]) -> float:
    start = time.perf_counter()
    for seed in seeds:
        playout(new(Dice(seed)))
    return time.perf_counter() - start


def draws_of(new: Callable[[Dice], Game], seeds: Sequence[int]) -> Counter[tuple[str, int]]:
    tally: Counter[tuple[str, int]] = Counter()
    for seed in seeds:
        dice = CountingDice(seed)
        playout(new(dice))
        tally.update(dice.tally)
    return tally


def run_seeding(seeds: Sequence[int]) -> float:
    """Seeding one generator per table, as the engine run does for every game."""
    start = time.perf_counter()
    for seed in seeds:
        Dice(seed)
    return time.perf_counter() - start


def run_draws(tally: Counter[tuple[str, int]]) -> float:
    """The same draws as the engine run made, with no game logic: tight loops per kind."""
    dice = Dice(0)
    sized = {n: tuple(range(n)) for _, n in tally}
    start = time.perf_counter()
    for (method, n), count in tally.items():
        if method == "cube":
            for _ in range(count):
                dice.cube()
        elif method == "d6":
            for _ in range(count):
                dice.d6()
        elif method == "d12":
            for _ in range(count):
                dice.d12()
        else:
            draw = dice.face if method == "face" else dice.choice
            options = sized[n]
            for _ in range(count):
                draw(options)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-g", "--games", type=int, default=2000, help="games per repeat")
    parser.add_argument("-r", "--repeats", type=int, default=7)
    args = parser.parse_args()
    seeds = range(args.games)
    print(f"Random-action games, {args.games} per repeat, median of {args.repeats} repeats.")
    print("floor = seeding one generator per game + the same draws with no game logic;")
    print("ratio = engine time / floor time (target <= 3x); draws-only leaves out the seeding.")
    print(
        f"{'game':<24}{'draws/game':>11}{'games/s':>10}{'floor games/s':>15}"
        f"{'ratio':>8}{'target':>7}{'draws-only':>12}"
    )
    for info in GAMES.values():
        new = info.new_default
        tally = draws_of(new, seeds)
        engine, seeding, draws = [], [], []
        for _ in range(args.repeats):
            engine.append(run_engine(new, seeds))
            seeding.append(run_seeding(seeds))
            draws.append(run_draws(tally))
        e = statistics.median(engine)
        d = statistics.median(draws)
        f = statistics.median(seeding) + d
        ratio = e / f
        print(
            f"{info.title + ' (' + info.unit + ')':<24}{sum(tally.values()) / args.games:>11.1f}"
            f"{args.games / e:>10,.0f}{args.games / f:>15,.0f}{ratio:>7.2f}x"
            f"{'ok' if ratio <= 3 else 'MISS':>7}{e / d:>11.1f}x"
        )


if __name__ == "__main__":
    main()
