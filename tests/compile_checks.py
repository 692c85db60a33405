"""Shared check of the memoized tree compiler against the generic traversal."""
from __future__ import annotations

import numpy as np

from solver.tree import GameTree, compile_game


def assert_memoized_equals_traversal(game_string: str, workers: int) -> None:
    """`compile_game` by subtree key (in `workers` processes) gives the traversal's tree, array
    for array, and the same information state strings."""
    traversed = compile_game(game_string, cache=False, method="traversal")
    memoized = compile_game(game_string, cache=False, method="subtree_key", workers=workers)
    assert memoized.info_state_names is None
    for field in GameTree.__dataclass_fields__:
        if field not in ("game_string", "info_state_names"):
            np.testing.assert_array_equal(getattr(memoized, field), getattr(traversed, field),
                                          err_msg=field)
    assert memoized.info_state_strings() == traversed.info_state_names
