"""Strategies in a compact form, small enough to commit: every row quantised to steps of 1/255.

A strategy.npz keeps what the solver ends with: float64 probabilities and the information state
strings in fixed-width 4-byte unicode (history engine), or every play-tree copy's float64
average sums (public engine). That is more precision than a strategy has meaning (its exploitability is
1e-5 to 1e-3 points per hand), and the full-size games' files are too big to commit. The compact
file beside it, `strategy.q8.npz.xz`, is an npz compressed with xz (`xz -d` gives a plain npz):

  format         "tricksolver-q8"; engine "history" or "public"; game_string
  history        info_state_text (the strings in utf8, joined), info_state_lengths (int32,
                 characters each), infoset_player, action_counts (int32 per row), actions,
                 q (uint8 per action)
  public         talk_q (uint8, the redeal talk's rows, shaped like `PublicPolicy.talk`),
                 q (uint8, every copy's table, laid out as `PublicPolicy.sums`)

Quantisation: a row (one information state's actions) of probabilities p_i (the public
engine's average sums normalised) becomes integers q_i >= 0 with sum q_i = 255 exactly, by
largest-remainder rounding of 255 p_i: each q_i is floor(255 p_i) or one more, the row's missing
units going to the largest remainders (ties: the first column). Loading gives back an ordinary
`AveragePolicy` (probabilities q_i / 255) or `PublicPolicy` (sums q_i / 255), so every consumer
reads it unchanged; every probability is within 1/255 of the original's (|error| < 1/255). A
public row whose sums are all zero (never reached by the average policy) stays all zero: it
reads as uniform, as it did.

The error bound: a row's errors sum to zero, so its total variation is below floor(W/2)/255
(W: the row's width). Changing one player's rows moves the distribution over terminal
histories, against any fixed opponent strategy, by at most the sum of the changed rows' total
variations along the way, so each best-response value moves by less than R * D * floor(W/2)/255
and so does the exploitability (R: the game's payoff range, D: the most decisions one player
makes in a hand, W: the widest row). Sound but loose (Le Truc's R = 24: over a point per
hand), so `tricksolver compact` measures the compact strategy's exploitability exactly and
records it beside the original's in summary.json.

Codec, measured on these arrays (bytes): results/le_truc/small (history engine, 92,628
information states; strategy.npz 1,111,783): np.savez_compressed 432,108, xz -9 of the plain
npz 278,612, xz -9e 116,352 (the information state strings are two thirds of it). A vira class
of results/truco/paulista_eleven (public engine, 11.6 M table entries; strategy.npz 2,840,559):
np.savez_compressed 323,058, xz -9 163,520, xz -9e 149,200. Hence xz at preset 9 extreme
(about 1 MB of npz a second to write, quick to read; its CRC64 check catches a damaged file).
"""
from __future__ import annotations

import io
import lzma
import zipfile

import numpy as np
from numba import njit

from solver.history.policy import AveragePolicy
from solver.public.cfr import PublicPolicy
from solver.public.tree import PlayTree

COMPACT_FILE = "strategy.q8.npz.xz"
FORMAT = "tricksolver-q8"
STEPS = 255
STEP_TEXT = f"1/{STEPS}"
XZ_PRESET = 9 | lzma.PRESET_EXTREME


@njit(cache=True)
def _quantise_rows(values, starts, widths, out):
    """out[row] = largest-remainder rounding of STEPS x values[row] / its total (module
    docstring); rows with no positive total stay zero. values float64, out uint8, flat."""
    for row in range(starts.shape[0]):
        start, width = starts[row], widths[row]
        total = 0.0
        for i in range(start, start + width):
            total += values[i]
        if total <= 0.0:
            continue
        remainders = np.empty(width)
        missing = STEPS
        for i in range(width):
            scaled = STEPS * values[start + i] / total
            whole = int(min(np.floor(scaled), float(STEPS)))
            out[start + i] = whole
            remainders[i] = scaled - whole
            missing -= whole
        for _ in range(missing):
            best = np.argmax(remainders)
            out[start + best] += 1
            remainders[best] = -1.0


def quantise_rows(values: np.ndarray, starts: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """uint8 [len(values)]: each row (`starts`, `widths`: int64, any order) of non-negative
    `values` normalised and rounded to whole steps of 1/255 summing to 255; entries outside
    every row, and rows summing to zero, stay zero."""
    out = np.zeros(values.shape[0], dtype=np.uint8)
    _quantise_rows(np.ascontiguousarray(values, dtype=np.float64),
                   np.asarray(starts, dtype=np.int64), np.asarray(widths, dtype=np.int64), out)
    return out


def public_rows(tree: PlayTree) -> tuple[np.ndarray, np.ndarray]:
    """(first entry, width) of every row of one copy of the play tree's table (player 0's
    table, then player 1's), as the passes read them (`solver.public._kernels._row`)."""
    starts, widths = [], []
    for player, offset in ((0, 0), (1, int(tree.table_size[0]))):
        nodes = np.flatnonzero(tree.node_player == player)
        lists = tree.node_list[nodes, player]
        first = tree.list_start[lists]
        count = tree.list_start[lists + 1] - first
        node = np.repeat(nodes, count)
        x = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
        entry = np.repeat(first, count) + x
        nbet = tree.node_nbet[node].astype(np.int64)
        card_turn = tree.node_card_turn[node].astype(np.int64)
        starts.append(offset + tree.node_table[node] + x * nbet
                      + card_turn * tree.entry_before[entry])
        widths.append(nbet + card_turn * tree.entry_nd[entry])
    return np.concatenate(starts), np.concatenate(widths)


def _history_arrays(policy: AveragePolicy) -> dict[str, np.ndarray]:
    names = policy.info_state_strings()
    counts = np.diff(policy.action_start)
    return {
        "info_state_text": np.frombuffer("".join(names).encode(), dtype=np.uint8),
        "info_state_lengths": np.array([len(name) for name in names], dtype=np.int32),
        "infoset_player": policy.infoset_player,
        "action_counts": counts.astype(np.int32),
        "actions": policy.actions,
        "q": quantise_rows(policy.probabilities, policy.action_start[:-1], counts),
    }


def _public_arrays(policy: PublicPolicy, tree: PlayTree) -> dict[str, np.ndarray]:
    starts, widths = public_rows(tree)
    size = int(tree.table_size.sum())
    if policy.sums.size % size:
        raise ValueError(f"the policy holds {policy.sums.size} sums, not whole copies of "
                         f"the play tree's {size} table entries")
    copies = [quantise_rows(policy.sums[at:at + size], starts, widths)
              for at in range(0, policy.sums.size, size)]
    talk = policy.talk
    width = talk.shape[-1] if talk.size else 1
    talk_q = quantise_rows(talk.ravel(), np.arange(0, talk.size, width),
                           np.full(talk.size // width, width))
    return {"talk_q": talk_q.reshape(talk.shape), "q": np.concatenate(copies)}


def compact_bytes(policy: AveragePolicy | PublicPolicy, tree: PlayTree | None = None) -> bytes:
    """The compact file of `policy` (module docstring); a `PublicPolicy` needs its play
    `tree` (the rows' layout)."""
    if isinstance(policy, AveragePolicy):
        engine, arrays = "history", _history_arrays(policy)
    else:
        engine, arrays = "public", _public_arrays(policy, tree)
    buffer = io.BytesIO()
    np.savez(buffer, format=np.array(FORMAT), engine=np.array(engine),
             game_string=np.array(policy.game_string), **arrays)
    return lzma.compress(buffer.getvalue(), preset=XZ_PRESET)


def policy_from_compact(data: bytes) -> AveragePolicy | PublicPolicy:
    """The policy of a compact file's bytes, dequantised (ValueError, one line, if the bytes
    are not such a file)."""
    try:
        with np.load(io.BytesIO(lzma.decompress(data)), allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in npz.files}
        if str(arrays["format"]) != FORMAT:
            raise ValueError(f"format {str(arrays['format'])!r}, not {FORMAT!r}")
        if str(arrays["engine"]) == "history":
            return _history_policy(arrays)
        return PublicPolicy(str(arrays["game_string"]), _dequantised(arrays["talk_q"]),
                            _dequantised(arrays["q"]))
    except (lzma.LZMAError, OSError, EOFError, zipfile.BadZipFile, KeyError,
            ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"not a compact strategy file ({error})") from error


def _dequantised(q: np.ndarray) -> np.ndarray:
    return q.astype(np.float64) / STEPS


def _history_policy(arrays: dict[str, np.ndarray]) -> AveragePolicy:
    text = arrays["info_state_text"].tobytes().decode()
    ends = np.cumsum(arrays["info_state_lengths"])
    names = [text[end - length:end] for end, length in
             zip(ends.tolist(), arrays["info_state_lengths"].tolist())]
    action_start = np.concatenate([[0], np.cumsum(arrays["action_counts"], dtype=np.int64)])
    return AveragePolicy(str(arrays["game_string"]), arrays["infoset_player"], action_start,
                         arrays["actions"], _dequantised(arrays["q"]), names=names)
