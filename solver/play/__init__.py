"""Playing the games: bots (uniform random, a careful-human heuristic, OpenSpiel's IS-MCTS,
Cowling, Powley & Whitehouse 2012), duplicate matches between them with 95% confidence
intervals, and their exact exploitability and losses to an equilibrium (`exploit`)."""
