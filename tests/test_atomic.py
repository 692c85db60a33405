"""solver.atomic: a write either lands whole or leaves the previous file (and no temporary)."""
import numpy as np
import pytest

from solver.atomic import atomic_file, atomic_write_bytes, atomic_write_npz


def test_a_write_replaces_the_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "deep" / "summary.json"
    atomic_write_bytes(target, b"first")
    atomic_write_bytes(target, b"second")
    assert target.read_bytes() == b"second"
    assert [p.name for p in target.parent.iterdir()] == ["summary.json"]


def test_a_write_that_fails_leaves_the_previous_file_and_no_temporary(tmp_path):
    target = tmp_path / "curve.csv"
    atomic_write_bytes(target, b"kept")
    with pytest.raises(RuntimeError):
        with atomic_file(target) as handle:
            handle.write(b"half of a new file")
            raise RuntimeError("killed mid-write")
    assert target.read_bytes() == b"kept"
    assert [p.name for p in tmp_path.iterdir()] == ["curve.csv"]


def test_an_npz_is_written_whole(tmp_path):
    target = tmp_path / "strategy.npz"
    atomic_write_npz(target, {"a": np.arange(5), "b": np.ones(3, np.float32)}, compressed=True)
    with np.load(target) as arrays:
        assert arrays["a"].tolist() == [0, 1, 2, 3, 4]
        assert arrays["b"].dtype == np.float32
