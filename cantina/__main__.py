"""`python -m cantina` runs the same command line as the `cantina` script."""

from cantina.cli import main

raise SystemExit(main())
