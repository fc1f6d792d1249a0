"""Dice widgets: a chance cube, a d6, a d12 and Victim!'s custom dice, each one small widget.

Every die is 7 cells wide and 3 rows high and draws itself in `draw()` as a rounded box of
box characters. A face never relies on colour alone (NO_COLOR): the cube shows `R`/`B`, the
d6 pips, the d12 its number and Victim!'s dice `G`/`R`/`W` with a kind marker (`S+`, `S-`,
`N`) in the top edge.

`roll(final)` tumbles a die through random faces of its kind for about 0.45 s times the app's
`animation_speed`, then settles on `final` and posts `Die.Settled`. The tumbling faces come
from a private `random.Random`: they are decoration and never touch the table's dice.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual.dom import NoScreen
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from cantina.games.dice import Colour
from cantina.games.victim import NEUTRAL_DIE, SABOTAGE_DIE, SUPPORT_DIE
from cantina.pace import TUMBLE_SECONDS
from screens.drawing import KeptDrawing

TUMBLE_FRAMES = 8
"""How many random faces a tumble shows before it settles."""

_UI_RANDOM = random.Random()
"""The tumbling faces' own source: never the table's `Dice`, never the global generator."""


def animation_speed(widget: Widget) -> float:
    """The app's animation speed factor for `widget`: 0 means off, 1 normal, 0.5 faster.

    Read from the app's `animation_speed` attribute (1 when it has none); Textual's
    `animation_level == "none"` turns animation off whatever the attribute says.
    """
    try:
        app = widget.app
    except Exception:  # no active app (a widget used outside one): no animation
        return 0.0
    if getattr(app, "animation_level", "full") == "none":
        return 0.0
    try:
        speed = float(getattr(app, "animation_speed", 1.0))
    except (TypeError, ValueError):
        return 1.0
    return speed if speed > 0 else 0.0


class Die(KeptDrawing, Widget):
    """What every die shares: the tumble, `finish()` and the `Settled` message.

    A subclass names its reactive face attribute in `FACE_ATTRIBUTE`, lists the faces a
    tumble may show in `tumble_faces()` and draws the face in `draw()`.
    """

    DEFAULT_CSS = """
    Die {
        width: 7;
        height: 3;
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "die--red",
        "die--blue",
        "die--green",
        "die--white",
        "die--pip",
        "die--number",
        "die--kind",
        "die--unknown",
        "die--rolling",
    }

    FACE_ATTRIBUTE: ClassVar[str] = "face"

    class Settled(Message):
        """A die came to rest after `roll()`: exactly one per call, tumble or not.

        It is posted to the die's screen, which is where it is wanted, and bubbles on from
        there to the app; not from the die up through every container, which cost a
        dozen hand-offs between message queues for each move that rolls six dice."""

        def __init__(self, die: Die, final: Any) -> None:
            super().__init__()
            self.die = die
            """The die that settled."""
            self.final = final
            """The face it settled on (its `face` or `value`)."""

        @property
        def control(self) -> Die:
            return self.die

    def __init__(
        self,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._timer: Timer | None = None
        self._final: Any = None
        self._frames_left = 0

    # --- the tumble ------------------------------------------------------------------

    @property
    def rolling(self) -> bool:
        """True while the die tumbles (drawn in the `die--rolling` style; it also carries
        the CSS class `-rolling`)."""
        return self._timer is not None

    def roll(self, final: Any, *, quick: bool = False) -> None:
        """Tumble, then settle on `final` and post `Die.Settled`.

        With animation off (speed 0 or `animation_level == "none"`), with `quick`, or before
        the die is mounted, the face is set at once and `Settled` is posted at once. Rolling
        again mid-tumble first settles the earlier roll (so it still gets its `Settled`).
        """
        self.finish()
        speed = animation_speed(self)
        if quick or speed <= 0 or not self.is_mounted:
            self._show(final)
            self._settled(final)
            return
        self._final = final
        self._frames_left = TUMBLE_FRAMES - 1
        # The class marks the state for anyone styling dice; the tumble's own look is
        # drawn (`die--rolling`), as restyling six dice by selectors at every roll cost
        # more than drawing the frame they roll in.
        self.set_class(True, "-rolling", update=False)
        self._show(self._random_face())
        interval = TUMBLE_SECONDS * speed / TUMBLE_FRAMES
        self._timer = self.set_interval(interval, self._tumble, name="die-tumble")
        self.refresh()  # drawn tumbling even on the face it showed

    def finish(self) -> None:
        """End a tumble at once on its final face (posting `Settled`); no-op when at rest."""
        if self._timer is None:
            return
        self._timer.stop()
        self._timer = None
        self.set_class(False, "-rolling", update=False)
        final = self._final
        self._final = None
        self._show(final)
        self.refresh()  # drawn at rest even when the last tumbling face was the final one
        self._settled(final)

    def _settled(self, final: Any) -> None:
        try:
            screen = self.screen
        except NoScreen:  # not on a screen (yet): as Textual would, from the die itself
            self.post_message(self.Settled(self, final))
        else:
            screen.post_message(self.Settled(self, final))

    def _tumble(self) -> None:
        if self._timer is None:
            return
        if self._frames_left <= 0:
            self.finish()
            return
        self._frames_left -= 1
        self._show(self._random_face())

    def _random_face(self) -> Any:
        faces = list(dict.fromkeys(self.tumble_faces()))
        current = getattr(self, self.FACE_ATTRIBUTE)
        others = [face for face in faces if face != current] or faces
        return _UI_RANDOM.choice(others)

    def _show(self, face: Any) -> None:
        setattr(self, self.FACE_ATTRIBUTE, face)

    FACES: Sequence[Any] = ()
    """Every face of the die, which a tumble flicks through; each die names its own."""

    def tumble_faces(self) -> Sequence[Any]:
        """The faces a tumble shows (a die whose faces depend on its kind overrides this)."""
        return self.FACES

    def drawing_key(self) -> Any:
        return getattr(self, self.FACE_ATTRIBUTE), self.rolling

    def render(self) -> Text:
        text = self.draw()
        if self.rolling:
            text.stylize_before(self._style("die--rolling"))
        return text

    def draw(self) -> Text:
        """The face on show, boxed (`render` adds the tumble's style); each die draws its
        own faces, and a die that has none is an empty box."""
        return self._boxed(self._centred(""))

    # --- drawing ---------------------------------------------------------------------

    @staticmethod
    def _boxed(body: Text, top: Text | None = None) -> Text:
        """A rounded 7x3 box around a 5-cell `body`; `top` (<= 5 cells) labels the top edge."""
        label = top if top is not None else Text("")
        text = Text("╭")
        text.append_text(label)
        text.append("─" * (5 - label.cell_len) + "╮\n│")
        text.append_text(body)
        text.append("│\n╰─────╯")
        return text

    @staticmethod
    def _centred(symbol: str, style: Style | str = "") -> Text:
        """`symbol` centred in the 5 cells of a one-row face."""
        left = (5 - len(symbol)) // 2
        text = Text(" " * left)
        text.append(symbol, style)
        text.append(" " * (5 - left - len(symbol)))
        return text


class ChanceCube(Die):
    """A chance cube: `face` "red" shows a bold `R`, "blue" a `B`, None a `?`.

    In Val-Des red is Val and blue Des; captions are the screen's business.
    """

    face: reactive[Colour | None] = reactive(None, init=False)

    def __init__(self, face: Colour | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.set_reactive(ChanceCube.face, face)

    FACES = ("red", "blue")

    def draw(self) -> Text:
        if self.face == "red":
            body = self._centred("R", self._style("die--red"))
        elif self.face == "blue":
            body = self._centred("B", self._style("die--blue"))
        else:
            body = self._centred("?", self._style("die--unknown"))
        return self._boxed(body)


_PIPS: dict[int, tuple[str, str, str]] = {
    1: ("     ", "  ●  ", "     "),
    2: ("●    ", "     ", "    ●"),
    3: ("●    ", "  ●  ", "    ●"),
    4: ("●   ●", "     ", "●   ●"),
    5: ("●   ●", "  ●  ", "●   ●"),
    6: ("●   ●", "●   ●", "●   ●"),
}
"""The classic 3x3 pip layouts squeezed into 3 rows of 5 cells."""
_BLANK = ("     ",) * 3


class SixDie(Die):
    """A d6 drawn with pips; `value` None shows a blank face.

    The pips fill all three rows, so the box's top and bottom edges run between them.
    """

    value: reactive[int | None] = reactive(None, init=False)

    FACE_ATTRIBUTE = "value"

    def __init__(self, value: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.set_reactive(SixDie.value, value)

    FACES = range(1, 7)

    def draw(self) -> Text:
        rows = _PIPS.get(self.value, _BLANK) if self.value is not None else _BLANK
        pip = self._style("die--pip")
        edges = (("╭", "─", "╮"), ("│", " ", "│"), ("╰", "─", "╯"))
        text = Text()
        for number, (row, (left, fill, right)) in enumerate(zip(rows, edges, strict=True)):
            if number:
                text.append("\n")
            text.append(left)
            for cell in row:
                if cell == "●":
                    text.append("●", pip)
                else:
                    text.append(fill)
            text.append(right)
        return text


class TwelveDie(Die):
    """A d12 showing its number; `value` None shows a blank face."""

    value: reactive[int | None] = reactive(None, init=False)

    FACE_ATTRIBUTE = "value"

    def __init__(self, value: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.set_reactive(TwelveDie.value, value)

    FACES = range(1, 13)

    def draw(self) -> Text:
        label = "" if self.value is None else str(self.value)
        return self._boxed(self._centred(label, self._style("die--number")))


FACE_DIE_FACES: dict[str, tuple[str, ...]] = {
    "support": SUPPORT_DIE,
    "sabotage": SABOTAGE_DIE,
    "neutral": NEUTRAL_DIE,
    "unknown": ("green", "red", "white"),
}
"""Victim!'s custom dice by kind (VI-5, VI-6), and the die not yet known: until the
Supporter's die is rolled its kind is the Supporter's secret, and a die drawn as one kind
meanwhile would seem to tell it."""


def _check_kind(kind: str) -> None:
    if kind not in FACE_DIE_FACES:
        raise ValueError(f"unknown die kind {kind!r}: expected one of {list(FACE_DIE_FACES)}")


FACE_DIE_MARKERS: dict[str, str] = {
    "support": "S+",
    "sabotage": "S-",
    "neutral": "N",
    "unknown": "",
}
"""The kind marker each custom die shows in its top edge (none while it is not known)."""

_FACE_LETTERS: dict[str, tuple[str, str]] = {
    "green": ("G", "die--green"),
    "red": ("R", "die--red"),
    "white": ("W", "die--white"),
}


class FaceDie(Die):
    """One of Victim!'s custom dice: `FaceDie("support" | "sabotage" | "neutral")`.

    `face` "green"/"red"/"white" shows `G`/`R`/`W`; None a `?`. The top edge carries the
    kind: `S+` support, `S-` sabotage, `N` neutral; nothing for "unknown".
    """

    face: reactive[str | None] = reactive(None, init=False)

    def __init__(self, kind: str, face: str | None = None, **kwargs: Any) -> None:
        _check_kind(kind)
        super().__init__(**kwargs)
        self._kind = kind
        self.set_reactive(FaceDie.face, face)

    @property
    def kind(self) -> str:
        """Which of the three dice this is; it may change, so one widget can show whichever
        die the Supporter rolls (a repaint, where swapping widgets would need a layout)."""
        return self._kind

    @kind.setter
    def kind(self, kind: str) -> None:
        _check_kind(kind)
        if kind != self._kind:
            self._kind = kind
            self.refresh()

    def tumble_faces(self) -> Sequence[str]:
        return FACE_DIE_FACES[self.kind]

    def drawing_key(self) -> Any:
        return self.face, self.kind, self.rolling

    def draw(self) -> Text:
        if self.face in _FACE_LETTERS:
            letter, component = _FACE_LETTERS[self.face]
            body = self._centred(letter, self._style(component))
        else:
            body = self._centred("?", self._style("die--unknown"))
        marker = FACE_DIE_MARKERS[self.kind]
        if not marker:
            return self._boxed(body)
        top = Text(" ")
        top.append(marker, self._style("die--kind"))
        top.append(" ")
        return self._boxed(body, top)
