#!/usr/bin/env python3
"""Set-up and everyday commands, needing nothing but python3 (with venv and pip).

    python3 dev.py play     set up if needed, then open the cantina (saves in ./saves)
    python3 dev.py test     set up if needed, then lint, check imports and types, run the tests
    python3 dev.py bench    set up if needed, then run the benchmarks

Set-up makes a virtual environment in .venv and installs the project with its
development tools; it runs again only when pyproject.toml changes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".cantina-installed"


def run(*args: str | Path, env: dict[str, str] | None = None) -> None:
    print("+", " ".join(str(a) for a in args), flush=True)
    done = subprocess.run([str(a) for a in args], cwd=ROOT, env=env)
    if done.returncode:
        raise SystemExit(done.returncode)


def setup() -> None:
    """Create .venv and install the project, unless pyproject.toml is unchanged since."""
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    if not (BIN / "python").exists():
        print(f"Creating a virtual environment in {VENV}", flush=True)
        venv.create(VENV, with_pip=True)
    run(BIN / "python", "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    run(BIN / "python", "-m", "pip", "install", "--quiet", "-e", ".[dev]")
    STAMP.write_text(wanted)


def play(args: list[str]) -> None:
    env = dict(os.environ)
    env.setdefault("CANTINA_SAVE_DIR", str(ROOT / "saves"))
    run(BIN / "cantina", *args, env=env)


def test(args: list[str]) -> None:
    run(BIN / "ruff", "check", ".")
    run(BIN / "ruff", "format", "--check", ".")
    run(BIN / "lint-imports")
    run(BIN / "mypy")
    run(BIN / "python", "-m", "pytest", *args)


def bench(args: list[str]) -> None:
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        run(BIN / "python", script, *args)


COMMANDS = {"play": play, "test": test, "bench": bench}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        raise SystemExit(2)
    setup()
    COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
