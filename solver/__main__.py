"""`python -m solver` is the `tricksolver` command."""
from solver.cli import main

raise SystemExit(main())
