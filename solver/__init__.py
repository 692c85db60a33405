"""tricksolver's solver side: everything that computes on the games (never imported by games/)."""
