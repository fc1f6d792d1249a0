"""A progress bar on stderr for a long local command (`analyse-temperaments`): drawn only
on a terminal, gone once done, and drawn from the work's own calls (no drawing thread)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn


@contextlib.contextmanager
def measuring_bar(total: int) -> Iterator[Callable[[], None]]:
    """A progress bar on stderr, drawn only on a terminal and gone once done: what is
    called after each game measured (`--games` may ask for a million, hours of work).
    Drawn from that call, ten times a second at most: no drawing thread."""
    with Progress(
        "Measuring",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
        auto_refresh=False,
    ) as progress:
        task = progress.add_task("", total=total)
        drawn = [0.0]

        def step() -> None:
            progress.advance(task)
            if time.monotonic() - drawn[0] >= 0.1:
                progress.refresh()
                drawn[0] = time.monotonic()

        yield step
