"""What a command shows on a real terminal (a pty) of the tests': read as it comes."""

from __future__ import annotations

import os
import re
import select


class PtyOutput:
    """The reading end of a pty: `read` takes what the program wrote so far."""

    def __init__(self, master: int) -> None:
        self.master = master
        self.data = b""

    def read(self, seconds: float) -> bool:
        """Wait up to `seconds` for output and keep it; False once the program's end of
        the terminal is closed (it has ended), else True."""
        ready, _, _ = select.select([self.master], [], [], seconds)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # the terminal's other end closed: the program is done
            return False
        self.data += chunk
        return bool(chunk)

    def text(self) -> str:
        """The output less its escape sequences."""
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", self.data.decode(errors="replace"))
