"""`python -m scorebridge`: the `scorebridge` command."""

from ._cli.main import main

raise SystemExit(main())
