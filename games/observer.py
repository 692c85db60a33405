"""Shared observer plumbing (OpenSpiel's PyObserver): the observation type, one flat tensor with
named, reshaped views."""
from __future__ import annotations

import numpy as np

import pyspiel


def allocate_tensor(pieces) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """A zero float32 tensor and its views; `pieces` lists (name, size, shape) in tensor order."""
    tensor = np.zeros(sum(size for _, size, _ in pieces), np.float32)
    views, index = {}, 0
    for name, size, shape in pieces:
        views[name] = tensor[index:index + size].reshape(shape)
        index += size
    return tensor, views


class Observer:
    """Base of the games' observers (PyObserver interface): which parts of a view to show.

    Attributes set here: `perfect_recall` (information state, else observation), `private`
    (the observing player's own cards), `public` (public information).
    """

    def __init__(self, iig_obs_type, params):
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.public = iig_obs_type.public_info
