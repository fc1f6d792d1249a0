"""Plain-words narration of the rules core's events.

One narrator serves `cantina watch`, the app's scrolling log and remote screens, so an
event reads the same everywhere. Names are passed in as plain strings; callers that show
them in a UI must render them as text, not markup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

from cantina.games import events as common
from cantina.games import valdes, victim, vigo
from cantina.games.dice import Colour

CALL_WORD = valdes.CALL_NAMES
SUPPORT_FACES = {
    "green": "add half a d12, rounded down",
    "red": "take off half a d12, rounded up",
    "white": "no effect",
}
"""What a face of the Support or Sabotage die does (VI-5)."""
NEUTRAL_FACES = {
    "red": "roll it once more",
    "white": "no effect",
}
"""What a first roll of the Neutral die does (VI-6); it never touches a battle total."""


NO_DIE_CHANGES_IT = " No Support or Sabotage die can change that."
"""A remark after what happened, not a thing that happened: a count goes before it."""
REMARKS = (NO_DIE_CHANGES_IT,)


def counted(line: str, times: int) -> str:
    """`line` with how many times it happened, when more than once: 'No split: … (6 times).'
    A remark after it keeps its place: '… double one (2 times)! No Support or Sabotage die
    can change that.', not '… can change that (2 times).', which counted the remark."""
    if times < 2:
        return line
    remark = next((r for r in REMARKS if line.endswith(r)), "")
    line = line[: len(line) - len(remark)]
    body, end = (line[:-1], line[-1]) if line[-1:] in ".!" else (line, "")
    return f"{body} ({times} times){end}{remark}"


class Narrator:
    """Turns events into sentences, naming seats by the roster's names."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)

    def possessive(self, seat: Any) -> str:
        name = self.name(seat)
        return "Your" if name == "You" else f"{name}'s"

    def name(self, seat: Any) -> str:
        if seat == common.POT:
            return "the pot"
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat + 1}"

    def names_of(self, seats: Sequence[int]) -> str:
        """'Ana', 'Ana and Bo', 'Ana, Bo and Cy'."""
        named = [self.name(seat) for seat in seats]
        if len(named) < 2:
            return "".join(named)
        return f"{', '.join(named[:-1])} and {named[-1]}"

    def __call__(self, event: common.Event) -> str | None:
        """One line for `event`, or None for events a reader does not need spelled out."""
        handler = _HANDLERS.get(type(event))
        return handler(self, event) if handler else None

    def moments(self, moments: Iterable[tuple[common.Event, int]]) -> list[str]:
        """A result's key moments, each (event, times) told once with its count."""
        return [counted(line, times) for event, times in moments if (line := self(event))]

    # --- shared events -------------------------------------------------------------------

    def rolled(self, e: common.Rolled) -> str | None:
        who = self.name(e.seat)
        match e.why:
            case "favor":
                return f"{who}, the Vigo, rolls the favor: {e.face}."
            case "challenge favor":
                return f"{who} rolls a fresh favor for the challenge: {e.face}."
            case "seeking favor":
                return f"{who} rolls {e.face}."
            case "challenge":
                return f"{who} rolls for the whole pot: {e.face}."
            case "reveal":
                return f"{who} lifts the cup: {e.face} ({CALL_WORD[cast(Colour, e.face)]})."
            case "initiative" | "initiative re-roll":
                return f"{who} rolls {e.face} for first Attacker."
            case "battle":
                return None  # all four told in one line by the BattleDice after them
            case "support" if e.face in SUPPORT_FACES:
                return f"{who} rolls the {e.die} die: {e.face} ({SUPPORT_FACES[str(e.face)]})."
            case "neutral" if e.face in NEUTRAL_FACES:
                return f"{who} rolls the neutral die: {e.face} ({NEUTRAL_FACES[str(e.face)]})."
            case "neutral again":
                return f"{who} rolls the neutral die again: {e.face}."
            case "add half" | "subtract half":
                return f"{who} rolls the d12: {e.face}."
            case _:
                return f"{who} rolls the {e.die} die: {e.face}."

    def transfer(self, e: common.Transfer) -> str:
        credits = f"{e.amount} credit{'s' if e.amount != 1 else ''}"
        source, target = self.name(e.source), self.name(e.target)
        if e.target == common.POT:
            return f"{source} puts {credits} into the pot ({e.why})."
        if e.source == common.POT:
            return f"{target} takes {credits} from the pot ({e.why})."
        return f"{source} pays {target} {credits} ({e.why})."

    def sat_out(self, e: common.SatOut) -> str:
        who = f"{self.name(e.seat)} sits this {e.span} out"
        if e.ante > e.bank:  # for want of credits (VF-2, VD-6): say how short it fell
            bank = f"a bank of {e.bank}" if e.bank else "an empty bank"
            return f"{who}: {bank} cannot cover the ante of {e.ante}."
        return f"{who}: {e.why}."

    def eliminated(self, e: common.Eliminated) -> str:
        return f"{self.name(e.seat)} is out ({e.why})."

    def health(self, e: common.HealthChanged) -> str:
        return f"{self.name(e.seat)} loses {-e.delta} health ({e.why}): {e.health} left."

    def scored(self, e: common.Scored) -> str:
        return f"{self.name(e.seat)} scores {e.points} ({e.why}): {e.total} in all."

    def game_over(self, e: common.GameOver) -> str:
        if not e.winners:
            return "It is over, and nobody wins outright."
        verb = "comes" if len(e.winners) == 1 else "come"
        line = f"It is over: {self.names_of(e.winners)} {verb} out ahead"
        if e.losers:
            lose = "loses" if len(e.losers) == 1 else "lose"
            line += f"; {self.names_of(e.losers)} {lose}"
        return line + "."

    # --- Vigo's Favor --------------------------------------------------------------------

    def stake_set(self, e: vigo.StakeSet) -> str:
        return f"{self.name(e.vigo)}, the Vigo, sets the stake at {e.stake}."

    def in_favor(self, e: vigo.InFavor) -> str:
        how = "buys mercy and stays" if e.mercy else "stays"
        return f"{self.name(e.seat)} {how} in favor."

    def voted(self, e: vigo.Voted) -> str:
        return f"{self.name(e.seat)} votes to {'split' if e.split else 'roll again'}."

    def roll_again(self, e: vigo.RollAgain) -> str:
        who = ", ".join(self.name(s) for s in e.seats)
        return f"No split: {who} roll again at a stake of {e.stake}."

    def vigo_short(self, e: vigo.VigoShort) -> str:
        had = f"only {e.paid}" if e.paid else "nothing"
        return (
            f"{self.name(e.vigo)}, the Vigo, owes {e.due} (one stake per survivor) but had "
            f"{had}, so {self.names_of(e.seats)} split the pot at once, without a vote."
        )

    def challenged(self, e: vigo.Challenged) -> str:
        return f"{self.name(e.seat)} challenges fate instead of claiming."

    def raised(self, e: vigo.Raised) -> str:
        return f"The Vigo raises {e.stakes} stake{'s' if e.stakes != 1 else ''} ({e.credits})."

    def title(self, e: vigo.TitlePassed) -> str:
        return f"The title of Vigo passes to {self.name(e.target)}."

    # --- Val-Des -------------------------------------------------------------------------

    def set_started(self, e: valdes.SetStarted) -> str:
        kind = "Tie-break set" if e.tie_break else "Set"
        return f"{kind} {e.set_number}: {self.name(e.caster)} shakes the cup."

    def called(self, e: valdes.Called) -> str:
        return f"{self.name(e.seat)} calls {CALL_WORD[e.colour]}."

    def tie_break(self, e: valdes.TieBreak) -> str:
        return f"Tied at the top: {', '.join(self.name(s) for s in e.seats)} play on."

    # --- Victim! -------------------------------------------------------------------------

    def roles(self, e: victim.RolesSet) -> str:
        return (
            f"Attacker {self.name(e.attacker)}, Supporter {self.name(e.supporter)}, "
            f"Victim {self.name(e.victim)}."
        )

    def planned(self, e: victim.Planned) -> str:
        return f"{self.name(e.seat)} lays down two cards, face down."

    def revealed(self, e: victim.Revealed) -> str:
        return (
            f"{self.name(e.seat)} reveals {e.direction}, {e.die}: aimed at {self.name(e.target)}."
        )

    def battle_dice(self, e: victim.BattleDice) -> str:
        (a1, a2), (v1, v2) = e.attacker_dice, e.victim_dice
        return (
            f"Attacker {self.name(e.attacker)} rolls {a1} and {a2} ({a1 + a2}); "
            f"Victim {self.name(e.victim)} rolls {v1} and {v2} ({v1 + v2})."
        )

    def automatic(self, e: victim.AutomaticWin) -> str:
        why = " and ".join(
            w
            for w, hit in (
                ("double six", e.attacker_double_six),
                ("double one", e.victim_double_one),
            )
            if hit
        )
        return f"Automatic win for the Attacker: {why}!{NO_DIE_CHANGES_IT}"

    def modified(self, e: victim.Modified) -> str:
        sign = "+" if e.delta >= 0 else ""
        return f"{self.possessive(e.target)} total {sign}{e.delta}, now {e.total}."

    def spared(self, e: victim.NeutralSpared) -> str:
        return (
            f"Red twice, yet {self.name(e.seat)} takes no damage: the Neutral die never hurts "
            f"a Supporter who has only {e.health} health left."
        )

    def fallen(self, e: victim.Fallen) -> str:
        victim_ = self.name(e.victim)
        return (
            f"Victim {victim_} has no health left: Attacker {self.name(e.attacker)} wins the "
            f"match, and Victim {victim_} and Supporter {self.name(e.supporter)} both lose it."
        )

    def battle(self, e: victim.BattleResult) -> str:
        if e.hit:
            verdict = "a hit"
        elif e.attacker_total == e.victim_total:
            verdict = "no hit (a tie is not enough)"
        else:
            verdict = "no hit"
        return f"Battle: Attacker {e.attacker_total} against Victim {e.victim_total}, {verdict}."


_HANDLERS: dict[type, Callable[[Narrator, Any], str | None]] = {
    common.Rolled: Narrator.rolled,
    common.Transfer: Narrator.transfer,
    common.SatOut: Narrator.sat_out,
    common.Eliminated: Narrator.eliminated,
    common.HealthChanged: Narrator.health,
    common.Scored: Narrator.scored,
    common.GameOver: Narrator.game_over,
    vigo.StakeSet: Narrator.stake_set,
    vigo.InFavor: Narrator.in_favor,
    vigo.Voted: Narrator.voted,
    vigo.RollAgain: Narrator.roll_again,
    vigo.VigoShort: Narrator.vigo_short,
    vigo.Challenged: Narrator.challenged,
    vigo.Raised: Narrator.raised,
    vigo.TitlePassed: Narrator.title,
    valdes.SetStarted: Narrator.set_started,
    valdes.Called: Narrator.called,
    valdes.TieBreak: Narrator.tie_break,
    victim.RolesSet: Narrator.roles,
    victim.Planned: Narrator.planned,
    victim.Revealed: Narrator.revealed,
    victim.BattleDice: Narrator.battle_dice,
    victim.AutomaticWin: Narrator.automatic,
    victim.Modified: Narrator.modified,
    victim.NeutralSpared: Narrator.spared,
    victim.Fallen: Narrator.fallen,
    victim.BattleResult: Narrator.battle,
}
