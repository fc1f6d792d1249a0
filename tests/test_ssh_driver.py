"""The SSH driver's reading of keys, on its own (no connection): what a client's bytes
become, and when."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from textual import events

from cantina.ssh.driver import ChannelDriver


class Keys(ChannelDriver):
    """The driver, keeping the keys it would hand the app."""

    def __init__(self) -> None:
        super().__init__(SimpleNamespace(terminal=None))  # type: ignore[arg-type]
        self.keys: list[str] = []

    def process_message(self, message) -> None:  # type: ignore[override]
        if isinstance(message, events.Key):
            self.keys.append(message.key)


async def until(check, timeout: float = 2.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_a_lone_escape_just_after_another_key_is_a_key():
    """Esc pressed a moment after another key (well within the wait for a sequence that
    could follow an ESC) is an escape, without waiting for a third key."""
    driver = Keys()
    driver.feed(b"?")
    await asyncio.sleep(0.05)
    driver.feed(b"\x1b")
    await until(lambda: driver.keys == ["question_mark", "escape"])


async def test_an_escape_sequence_is_one_key():
    driver = Keys()
    driver.feed(b"\x1b[A")
    await until(lambda: driver.keys == ["up"])
    await asyncio.sleep(0.2)
    assert driver.keys == ["up"]
