"""`python -m prmkit ...`: the `prmkit` command, for an environment whose scripts folder is not on PATH."""

from prmkit.cli.main import main

raise SystemExit(main())
