"""The SSH driver on its own (no connection): what a client's bytes become, and when;
and what it writes to the channel, and when."""

from __future__ import annotations

import asyncio
from functools import partial
from types import SimpleNamespace

import waiting
from textual import events

from cantina.ssh.driver import ChannelDriver

until = partial(waiting.until, timeout=2.0)  # its limit here, as before


class Keys(ChannelDriver):
    """The driver, keeping the keys it would hand the app."""

    def __init__(self) -> None:
        super().__init__(SimpleNamespace(terminal=None))  # type: ignore[arg-type]
        self.keys: list[str] = []

    def process_message(self, message) -> None:  # type: ignore[override]
        if isinstance(message, events.Key):
            self.keys.append(message.key)


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


class Recording:
    """The session's side of the driver, keeping each write to the channel."""

    size = (80, 24)
    who = "test"

    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def attach(self, driver) -> None:
        pass

    def detach(self) -> None:
        pass


def drawing_driver() -> tuple[ChannelDriver, Recording]:
    terminal = Recording()
    app = SimpleNamespace(terminal=terminal, post_message=lambda message: None)
    return ChannelDriver(app), terminal  # type: ignore[arg-type]


async def test_a_frame_with_synchronised_output_goes_to_the_channel_as_one_write():
    """As Textual draws a frame for such a terminal: its start, the frame, its end."""
    driver, terminal = drawing_driver()
    driver.write("\x1b[?2026h")
    driver.write("the frame")
    assert terminal.writes == []
    driver.write("\x1b[?2026l")
    assert terminal.writes == [b"\x1b[?2026hthe frame\x1b[?2026l"]
    driver.flush()  # as Textual does after each frame: nothing is sent twice
    assert terminal.writes == [b"\x1b[?2026hthe frame\x1b[?2026l"]


async def test_any_other_write_goes_at_once():
    """A frame for a terminal without synchronised output, a bell, the cursor's shape."""
    driver, terminal = drawing_driver()
    driver.write("a frame")
    driver.write("\x07")
    assert terminal.writes == [b"a frame", b"\x07"]


async def test_leaving_application_mode_sends_what_is_held_and_restores_the_terminal():
    """The channel closes right after: a frame cut short is sent, not kept."""
    driver, terminal = drawing_driver()
    driver.start_application_mode()
    assert b"\x1b[?1049h" in b"".join(terminal.writes)
    terminal.writes.clear()
    driver.write("\x1b[?2026h")
    driver.write("the last frame")
    driver.stop_application_mode()
    assert b"".join(terminal.writes) == b"\x1b[?2026hthe last frame" + (
        b"\x1b[?2004l\x1b[?7h\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l"
        b"\x1b[?1049l\x1b[?25h\x1b[?1004l"
    )
