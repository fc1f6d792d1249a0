"""The SSH driver's reading of keys: a lone ESC is a key once nothing follows it."""

from __future__ import annotations

import asyncio
from typing import Any

from textual import constants, events

from cantina.ssh.driver import ChannelDriver


class Stub:
    """What the driver needs of its app: a terminal, and somewhere to post keys."""

    def __init__(self) -> None:
        self.terminal = self
        self.size = (80, 24)
        self.keys: list[str] = []

    def post_message(self, message: Any) -> bool:
        if isinstance(message, events.Key):
            self.keys.append(message.key)
        return True

    def write(self, data: bytes) -> None: ...

    def attach(self, driver: Any) -> None: ...

    def detach(self) -> None: ...


async def test_an_esc_right_after_other_keys_is_read():
    """Esc pressed within the escape delay of the key before it (Enter on a chat line,
    then Esc to leave it) is read once nothing follows, not only at the next key: the
    driver looks again after the last input, not after the first."""
    app = Stub()
    driver = ChannelDriver(app)  # type: ignore[arg-type]
    try:
        driver.feed(b"\r")
        await asyncio.sleep(constants.ESCAPE_DELAY / 2)
        driver.feed(b"\x1b")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 5
        while "escape" not in app.keys and loop.time() < deadline:
            await asyncio.sleep(0.01)
        assert app.keys == ["enter", "escape"]
    finally:
        driver.disable_input()
