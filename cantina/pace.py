"""How long what happens at a table stays on show, and how long a die tumbles.

Light on purpose: the app reads its pace before the rules core is loaded (the menu comes
first), and the dice widgets take their tumble from here, so a dealer's wait for a roll
and the roll on screen last the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from cantina.games.events import Event, Rolled

TUMBLE_SECONDS = 0.45
"""How long a die tumbles at animation speed 1."""


@dataclass
class Pace:
    """How long what happens stays on show. Shared and changed in place by a settings
    screen; a dealer reads it at every event."""

    beat: float = 0.5
    """Seconds a told event stays before the next is shown, and an AI seat thinks."""
    roll: float = TUMBLE_SECONDS
    """Seconds a die tumbles before it shows its face (0: dice show theirs at once)."""

    def after(self, event: Event, following: Event | None, told: bool) -> float:
        """Seconds to show `event` before `following`: a rolled die until it settles (a
        pair thrown together tumbles as one), a told event one beat (a run of alike
        events, such as the antes, half a beat each)."""
        wait = 0.0
        if isinstance(event, Rolled) and self.roll > 0:
            together = (
                isinstance(following, Rolled)
                and following.seat == event.seat
                and following.why == event.why
            )
            wait = 0.0 if together else self.roll
        if told and self.beat > 0:
            alike = type(following) is type(event) and getattr(following, "why", None) == getattr(
                event, "why", None
            )
            wait = max(wait, self.beat / 2 if alike else self.beat)
        return wait
