"""Atomic file writes: a file's new contents replace the old only once written in full.

Every writer goes through a temporary file beside its target, flushed and fsynced, then moved
into place with `os.replace` (atomic on POSIX), so a killed process leaves either the previous
file or the new one, never half of one. Results, checkpoints, the tree cache, tables and
reports all write this way.
"""
from __future__ import annotations

import contextlib
import os
import pathlib

import numpy as np


@contextlib.contextmanager
def atomic_file(path: pathlib.Path):
    """A binary file handle whose contents replace `path` only once written and fsynced (a
    temporary file beside it, then `os.replace`; the temporary file is removed on error)."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(temporary, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def atomic_write_bytes(path: pathlib.Path, data: bytes) -> None:
    """Write `data` to `path` atomically."""
    with atomic_file(path) as handle:
        handle.write(data)


def atomic_write_npz(path: pathlib.Path, arrays: dict[str, np.ndarray],
                     compressed: bool = False) -> None:
    """`np.savez` (or `np.savez_compressed`) of `arrays` to `path`, atomically, streamed to the
    file (a full-size Truco class's tables are 11 GB: no copy in memory)."""
    with atomic_file(path) as handle:
        (np.savez_compressed if compressed else np.savez)(handle, **arrays)
