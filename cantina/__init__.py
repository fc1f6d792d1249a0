"""Cantina: chance-cube dice games from a space cantina, in the terminal."""

__version__ = "0.1.0"
"""The one place the version is written: pyproject.toml reads it from here, and reading a
literal keeps `importlib.metadata` (about 50 ms) off the start path."""
