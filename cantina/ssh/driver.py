"""A Textual driver that draws on one SSH channel and reads keys from it.

It runs in the server's event loop (no threads): the SSH session hands it input as it
arrives, and it writes each frame to the channel. Modelled on Textual's LinuxDriver, less
what a shared process must not do (signals, termios, the process's own stdin/stdout).
"""

from __future__ import annotations

import asyncio
import logging
from codecs import getincrementaldecoder
from typing import TYPE_CHECKING, Any, Protocol

from textual import constants, events
from textual.driver import Driver
from textual.geometry import Size
from textual.message import Message

from screens.textual_compat import (
    UncachedXTermParser,
    UnreadableInput,
    partial_frames_draw_dirty_rows,
    resizes_draw_one_frame,
)

if TYPE_CHECKING:
    from textual.app import App

log = logging.getLogger("cantina.ssh")

SYNC_START, SYNC_END = "\x1b[?2026h", "\x1b[?2026l"
"""A frame's start and end, for a terminal that does synchronised output (mode 2026)."""


class Terminal(Protocol):
    """The driver's side of an SSH session."""

    size: tuple[int, int]

    @property
    def who(self) -> str:
        """Whose terminal this is, for the host's log."""
        ...

    def write(self, data: bytes) -> None: ...

    def attach(self, driver: ChannelDriver) -> None: ...

    def detach(self) -> None: ...


class ChannelDriver(Driver):
    """Display and input for one hosted app, over its session's channel."""

    def __init__(
        self,
        app: App[Any],
        *,
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        partial_frames_draw_dirty_rows()  # a host's frames are most of its work
        resizes_draw_one_frame()  # a resize was the dearest input a player could send
        self.hosted = app
        """The app this driver serves (the base class keeps it too, but privately)."""
        self.mouse_reporting = mouse
        """Whether the terminal is asked to report the mouse."""
        self.terminal: Terminal = app.terminal  # type: ignore[attr-defined]
        self._parser = UncachedXTermParser()  # one per session, sharing nothing
        self._decode = getincrementaldecoder("utf-8")(errors="replace").decode
        self._tick: asyncio.TimerHandle | None = None
        self._frame: list[str] | None = None
        """The writes of a frame drawn with synchronised output, until its end."""
        self._attached = False
        self.dropped = 0
        """Chunks of input the parser failed on."""

    @property
    def can_suspend(self) -> bool:
        return False

    def write(self, data: str) -> None:
        """To the channel at once, but for a frame drawn with synchronised output: Textual
        writes its start, the frame and its end apart, and each write sent alone was an
        SSH packet of its own, tens of microseconds of the host's work apiece
        (`benchmarks/bench_frames.py`). Such a frame goes as one write, at its end."""
        if self._frame is not None:
            self._frame.append(data)
            if data == SYNC_END:
                self.flush()
        elif data == SYNC_START:
            self._frame = [data]
        else:
            self.terminal.write(data.encode("utf-8", "replace"))

    def flush(self) -> None:
        """What is held of a frame (Textual flushes after each), to the channel."""
        if self._frame is not None:
            data = "".join(self._frame)
            self._frame = None
            self.terminal.write(data.encode("utf-8", "replace"))

    def send_message(self, message: Message) -> None:
        # Same thread as the app: post directly instead of through run_coroutine_threadsafe.
        self.hosted.post_message(message)

    def start_application_mode(self) -> None:
        self.terminal.attach(self)
        self._attached = True
        self.resized(*self.terminal.size)
        self.write("\x1b[?1049h")  # alternate screen
        if self.mouse_reporting:
            self.write("\x1b[?1000h\x1b[?1003h\x1b[?1015h\x1b[?1006h")
        self.write("\x1b[?25l")  # hide the cursor
        self.write("\x1b[?1004h")  # focus in / out
        self.write("\x1b[?2026$p")  # does the terminal do synchronised output?
        self.write("\x1b[?2004h")  # bracketed paste
        self.write("\x1b[?7l")  # no line wrap

    def disable_input(self) -> None:
        if self._attached:
            self._attached = False
            self.terminal.detach()
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None

    def stop_application_mode(self) -> None:
        self.disable_input()
        self.write("\x1b[?2004l\x1b[?7h")
        if self.mouse_reporting:
            self.write("\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l")
        self.write("\x1b[?1049l\x1b[?25h\x1b[?1004l")
        self.flush()  # anything held: the channel closes after this

    def feed(self, data: bytes) -> None:
        """Input from the client: keys, mouse, paste and terminal replies. Input the parser
        fails on, or a key naming no character, is dropped with one line in the host's log;
        the session reads on."""
        past_unicode = self._parser.past_unicode
        try:
            for message in self._parser.feed(self._decode(data)):
                self.take(message)
        except UnreadableInput as error:
            self.unreadable(error)
        if self._parser.past_unicode > past_unicode:
            self.unreadable(UnreadableInput("a key naming a code point past Unicode's last"))
        # A lone ESC is a key only once nothing follows it: look again shortly after the
        # last input. (A look timed from an earlier chunk came too soon for an ESC that
        # arrived after it, and none came later: the ESC waited for the next key.)
        if self._tick is not None:
            self._tick.cancel()
        delay = constants.ESCAPE_DELAY + 0.01
        self._tick = asyncio.get_running_loop().call_later(delay, self._tick_parser)

    def _tick_parser(self) -> None:
        self._tick = None
        try:
            for message in self._parser.tick():
                self.take(message)
        except UnreadableInput as error:
            self.unreadable(error)

    def take(self, message: Message) -> None:
        """One message parsed from the client's input. A size reported in-band is not
        taken: the session's size (from the SSH window size, within its bounds) is."""
        if not isinstance(message, events.Resize):
            self.process_message(message)

    def unreadable(self, error: UnreadableInput) -> None:
        self.dropped += 1
        if self.dropped == 1:  # one line a session, however much it sends
            log.warning("input from %s dropped, unreadable (%s)", self.terminal.who, error)

    def resized(self, width: int, height: int) -> None:
        size = Size(max(width, 1), max(height, 1))
        self.send_message(events.Resize(size, size))

    def open_url(self, url: str, new_tab: bool = True) -> None:
        """Never on the host's machine."""

    def deliver_binary(self, *args: Any, **kwargs: Any) -> None:
        """Files are never written on the host for a remote player."""
        raise RuntimeError("no file delivery over SSH")
