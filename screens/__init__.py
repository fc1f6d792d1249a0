"""Textual screens: the cantina menu, one screen per game, and dialogs.

Screens render the rules core's state and events and submit actions; they never decide a
rule. They arrive with the app (see the README's roadmap).
"""
