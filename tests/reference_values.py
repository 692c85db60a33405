"""Published reference values the solver tests check against, each with its source."""

# Kuhn poker game value for player 0 (the first to act): -1/18.
# Kuhn, H. W. (1950), "A simplified two-person poker", Contributions to the Theory of Games I;
# also OpenSpiel's cfr_test.py (`test_cfr_kuhn_poker`: expected_value -1/18).
KUHN_GAME_VALUE = -1.0 / 18.0

# NashConv of the uniform random policy. OpenSpiel algorithms/exploitability_test.py:
# kuhn_poker 11/12; leduc_poker 4.747222222222222 ("verified in a number of independent code
# bases").
KUHN_UNIFORM_NASH_CONV = 11.0 / 12.0
LEDUC_UNIFORM_NASH_CONV = 4.747222222222222

# NashConv of `policy.FirstActionPolicy` (always the first legal action) in kuhn_poker: 2.
# OpenSpiel algorithms/exploitability_test.py (`test_nash_conv`, kuhn_poker FirstActionPolicy).
KUHN_FIRST_ACTION_NASH_CONV = 2.0
