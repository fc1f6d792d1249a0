"""App speed: cold start to a painted menu against a bare Textual app, and keypress to frame.

Cold start: fresh interpreters, alternating, each running an app headless until its first
screen has been painted, then exiting; wall time from process start to exit and peak
memory (max RSS) per run. The bare app is a Header, a Static and a Footer. Targets: cantina
at most 1.15x the bare app's wall time and 1.3x its peak memory (medians of one run).

Keypress to next frame: each key `1` goes the whole real way (binding, the table's
`Dealer`, `LiveTable.submit`, the screen's `Changed` message, narration, board, decision
bar) and is timed from the Key event posted to the app (as the terminal driver posts it) to
the frame that shows all of the move (every widget it asked to redraw drawn; `FrameClock`),
turned into terminal output as a terminal would get it, headless. Tables: Val-Des with four
human seats (no AI thinking, no hand-off), and the way most people play, one person against
AI seats (Val-Des against three, Victim! against two); there the frame timed is the one
showing the person's move, the AI about to think, not the AI's reply, which comes after its
own pace. Those rows have animation off, as tests do; the last row has the dice tumbling at
normal speed, as players have them. Beside them, the same figure for a bare Textual app
whose Static is rewritten on each key: what Textual itself costs on this machine. Keys come
50 ms apart (`--gap`), and at an AI table only once the AI seats have played and the person
is asked again: closer than a frame period (1/60 s) Textual holds a new frame until the
next tick, which measures its frame pacing rather than our work. With dice tumbling, the
key comes `--tumble-gap` (0.5 s) after the person is asked, when the AI's dice have
settled, as they have for a person who reads the options first; a key pressed while they
still tumble waits for the frame pacing (up to two frame periods after the last tumbling
frame), which `--tumble-gap 0.05` shows. Target: p95 at most 16 ms.

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

from screens.textual_compat import on_each_frame, terminal_output, visible_widgets

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


class FrameClock:
    """Times keys from a Key event posted to the app (as the terminal driver posts it) to
    the frame that shows the key's effect: the first frame composed once every widget that
    asked to be redrawn while the effect arrived (from `arm()` to the next frame) has been
    drawn. Textual may compose a frame with only some of them (those whose requests reached
    the screen first) and the rest a frame or two later; the later frame is the one timed.
    The app's own code runs untouched: every composed frame is watched (`on_each_frame`),
    and widgets' `refresh` and `render_lines` are noted while a key is timed.

    Headless, Textual skips turning a frame into terminal escape sequences; the clock
    does that itself (`terminal_output`), so each figure includes what a real terminal's
    frame costs."""

    current: FrameClock | None = None
    """The clock timing a key now, which the noting of widgets reports to."""

    def __init__(self, app) -> None:
        self.app = app
        self.armed = False
        self.expecting = False
        """A key was pressed and its effect has not arrived yet."""
        self.noting = False
        """Widgets asking to be redrawn now belong to the key's effect."""
        self.waiting: set = set()
        """Widgets of the effect not drawn yet."""
        self.frame = asyncio.Event()
        _note_widgets()
        on_each_frame(app, self.displayed)

    def displayed(self, screen, renderable) -> None:
        """A frame was composed and displayed: the one timed, if all of the key's effect
        is drawn in it."""
        if self.armed and renderable is not None:
            terminal_output(renderable, self.app.console)
            self.noting = False
            if not self.waiting:
                self.armed = False
                self.frame.set()

    def arm(self) -> None:
        """The key's effect is arriving: note what it redraws, and time the frame that
        shows all of it. Only the first effect after a key counts (at an AI table the AI's
        reply follows it)."""
        if self.expecting:
            self.expecting = False
            self.armed = True
            self.noting = True

    def note_refresh(self, widget) -> None:
        screen = self.app.screen
        if widget.screen is screen and widget in visible_widgets(screen):
            self.waiting.add(widget)

    async def press(self, key: str) -> float:
        from textual import events

        self.frame.clear()
        self.armed = self.noting = False
        self.waiting.clear()
        self.expecting = True
        FrameClock.current = self
        start = time.perf_counter()
        self.app.post_message(events.Key(key, key))
        await asyncio.wait_for(self.frame.wait(), 5)
        return time.perf_counter() - start


def _note_widgets() -> None:
    """Have every widget tell the clock timing a key when it asks to be redrawn and when
    it is drawn (once per process)."""
    from textual.widget import Widget

    if getattr(Widget, "_noted_by_bench", False):
        return
    refresh, render_lines = Widget.refresh, Widget.render_lines

    def noted_refresh(self, *args, **kwargs):
        clock = FrameClock.current
        if clock is not None and clock.noting and self.is_mounted:
            clock.note_refresh(self)
        return refresh(self, *args, **kwargs)

    def noted_render_lines(self, crop):
        clock = FrameClock.current
        if clock is not None:
            clock.waiting.discard(self)
        return render_lines(self, crop)

    Widget.refresh = noted_refresh
    Widget.render_lines = noted_render_lines
    Widget._noted_by_bench = True


TABLES = {
    "Val-Des, 4 people": ("valdes", "you,you,you,you", 0.0),
    "Val-Des, 1 + 3 AI": ("valdes", "you,Expert,Bold,Cautious", 0.0),
    "Victim!, 1 + 2 AI": ("victim", "you,Expert,Treacherous", 0.0),
    "Victim!, tumbling": ("victim", "you,Expert,Treacherous", 1.0),
}
"""The tables timed, by row label: the game, who sits at it and the animation speed."""


async def cantina_keys(
    game: str, seats: str, animation: float, count: int, gap: float
) -> list[float]:
    """Key `1` at a table, whenever a person there is asked: the call goes through the key
    binding, the dealer, `LiveTable.submit`, the screen's `Changed` message, the narration,
    the board and the decision bar, exactly as in play; timed until the frame showing it is
    composed. A finished game is followed by a new one (the next seed)."""
    from cantina.app import CantinaApp
    from cantina.games.valdes import ValDesSettings
    from cantina.games.victim import VictimSettings
    from cantina.seating import TableSetup, seats_from_text
    from screens.table import TableScreen

    settings = {"valdes": ValDesSettings(seats=len(seats.split(","))), "victim": VictimSettings()}
    os.environ.setdefault("CANTINA_CONFIG_DIR", tempfile.mkdtemp(prefix="cantina-bench-"))
    timings: list[float] = []
    seed = 0
    while len(timings) < count:
        seed += 1
        setup = TableSetup(game, settings[game], seats_from_text(seats), seed)
        app = CantinaApp(start=setup, animation_speed=animation, pace=0, save_preferences=False)
        clock = FrameClock(app)

        def hook(message, clock=clock) -> None:
            if isinstance(message, TableScreen.Changed):
                clock.arm()

        async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
            await pilot.pause()
            table = app.screen
            assert isinstance(table, TableScreen)
            while len(timings) < count:
                # The AI seats play (their dice tumbling, at that row) until a person is
                # asked again, or the game ends.
                for _ in range(15_000):
                    if app.screen is not table or table.awaiting_human:
                        break
                    await asyncio.sleep(0.002)
                if app.screen is not table or not table.awaiting_human:
                    break  # the game is over
                await asyncio.sleep(gap)
                timings.append(await clock.press("1"))
    return timings


async def bare_keys(count: int, gap: float) -> list[float]:
    """Textual's own floor: a bare app (Header, Static, Footer) whose Static is rewritten
    on each key, timed the same way."""
    from textual.app import App
    from textual.widgets import Footer, Header, Static

    class Bare(App):
        BINDINGS = [("1", "count", "Count")]

        def compose(self):
            yield Header()
            yield Static("No keys yet", id="count")
            yield Footer()

        def action_count(self) -> None:
            clock.arm()
            self.presses = getattr(self, "presses", 0) + 1
            self.query_one("#count", Static).update(f"{self.presses} keys pressed")

    app = Bare()
    clock = FrameClock(app)
    timings: list[float] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        while len(timings) < count:
            timings.append(await clock.press("1"))
            await asyncio.sleep(gap)
    return timings


def summary(label: str, timings: list[float]) -> str:
    timings = sorted(timings)
    p95 = timings[int(0.95 * (len(timings) - 1))]
    return (
        f"  {label:<18} median {statistics.median(timings) * 1000:6.2f} ms"
        f"   p95 {p95 * 1000:6.2f} ms   max {timings[-1] * 1000:6.2f} ms"
    )


async def keypresses(count: int, gap: float, tumble_gap: float) -> None:
    bare = await bare_keys(count, gap)
    ours = {
        label: await cantina_keys(*table, count, tumble_gap if table[2] else gap)
        for label, table in TABLES.items()
    }
    print(
        f"Keypress to next frame, {count} keys each, {gap * 1000:.0f} ms apart"
        f" ({tumble_gap * 1000:.0f} ms with dice tumbling), headless"
    )
    print(summary("bare Textual app", bare))
    for label, timings in ours.items():
        print(summary(label, timings) + "   (target p95 <= 16 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--keys", type=int, default=300)
    parser.add_argument(
        "--gap", type=float, default=0.05, help="seconds between keys (a person's pace)"
    )
    parser.add_argument(
        "--tumble-gap",
        type=float,
        default=0.5,
        help="seconds from being asked to the key, with dice tumbling",
    )
    args = parser.parse_args()
    if args.runs:  # 0 skips a part
        cold_start(args.runs)
    if args.keys:
        asyncio.run(keypresses(args.keys, args.gap, args.tumble_gap))


if __name__ == "__main__":
    main()
