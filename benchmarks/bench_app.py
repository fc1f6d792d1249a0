"""App speed: cold start to a painted menu against a bare Textual app, and keypress to frame.

Cold start: fresh interpreters, alternating, each running an app headless until its first
screen has been painted, then exiting; wall time from process start to exit and peak
memory (max RSS) per run. The bare app is a Header, a Static and a Footer. Targets: cantina
at most 1.15x the bare app's wall time and 1.3x its peak memory (medians of one run).

Keypress to next frame: a Val-Des table of human seats (no AI thinking, no hand-off), each
key a real call that is applied, narrated and redrawn; timed from a Key event posted to the
app (as the terminal driver posts it) to the next refresh having been composed, headless
(no terminal output). Target: p95 at most 16 ms.

    python3 dev.py bench     (or: .venv/bin/python benchmarks/bench_app.py)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time

BARE = """
from textual.app import App
from textual.widgets import Footer, Header, Static

class Bare(App):
    def compose(self):
        yield Header()
        yield Static("Hello from a bare Textual app")
        yield Footer()

    def on_mount(self):
        self.call_after_refresh(self.exit)

Bare().run(headless=True, size=(80, 24))
"""

CANTINA = """
from cantina.app import CantinaApp

class Painted(CantinaApp):
    def on_mount(self):  # runs after CantinaApp's own on_mount has pushed the menu
        self.call_after_refresh(self.exit)

Painted(save_preferences=False).run(headless=True, size=(80, 24))
"""


def child(code: str, env: dict[str, str]) -> tuple[float, float]:
    """Run `code` in a fresh interpreter; wall seconds and its peak RSS in MiB."""
    wrapper = (
        "import resource, sys, time\n"
        f"exec(compile({code!r}, 'bench', 'exec'))\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", wrapper], capture_output=True, text=True, env=env, check=True
    )
    wall = time.perf_counter() - start
    return wall, int(done.stdout.strip().splitlines()[-1]) / 1024


def cold_start(runs: int) -> None:
    env = dict(os.environ, CANTINA_CONFIG_DIR=tempfile.mkdtemp(prefix="cantina-bench-"))
    child(BARE, env)  # warm the OS file cache for both before timing
    child(CANTINA, env)
    bare, cantina = [], []
    for _ in range(runs):
        bare.append(child(BARE, env))
        cantina.append(child(CANTINA, env))
    bare_wall = statistics.median(w for w, _ in bare)
    bare_mem = statistics.median(m for _, m in bare)
    our_wall = statistics.median(w for w, _ in cantina)
    our_mem = statistics.median(m for _, m in cantina)
    print(f"Cold start to a painted first screen, headless, median of {runs} runs each")
    print(f"  bare Textual app   {bare_wall * 1000:7.1f} ms   {bare_mem:6.1f} MiB peak")
    print(f"  cantina menu       {our_wall * 1000:7.1f} ms   {our_mem:6.1f} MiB peak")
    print(
        f"  ratio              {our_wall / bare_wall:7.2f}x (target <= 1.15x)"
        f"   {our_mem / bare_mem:5.2f}x (target <= 1.3x)"
    )


async def keypresses(count: int) -> None:
    from textual import events

    from cantina.app import CantinaApp
    from cantina.games.valdes import ValDesSettings
    from cantina.seating import TableSetup, seats_from_text

    os.environ.setdefault("CANTINA_CONFIG_DIR", tempfile.mkdtemp(prefix="cantina-bench-"))
    timings: list[float] = []
    seed = 0
    while len(timings) < count:
        seed += 1
        setup = TableSetup(
            "valdes", ValDesSettings(seats=4), seats_from_text("you,you,you,you"), seed
        )
        app = CantinaApp(start=setup, animation_speed=0, ai_pace=0, save_preferences=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            table = app.screen
            play = table.play
            painted = asyncio.Event()

            def played(seat, action, play=play, table=table, painted=painted):
                play(seat, action)  # the call applied, narrated, the next prompt shown
                table.call_after_refresh(painted.set)  # set once that frame is composed

            table.play = played
            while table.game.pending is not None and len(timings) < count:
                painted.clear()
                start = time.perf_counter()
                app.post_message(events.Key("1", "1"))  # as the terminal driver delivers it
                await asyncio.wait_for(painted.wait(), 5)
                timings.append(time.perf_counter() - start)
                await asyncio.sleep(0.01)  # a person's keys are not back to back
    timings.sort()
    p95 = timings[int(0.95 * (len(timings) - 1))]
    print(f"Keypress to next frame, {count} calls at a Val-Des table of humans")
    print(
        f"  median {statistics.median(timings) * 1000:6.2f} ms   p95 {p95 * 1000:6.2f} ms"
        f"   max {timings[-1] * 1000:6.2f} ms   (target p95 <= 16 ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--keys", type=int, default=300)
    args = parser.parse_args()
    cold_start(args.runs)
    asyncio.run(keypresses(args.keys))


if __name__ == "__main__":
    main()
