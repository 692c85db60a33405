"""Shared observer plumbing: one flat tensor with named, reshaped views (OpenSpiel's PyObserver)."""
from __future__ import annotations

import numpy as np


def allocate_tensor(pieces) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """A zero float32 tensor and its views; `pieces` lists (name, size, shape) in tensor order."""
    tensor = np.zeros(sum(size for _, size, _ in pieces), np.float32)
    views, index = {}, 0
    for name, size, shape in pieces:
        views[name] = tensor[index:index + size].reshape(shape)
        index += size
    return tensor, views
