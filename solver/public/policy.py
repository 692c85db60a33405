"""Reading a public-tree solution where a player stands: by a concrete state, or by what he
sees in words.

A decision of the public engine is a public node of a sub-game's play tree and the actor's
entry there (his unplayed classes and the classes he covered, in order; `solver.public.tree`),
or, in Le Truc, a row of the redeal talk before the play tree (`solver.public.redeal`). Two
ways lead to it:

* `locate` and `SolutionPolicy`: a concrete state of the isomorphic Truco game (the vira picks
  the sub-game, `games.truco.ViraGame`; bets are edges as themselves, a face-up card its
  class's edge, every covered play the one covered edge). `SolutionPolicy` makes a solution an
  OpenSpiel policy, so every OpenSpiel tool and the history engine's exact best response read
  it; the tests pin the two engines to each other through it.
* `find_spot`: the player's hand and the actions so far as the game names them (`Raise`,
  `Play 7`, `Play Ks covered` for his own covered card, `Play covered` for the opponent's), or
  an information state string (`spot_of_info_state`), which is the same thing written by the
  game. `tricksolver show` reads solutions this way, and the tests resolve every information
  state of the history tree through it.
"""
from __future__ import annotations

import dataclasses

import numpy as np
from open_spiel.python import policy as openspiel_policy

from games import truco
from solver.public.cfr import PublicSolver, _row_policies
from solver.public.redeal import TALK, TALK_ACTIONS
from solver.public.tree import COVERED_EDGE, Entry, is_terminal


def locate(state, player: int) -> tuple[int, list[int], tuple]:
    """(vira rank, the play tree's edge actions so far, the player's entry) of a Truco state."""
    rules, record = state.rules, state.record
    edges, covered = [], []
    for seat, action, item in record.history_items:
        if action < truco.CARD_ACTION_BASE and action != truco.PLAY_LAST_COVERED:
            edges.append(action)
            continue
        face_down = (action == truco.PLAY_LAST_COVERED
                     or action >= truco.CARD_ACTION_BASE + rules.num_items)
        edges.append(COVERED_EDGE if face_down else truco.CARD_ACTION_BASE + item)
        if face_down and seat == player:
            covered.append(item)
    return record.vira, edges, (tuple(sorted(record.hands[player])), tuple(covered))


class SolutionPolicy(openspiel_policy.Policy):
    """The average policy of one `PublicSolver` per vira class, as an OpenSpiel policy."""

    def __init__(self, game, solvers: list[PublicSolver]):
        super().__init__(game, [0, 1])
        self.solvers = {solver.part.vira: solver for solver in solvers}

    def action_probabilities(self, state, player_id=None):
        player = state.current_player() if player_id is None else player_id
        vira, edges, entry = locate(state, player)
        return self.solvers[vira].row_probabilities("play", edges, player, entry)


# --- by what the player sees ---------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Spot:
    """One decision of a public solution. branch: the copy of the play tree
    (`PublicSolver.branches`) or TALK; node: the play tree's node, or the talk's row (0: the
    non-dealer asks, 1: the dealer answers); hand: the actor's hand as dealt (after a redeal,
    the new one); entry: his (unplayed classes, covered classes), in the talk (hand, ());
    columns and actions: the row's action names and OpenSpiel actions; history: the actions so
    far as `seat:name`."""

    player: int
    branch: str
    node: int
    hand: tuple[int, ...]
    entry: Entry
    columns: tuple[str, ...]
    actions: tuple[int, ...]
    history: tuple[str, ...]


def parse_hand(solver: PublicSolver, text: str) -> tuple[int, ...]:
    """A hand named by its cards (`7 A 9`; Truco classes as the game names them: `Ks 6 4`) as
    sorted classes (ValueError naming the cards allowed)."""
    part = solver.part
    by_name = {part.class_name(c): c for c in range(len(part.class_counts))}
    unknown = [name for name in text.split() if name not in by_name]
    where = f" with {part.label}" if part.label else ""
    if unknown:
        raise ValueError(f"{unknown[0]!r} is not a card{where}; the cards are "
                         f"{' '.join(by_name)}")
    hand = tuple(sorted(by_name[name] for name in text.split()))
    if hand not in solver.tree.hands:
        raise ValueError(f"{text!r} is not a hand of this game{where} (hands hold "
                         f"{part.hand_size} cards, at most as many of a kind as the deck has)")
    return hand


def find_spot(solver: PublicSolver, hand: tuple[int, ...], names: list[str],
              player: int | None = None) -> Spot:
    """The decision of the player holding `hand` (sorted classes, as dealt; after a redeal, the
    new hand) after the actions `names` (ValueError saying what does not fit)."""
    branch, talked = solver.branch_of(names)
    history = tuple(f"{solver.talk_seat(k)}:{name}" for k, name in enumerate(names[:talked]))
    if branch == TALK:
        return _talk_spot(solver, hand, talked, player, history)
    node, steps = _walk(solver, names[talked:], history)
    if is_terminal(node):
        raise ValueError(f"the hand is over after {', '.join(names)!r}")
    actor = int(solver.tree.node_player[node])
    if player is not None and player != actor:
        raise ValueError(f"after {', '.join(names) or 'the deal'!r} player {actor} acts, "
                         f"not player {player}")
    entry = _entry_after(solver, hand, actor, steps)
    tree = solver.tree
    tree.entry_index(int(tree.node_list[node, actor]), entry)  # ValueError if impossible
    actions = tuple(tree.row_actions(solver.part, node, entry))
    columns = _columns(solver, node, entry)
    seen = tuple(f"{seat}:{name if seat == actor or card != COVERED_EDGE else 'Play covered'}"
                 for seat, name, card in steps)
    return Spot(actor, branch, node, hand, entry, columns, actions, history + seen)


def spot_of_info_state(solver: PublicSolver, text: str) -> Spot:
    """The decision at an information state string of the isomorphic game
    (`p1 | vira J | hand Ks 6 4 | 0:Play 3`; after a redeal the last `hand` is the new one)."""
    parts = text.split(" | ")
    if not parts[0][1:].isdigit() or parts[0][0] != "p":
        raise ValueError(f"not an information state: {text!r} (they start `p0 | ` or `p1 | `)")
    hand, names = None, []
    for part in parts[1:]:
        if part.startswith("hand "):
            hand = part.removeprefix("hand ")
        elif part.startswith("vira "):
            if part != solver.part.label:
                raise ValueError(f"{text!r} is a decision with {part}, this is {solver.part.label}")
        else:
            names += [action.split(":", 1)[-1] for action in part.split(", ")]
    if hand is None:
        raise ValueError(f"not an information state: {text!r} (no `hand ...` part)")
    return find_spot(solver, parse_hand(solver, hand), names, int(parts[0][1:]))


def spot_policy(solver: PublicSolver, spot: Spot) -> np.ndarray:
    """The average policy at a decision, column by column (`Spot.columns`)."""
    if spot.branch == TALK:
        hand = solver.tree.hands.index(spot.entry[0])
        return _row_policies(solver.talk_average[spot.node])[hand]
    return solver.row_policy(spot.branch, spot.node, spot.entry)


def info_state_probabilities(solver: PublicSolver, text: str) -> dict[int, float]:
    """{OpenSpiel action: probability} of the average policy at an information state string."""
    spot = spot_of_info_state(solver, text)
    return dict(zip(spot.actions, map(float, spot_policy(solver, spot))))


def _talk_spot(solver, hand, row: int, player, history) -> Spot:
    actor = solver.talk_seat(row)
    if player is not None and player != actor:
        raise ValueError(f"at that point of the redeal talk player {actor} speaks, not "
                         f"player {player}")
    actions = TALK_ACTIONS[row]
    return Spot(actor, TALK, row, hand, (hand, ()), tuple(map(solver.part.bet_name, actions)),
                actions, history)


def _walk(solver, names: list[str], before: tuple[str, ...]):
    """(node, [(actor, name, card)]) after the play's action names from the root; card: the
    class played face up, COVERED_EDGE for a covered card, None for a bet."""
    tree, node, steps = solver.tree, 0, []
    for name in names:
        if is_terminal(node):
            raise ValueError(f"the hand is over before {name!r}")
        actor = int(tree.node_player[node])
        options = _edge_options(solver, node)
        chosen = [edge for edge, (label, _) in options.items()
                  if _names_edge(solver, name, label)]
        if not chosen:
            so_far = ", ".join(list(before) + [f"{s}:{n}" for s, n, _ in steps]) or "the deal"
            raise ValueError(f"{name!r} is not an action after {so_far}; the actions there: "
                             f"{', '.join(label for label, _ in options.values())}")
        steps.append((actor, name, options[chosen[0]][1]))
        node = int(tree.child[chosen[0]])
    return node, steps


def _edge_options(solver, node: int) -> dict[int, tuple[str, int | None]]:
    """{edge: (its action's name, card)} at a decision node (card as in `_walk`; the covered
    edge is named `Play covered`)."""
    tree, part = solver.tree, solver.part
    first, end = int(tree.child_start[node]), int(tree.child_start[node + 1])
    classes = {part.card_action(c, False, False): c for c in range(len(part.class_counts))}
    options = {}
    for edge in range(first, end):
        action = int(tree.edge_action[edge])
        if edge - first < tree.node_nbet[node]:
            options[edge] = (part.bet_name(action), None)
        elif action == COVERED_EDGE:
            options[edge] = ("Play covered", COVERED_EDGE)
        else:
            options[edge] = (f"Play {part.class_name(classes[action])}", classes[action])
    return options


def _names_edge(solver, name: str, label: str) -> bool:
    """Whether an action name the player wrote is the edge `label` (`Play X covered` names
    the covered edge with the card the player covered)."""
    if label != "Play covered" or not name.endswith(" covered"):
        return name == label
    card = name.removeprefix("Play ").removesuffix(" covered")
    return name == label or card in map(solver.part.class_name,
                                        range(len(solver.part.class_counts)))


def _entry_after(solver, hand, player: int, steps) -> Entry:
    """The player's (unplayed, covered) classes after his own plays among `steps`."""
    part = solver.part
    by_name = {part.class_name(c): c for c in range(len(part.class_counts))}
    unplayed, covered = list(hand), []
    for seat, name, card in steps:
        if seat != player or card is None:
            continue
        if card == COVERED_EDGE:
            shown = name.removeprefix("Play ").removesuffix(" covered")
            if shown == "covered" and len(unplayed) != 1:
                raise ValueError(f"say which card player {player} covered, e.g. "
                                 f"'Play {part.class_name(unplayed[0])} covered'")
            card = unplayed[0] if shown == "covered" else by_name[shown]
        if card not in unplayed:
            raise ValueError(f"player {player} plays {part.class_name(card)} but holds "
                             f"{' '.join(part.class_name(c) for c in unplayed)}")
        unplayed.remove(card)
        if name.endswith(" covered"):
            covered.append(card)
    return tuple(sorted(unplayed)), tuple(covered)


def _columns(solver, node: int, entry: Entry) -> tuple[str, ...]:
    """The action names of the entry's row at a decision node, column by column."""
    tree, part = solver.tree, solver.part
    first = int(tree.child_start[node])
    bets = [part.bet_name(int(tree.edge_action[first + k])) for k in range(tree.node_nbet[node])]
    cards = [part.class_name(c) for c in sorted(set(entry[0]))]
    card_turn = int(tree.node_card_turn[node])
    return tuple(bets + [f"Play {c}" for c in cards][:len(cards) * min(card_turn, 1)]
                 + [f"Play {c} covered" for c in cards][:len(cards) * max(card_turn - 1, 0)])
