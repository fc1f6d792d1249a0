"""Victim!: three seats trade the Attacker, Supporter and Victim roles until a Victim falls.

The rulings VI-1 to VI-9 in `shared/rules/RULINGS.md` are the spec this module implements.
Each turn is a single decision: the Supporter's plan (a direction and a die). The plan is
chosen and fully resolved inside one `apply`, so no secret ever sits in the state.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from cantina.games.dice import Dice
from cantina.games.events import Event, GameOver, HealthChanged, Rolled
from cantina.games.table import Action, Decision, Game, IllegalAction, Kind, checked

SUPPORT_DIE = ("green",) * 4 + ("red", "white")
"""VI-5: the Support die leans towards helping its target."""
SABOTAGE_DIE = ("green", "green", "red", "red", "red", "white")
"""VI-5: the Sabotage die leans towards hurting its target."""
NEUTRAL_DIE = ("red",) * 3 + ("white",) * 3
"""VI-6: the Neutral die never touches a battle total; it only risks the Supporter."""

SEATS = 3
NEUTRAL_WOUND = "neutral die showed red twice"
"""Why a Supporter loses health to its own Neutral die (VI-6), as events report it."""
MAX_STARTING_HEALTH = 20
"""Four times the rule's 5, and low enough that the exact odds (cantina.ai.victim_odds)
solve every table in about a second; a hostile save cannot ask for more."""

Seat = Annotated[int, msgspec.Meta(ge=0, le=SEATS - 1)]
Health = Annotated[int, msgspec.Meta(ge=0, le=MAX_STARTING_HEALTH + 1)]
Direction = Literal["left", "right"]
DieCard = Literal["support", "sabotage", "neutral"]
Role = Literal["attacker", "supporter", "victim"]


class VictimSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Table settings chosen before play; the table always has exactly three seats (VI-1)."""

    starting_health: Annotated[
        int,
        msgspec.Meta(
            ge=1,
            le=MAX_STARTING_HEALTH,
            title="Health",
            description="The health each seat starts a match with.",
            extra={"offer": (3, 8)},
        ),
    ] = 5
    rematch_bonus: Annotated[
        bool,
        msgspec.Meta(
            title="Rematch bonus",
            description="In a rematch the last match's Victim starts with one more health.",
        ),
    ] = True
    """VI-2."""


class Plan(Action, frozen=True):
    """The Supporter's two cards: whom to target (VI-3) and which die to roll (VI-5, VI-6)."""

    direction: Direction
    die: DieCard


PLANS: tuple[Plan, ...] = tuple(
    Plan(direction=direction, die=die)
    for direction in ("left", "right")
    for die in ("support", "sabotage", "neutral")
)
"""The six legal plans, built once: every turn offers the same options."""

_DECISIONS = tuple(Decision(seat, Kind.PLAN, PLANS) for seat in range(SEATS))
_SUPPORT_FACES = {"support": SUPPORT_DIE, "sabotage": SABOTAGE_DIE}


class VictimResult(msgspec.Struct, frozen=True, kw_only=True):
    """How a finished game ended (VI-8): the last Attacker won, its Victim and Supporter lost."""

    winner: Seat
    losers: tuple[Seat, Seat]
    turns: Annotated[int, msgspec.Meta(ge=1)]
    victim: Seat
    """The final Victim, who gets the rematch bonus (VI-2)."""


class VictimState(msgspec.Struct, kw_only=True):
    """Everything about a Victim! table between decisions, as plain data.

    There is deliberately no field for the Supporter's plan: it is chosen and revealed in
    the same `apply`, so neither a save file nor a remote screen can leak it.
    """

    settings: VictimSettings
    health: Annotated[list[Health], msgspec.Meta(min_length=SEATS, max_length=SEATS)]
    attacker: Seat
    supporter: Seat
    victim: Seat
    turn: Annotated[int, msgspec.Meta(ge=1)]
    """The number of the current turn (of the last turn once the game is over)."""
    result: VictimResult | None = None


class RolesSet(Event, frozen=True):
    """Who holds which role from now on: at the start and after every rotation (VI-9)."""

    attacker: int
    supporter: int
    victim: int


class Planned(Event, frozen=True):
    """The Supporter has chosen; the choice stays hidden until `Revealed`."""

    seat: int


class Revealed(Event, frozen=True):
    """The Supporter shows the plan, naming the seat the direction points at (VI-3)."""

    seat: int
    direction: Direction
    die: DieCard
    target: int


class BattleDice(Event, frozen=True):
    """Both sides' battle dice, as thrown, before any support: one summary of the four
    `Rolled(..., why="battle")` events just before it (VI-4)."""

    attacker: int
    attacker_dice: tuple[int, int]
    victim: int
    victim_dice: tuple[int, int]


class AutomaticWin(Event, frozen=True):
    """The battle went to the Attacker on the dice alone (VI-4)."""

    attacker_double_six: bool
    victim_double_one: bool


class Modified(Event, frozen=True):
    """A green or red face changed the target's battle total by `delta` (VI-5)."""

    target: int
    delta: int
    total: int


class NeutralSpared(Event, frozen=True):
    """The Neutral die showed red twice, but the Supporter has only `health` (1) left, and
    the Neutral die never takes that last point (VI-6)."""

    seat: int
    health: int


class BattleResult(Event, frozen=True):
    """The totals after support; `hit` means the Victim loses a health (VI-7 or VI-4)."""

    attacker_total: int
    victim_total: int
    hit: bool


class Fallen(Event, frozen=True):
    """VI-8: the Victim has no health left, so the match ends: the Attacker of this turn
    wins, and this turn's Victim and Supporter both lose (the Supporter though unhurt)."""

    victim: int
    attacker: int
    supporter: int


_BATTLE_ROLLS = tuple(
    tuple(Rolled(seat, "d6", face, "battle") for face in range(7)) for seat in range(SEATS)
)
"""Events are frozen values, so each possible battle roll is built once and shared."""


def target_seat(supporter: int, direction: Direction) -> int:
    """The seat a Supporter's direction card points at: Left is the next seat clockwise from
    the Supporter, Right the other one (VI-3). The one place this rule is written."""
    return (supporter + (1 if direction == "left" else 2)) % SEATS


class VictimGame(Game[VictimState]):
    """The Victim! state machine: one pending decision per turn, the Supporter's plan."""

    game_id = "victim"
    state_type = VictimState
    settings_type = VictimSettings
    key_moments = (AutomaticWin, Fallen, GameOver)
    action_type = Plan
    __slots__ = ()

    @classmethod
    def new(
        cls, settings: VictimSettings, dice: Dice, previous_victim: int | None = None
    ) -> VictimGame:
        """Set up a table: initiative rolls (VI-1) and starting health (VI-2)."""
        settings = checked(settings)
        if previous_victim is not None and not 0 <= previous_victim < SEATS:
            raise ValueError(f"previous_victim must be a seat 0 to {SEATS - 1}")
        events: list[Event] = []
        contenders = list(range(SEATS))
        why = "initiative"
        while True:  # only the seats tied for the highest roll again
            rolls = [dice.d6() for _ in contenders]
            events.extend(
                Rolled(seat, "d6", roll, why) for seat, roll in zip(contenders, rolls, strict=True)
            )
            best = max(rolls)
            contenders = [
                seat for seat, roll in zip(contenders, rolls, strict=True) if roll == best
            ]
            if len(contenders) == 1:
                break
            why = "initiative re-roll"
        attacker = contenders[0]
        health = [settings.starting_health] * SEATS
        if previous_victim is not None and settings.rematch_bonus:
            health[previous_victim] += 1
        state = VictimState(
            settings=settings,
            health=health,
            attacker=attacker,
            supporter=(attacker + 1) % SEATS,
            victim=(attacker + 2) % SEATS,
            turn=1,
        )
        events.append(RolesSet(state.attacker, state.supporter, state.victim))
        return cls(state, dice, opening_events=events)

    def rematch(self) -> VictimGame:
        """The next game at the same table: same settings, the same dice carry on (VI-2)."""
        result = self.state.result
        if result is None:
            raise IllegalAction("a rematch can only follow a finished game")
        return type(self).new(self.state.settings, self.dice, previous_victim=result.victim)

    def next_game(self) -> VictimGame:
        return self.rematch()

    @property
    def result(self) -> VictimResult | None:
        return self.state.result

    def target_of(self, direction: Direction) -> int:
        """The seat a direction card points at now (VI-3)."""
        return target_seat(self.state.supporter, direction)

    def role_of(self, seat: int) -> Role:
        """The role `seat` holds this turn, so a screen can say whom a plan targets."""
        state = self.state
        if seat == state.attacker:
            return "attacker"
        if seat == state.supporter:
            return "supporter"
        if seat == state.victim:
            return "victim"
        raise ValueError(f"there is no seat {seat} at a Victim! table")

    def _decide(self) -> Decision | None:
        if self.state.result is not None:
            return None
        return _DECISIONS[self.state.supporter]

    def _act(self, action: Action, events: list[Event]) -> None:
        """Play one whole turn: plan, battle (VI-4), support (VI-5, VI-6), result, rotation."""
        state = self.state
        dice = self.dice
        health = state.health
        attacker, supporter, victim = state.attacker, state.supporter, state.victim
        assert isinstance(action, Plan)  # validated against the options, all plans
        events.append(Planned(supporter))

        a1, a2, v1, v2 = dice.d6(), dice.d6(), dice.d6(), dice.d6()
        attacker_rolls, victim_rolls = _BATTLE_ROLLS[attacker], _BATTLE_ROLLS[victim]
        events += (attacker_rolls[a1], attacker_rolls[a2], victim_rolls[v1], victim_rolls[v2])
        events.append(BattleDice(attacker, (a1, a2), victim, (v1, v2)))
        attack, defence = a1 + a2, v1 + v2
        double_six = a1 == a2 == 6
        double_one = v1 == v2 == 1
        automatic = double_six or double_one
        if automatic:
            events.append(AutomaticWin(double_six, double_one))
            if double_six and double_one:
                _wound(health, victim, events, "double six against double one")
        die = action.die
        target = self.target_of(action.direction)
        events.append(Revealed(supporter, action.direction, die, target))
        if die == "neutral":
            _roll_neutral(dice, health, supporter, events)  # rolled even on an automatic win
        elif not automatic:  # after an automatic win Support and Sabotage could change nothing
            face = dice.face(_SUPPORT_FACES[die])
            events.append(Rolled(supporter, die, face, "support"))
            if face != "white":
                roll = dice.d12()
                if face == "green":
                    events.append(Rolled(supporter, "d12", roll, "add half"))
                    delta = roll // 2
                else:
                    events.append(Rolled(supporter, "d12", roll, "subtract half"))
                    delta = -((roll + 1) // 2)
                if target == attacker:
                    attack += delta
                    total = attack
                else:
                    defence += delta
                    total = defence
                events.append(Modified(target, delta, total))
        hit = automatic or attack > defence
        events.append(BattleResult(attack, defence, hit))
        if hit and health[victim] > 0:
            _wound(health, victim, events, "lost the battle")

        if health[victim] == 0:
            state.result = VictimResult(
                winner=attacker, losers=(victim, supporter), turns=state.turn, victim=victim
            )
            events.append(Fallen(victim, attacker, supporter))
            events.append(GameOver(winners=(attacker,), losers=(victim, supporter)))
            return
        # VI-9: Victim and Supporter swap, then every role moves one seat clockwise.
        state.attacker = (attacker + 1) % SEATS
        state.supporter = (victim + 1) % SEATS
        state.victim = (supporter + 1) % SEATS
        state.turn += 1
        events.append(RolesSet(state.attacker, state.supporter, state.victim))

    def _problems(self) -> list[str]:
        state = self.state
        settings = state.settings
        health = state.health
        problems: list[str] = []
        if state.supporter == state.attacker:
            problems.append("roles must be three different seats - at `$.state.supporter`")
        elif state.victim in (state.attacker, state.supporter):
            problems.append("roles must be three different seats - at `$.state.victim`")
        cap = settings.starting_health + (1 if settings.rematch_bonus else 0)
        for seat, points in enumerate(health):
            if points > cap:
                problems.append(
                    f"health {points} is more than any seat can start with ({cap})"
                    f" - at `$.state.health[{seat}]`"
                )
        if sum(points > settings.starting_health for points in health) > 1:
            problems.append(
                "only one seat (the previous Victim) can have more than the starting health"
                " - at `$.state.health`"
            )
        if problems:
            return problems
        result = state.result
        if result is None:
            problems.extend(
                f"a seat at 0 health means the game is over, but there is no result"
                f" - at `$.state.health[{seat}]`"
                for seat, points in enumerate(health)
                if points == 0
            )
            return problems
        checks = (
            (result.winner == state.attacker, "winner", "the winner must be the last Attacker"),
            (result.victim == state.victim, "victim", "the final Victim must be the last Victim"),
            (
                tuple(result.losers) == (state.victim, state.supporter),
                "losers",
                "the losers must be the last Victim and Supporter",
            ),
            (result.turns == state.turn, "turns", "the turn count must match `$.state.turn`"),
        )
        problems.extend(
            f"{message} - at `$.state.result.{field}`" for ok, field, message in checks if not ok
        )
        for seat, points in enumerate(health):
            if (points == 0) != (seat == state.victim):
                problems.append(
                    "a finished game has exactly its final Victim at 0 health"
                    f" - at `$.state.health[{seat}]`"
                )
        return problems


def _wound(health: list[int], seat: int, events: list[Event], why: str) -> None:
    """Take one health from `seat`, never below 0, and report it."""
    health[seat] -= 1
    events.append(HealthChanged(seat, -1, health[seat], why))


def _roll_neutral(dice: Dice, health: list[int], supporter: int, events: list[Event]) -> None:
    """VI-6: red means roll again; red twice hurts the Supporter unless it has 1 health."""
    face = dice.face(NEUTRAL_DIE)
    events.append(Rolled(supporter, "neutral", face, "neutral"))
    if face != "red":
        return
    face = dice.face(NEUTRAL_DIE)
    events.append(Rolled(supporter, "neutral", face, "neutral again"))
    if face != "red":
        return
    if health[supporter] > 1:
        _wound(health, supporter, events, NEUTRAL_WOUND)
    else:
        events.append(NeutralSpared(supporter, health[supporter]))
