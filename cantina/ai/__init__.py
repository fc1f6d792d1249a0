"""AI seats: temperaments as data, exact odds, and the policy that turns both into choices.

Part of the rules core: nothing here imports textual. Every random choice an AI makes is
drawn from the table's own dice, so replays and resumed saves hold.
"""
