"""Perfect information Monte Carlo (PIMC) for Two-Ten-Jack: `make_bot("pimc:WORLDS", game, seed)`.

What the field knows. In Bridge, Skat and Schnapsen the strongest card-play programs sample
the hidden cards consistently with what was seen, solve each sample exactly as an open-card
game, and play the action with the best average (Ginsberg 2001, GIB, JAIR 14; Long, Sturtevant,
Buro & Furtak 2010, AAAI, "Understanding the success of perfect information Monte Carlo
sampling in game tree search"), improved by inference over the opponents' likely hands (Skat:
Buro, Long, Furtak & Sturtevant 2009, IJCAI; Solinas, Rebstock & Buro 2019, AAAI,
arXiv:1903.09604; Schnapsen, where hands *and* the stock order are sampled: Wisser 2010,
ICTAI; Wisser 2015, IJCAI). Its known flaws are strategy fusion and non-locality (Frank &
Basin 1998): each sample is solved as if the player knew the hidden cards.

This player, at each decision of the player to move:

1. *Worlds.* Draws `worlds` deals of the cards it has not seen (`sample_world`): the
   opponent's hand and the stock's order, consistent with every card seen and every void
   revealed when the opponent failed to follow (he held none of the led group then, nor a trump
   if he discarded a side card). The opponent's receipts (his dealt cards and one draw per
   trick while the stock lasted) are refilled as the game's own `resample_from_infostate` does,
   without replaying the deal: his played cards into receipts made before he played them, then
   the receipts of the cards he still holds, each from the unseen cards he could have held from
   its arrival on, most constrained first, restarting on a dead end (close to, not exactly, the
   uniform posterior); the cards left over form the stock, uniformly shuffled.
2. *Solving.* Solves each world with the open-card solver (`solver.play.open_card`): every
   legal move's value, by iterative deepening one trick at a time under `node_budget` nodes per
   world (the static evaluation scores the frontier when the stock is too deep to finish).
3. *Choosing.* Plays the move with the best mean value over the worlds (ties: lowest action
   id). Once the stock is empty the unseen cards are the opponent's hand: one world, solved
   exactly (no budget), is the exact best move.

Worlds are split between `threads` solvers (one transposition table each, kernels without the
GIL) in a fixed order, and every world's search starts from an empty table, so a move depends
only on the information state, the seed and the settings: the random numbers come from
`numpy.random.default_rng((seed, crc32 of the information state string))`.

Match awareness (`match_aware`, spec `pimc-match`, or `pimc-match:WORLDS:NODES:NOISE`; off in
`pimc`): in a deal that can end the match (a player's score plus the most a deal can give
reaches the target), each world's deal value v becomes player 0's probability of winning the
match after the deal (`solver.play.match_odds`), averaged over v + e with e normal of standard
deviation `match_noise` (default 4 points; a world's value is an estimate of the deal's
outcome: the world is solved as if both players saw every card), and the player maximises the
mean odds over the worlds rather than the mean points. Without the noise (match_noise=0) the
aware player won no more matches than the plain one from scores near the end (0.475 of them,
95% CI [0.450, 0.500]; results/two_ten_jack/README.md); the default noise is not measured yet.

Inference (`inference_error`, spec `pimc-infer` or `pimc-infer:WORLDS:NODES`; off in `pimc`):
once the opponent has played, the worlds are resampled from `INFERENCE_CANDIDATES_PER_WORLD`
times as many in proportion to how likely his plays were in each under a model of him (the
heuristic, wrong with probability `inference_error`: `solver.play.inference`). Without it, no
inference goes beyond the voids.
"""
from __future__ import annotations

import dataclasses
import functools
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyspiel

from games.two_ten_jack import Trick
from solver.play.inference import inferred_worlds
from solver.play.match_odds import MatchOdds
from solver.play.open_card import OpenCardSolver, Position, cards_of, mask_of

DEFAULT_WORLDS = 32
DEFAULT_NODE_BUDGET = 300_000  # nodes per world: about 1 s per move on two cores
DEFAULT_THREADS = 2
DEFAULT_MATCH_NOISE = 4.0  # points: a world's value as an estimate of the deal's outcome
DEFAULT_INFERENCE_ERROR = 0.1  # how often the opponent model is taken to be wrong (a guess)
INFERENCE_CANDIDATES_PER_WORLD = 4  # receipts drawn per world kept, when inferring
_MAX_ATTEMPTS = 10_000


@dataclasses.dataclass(frozen=True)
class InformationView:
    """What the player to move knows, as the sampler needs it.

    player: the player to move; hand: his hand (bit mask); unseen: the cards he has neither
    held nor seen played (bit mask), which the opponent's hand and the stock share;
    opponent_hand_size, stock_size: how many of them each holds;
    slots: per receipt of the opponent (dealt cards, then draws), the number of tricks completed
      when it arrived;
    plays: (trick index, card) of every card the opponent has played;
    voids: (trick index, bit mask of the cards he cannot have held at that trick);
    lead: the open trick's lead code (-1 if none); points: player 0's points minus player 1's;
    tricks: the tricks so far (`games.two_ten_jack.Trick`), the open one last.
    """

    player: int
    hand: int
    unseen: int
    opponent_hand_size: int
    stock_size: int
    slots: tuple[int, ...]
    plays: tuple[tuple[int, int], ...]
    voids: tuple[tuple[int, int], ...]
    lead: int
    points: int
    tricks: tuple[Trick, ...]


def information_view(state) -> InformationView:
    """The view of the player to move at a decision node of a `python_two_ten_jack` state,
    read from his own cards and the public tricks only."""
    if state.is_chance_node() or state.is_terminal():
        raise ValueError("information_view needs a decision node")
    rules = state.rules
    player = state.current_player()
    opponent = 1 - player
    seen = {card for _, card in state.received[player]}
    plays, voids = [], []
    for index, trick in enumerate(state.tricks):
        seen.add(trick.lead)
        if trick.follow is not None:
            seen.add(trick.follow)
        if trick.leader == opponent:
            plays.append((index, trick.lead))
        elif trick.follow is not None:
            plays.append((index, trick.follow))
            group = rules.follow_group(trick.lead, trick.as_spade)
            if trick.follow not in group:
                if not rules.is_trump(trick.follow):
                    group = group | rules.trumps
                voids.append((index, mask_of(group)))
    unseen = mask_of(c for c in range(rules.num_cards) if c not in seen)
    slots = tuple(tricks_done for tricks_done, _ in state.received[opponent])
    trick = state.open_trick()
    lead = -1 if trick is None else rules.lead_action(trick)
    return InformationView(player, mask_of(state.hands[player]), unseen,
                           len(slots) - len(plays), state.stock_left(), slots, tuple(plays),
                           tuple(voids), lead, state.points[0] - state.points[1],
                           tuple(state.tricks))


def sample_world(view: InformationView, rng: np.random.Generator) -> tuple[int, np.ndarray]:
    """(the opponent's hand as a bit mask, the stock as int64 [stock_size] top first): one deal
    of the unseen cards consistent with `view` (see the module docstring). RuntimeError if no
    consistent deal turns up in 10,000 attempts (the view is inconsistent)."""
    unseen = cards_of(view.unseen)
    if len(unseen) != view.opponent_hand_size + view.stock_size:
        raise ValueError(f"{len(unseen)} unseen cards for a hand of {view.opponent_hand_size} "
                         f"and a stock of {view.stock_size}")
    if not view.voids:
        order = rng.permutation(len(unseen))
        hand = mask_of(unseen[i] for i in order[:view.opponent_hand_size])
        stock = np.array([unseen[i] for i in order[view.opponent_hand_size:]], dtype=np.int64)
        return hand, stock
    hand = _constrained_hand(view, rng)
    rest = [card for card in unseen if not hand >> card & 1]
    stock = np.array(rest, dtype=np.int64)[rng.permutation(len(rest))]
    return hand, stock


def _constrained_hand(view: InformationView, rng: np.random.Generator) -> int:
    """The opponent's hand, his receipts refilled under the voids (see the module docstring)."""
    slots = view.slots
    # A card held now was held at every trick since its arrival.
    held_forbidden = [0] * len(slots)
    for s, arrival in enumerate(slots):
        for trick, void in view.voids:
            if trick >= arrival:
                held_forbidden[s] |= void
    options = []
    for trick, card in view.plays:
        fitting = [s for s, arrival in enumerate(slots) if arrival <= trick and not any(
            arrival <= k < trick and void >> card & 1 for k, void in view.voids)]
        options.append(fitting)
    order = sorted(range(len(view.plays)), key=lambda i: len(options[i]))
    free_order = sorted(range(len(slots)), key=slots.__getitem__)
    for _ in range(_MAX_ATTEMPTS):
        taken = [False] * len(slots)
        dead_end = False
        for i in order:
            free = [s for s in options[i] if not taken[s]]
            if not free:
                dead_end = True
                break
            taken[free[int(rng.integers(len(free)))]] = True
        if dead_end:
            continue
        pool = view.unseen
        hand = 0
        for s in free_order:
            if taken[s]:
                continue
            fitting = cards_of(pool & ~held_forbidden[s])
            if not fitting:
                dead_end = True
                break
            card = fitting[int(rng.integers(len(fitting)))]
            hand |= 1 << card
            pool &= ~(1 << card)
        if not dead_end:
            return hand
    raise RuntimeError("no deal of the unseen cards fits the opponent's plays and voids")


def _gauss_hermite(sd: float) -> tuple[np.ndarray, np.ndarray]:
    """Offsets and weights of a 9-point Gauss-Hermite rule for a normal error of `sd` (one
    point at zero if sd is 0)."""
    if sd <= 0:
        return np.zeros(1), np.ones(1)
    nodes, weights = np.polynomial.hermite_e.hermegauss(9)
    return sd * nodes, weights / weights.sum()


@functools.lru_cache(maxsize=8)
def _match_odds(target: int, pack: int, min_points: int, max_points: int) -> MatchOdds:
    """The match odds of a match to `target`, computed once: every deal of a match (a game
    with other scores and dealer) shares them."""
    return MatchOdds(target, pack, min_points, max_points)


class PIMCBot(pyspiel.Bot):
    """Perfect information Monte Carlo with the open-card solver (see the module docstring).

    worlds: deals sampled per decision; node_budget: nodes searched per world while cards
    remain in the stock; threads: solvers working in parallel; table_bits: log2 of each
    solver's transposition table entries (default: 20 for the full deck, fewer for small ones);
    eval_weights, leader_bonus: the solver's static evaluation (`open_card.CardTables`);
    match_aware: play for the match (its odds, `match_odds.MatchOdds`) in the deals that can end
    it, instead of for the deal's points; match_noise: the standard deviation (points) of a
    world's value as an estimate of the deal's outcome, over which the odds are averaged;
    inference_error: None, or weigh the worlds by the opponent's plays (`solver.play.inference`)
    with this probability that the heuristic model of him is wrong at a decision.
    """

    def __init__(self, game, seed: int, worlds: int = DEFAULT_WORLDS,
                 node_budget: int = DEFAULT_NODE_BUDGET, threads: int = DEFAULT_THREADS,
                 table_bits: int | None = None, eval_weights: dict[str, float] | None = None,
                 leader_bonus: float | None = None, match_aware: bool = False,
                 match_noise: float = DEFAULT_MATCH_NOISE,
                 inference_error: float | None = None):
        """Checks the game and the settings, allocates the solvers."""
        pyspiel.Bot.__init__(self)
        if game.get_type().short_name != "python_two_ten_jack":
            raise ValueError(f"the pimc bot plays python_two_ten_jack only, not {game}")
        if worlds < 1 or node_budget < 1 or threads < 1:
            raise ValueError(f"pimc needs positive worlds, node_budget and threads, got "
                             f"{worlds}, {node_budget}, {threads}")
        if inference_error is not None and not 0.0 < inference_error < 1.0:
            raise ValueError(f"pimc's inference_error must lie strictly between 0 and 1, got "
                             f"{inference_error}")
        self.game = game
        self.seed = seed
        self.worlds = worlds
        self.node_budget = node_budget
        if table_bits is None:
            table_bits = max(10, min(20, 2 * game.rules.num_cards // 5))
        self._solvers = [OpenCardSolver(game, table_bits, eval_weights=eval_weights,
                                        leader_bonus=leader_bonus) for _ in range(threads)]
        self._pool = ThreadPoolExecutor(threads) if threads > 1 else None
        self.match_aware = match_aware
        self.match_noise = match_noise
        self._odds = _match_odds(*MatchOdds.parameters_of(game)) if match_aware else None
        self.inference_error = inference_error

    def __del__(self):
        """Stops the worker threads."""
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown(wait=False)

    def restart_at(self, state):
        """Stateless between moves: nothing to do."""

    def action_probabilities(self, state) -> dict[int, float]:
        """Probability one on `step`'s action."""
        return {self.step(state): 1.0}

    def step(self, state) -> int:
        """The legal action with the best mean value over the sampled worlds: deal points, or,
        when match-aware and this deal can end the match, match-winning odds."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        actions, values = self.world_values(state)
        utility = self._match_utility(state)
        if utility is not None:
            values = utility(values)
        means = values.mean(axis=0)
        best = means.argmax() if state.current_player() == 0 else means.argmin()
        return int(actions[best])

    def action_values(self, state) -> tuple[np.ndarray, np.ndarray]:
        """(legal actions int64 [m] ascending, their mean deal value for player 0 over the
        worlds float64 [m]) at a decision node."""
        actions, values = self.world_values(state)
        return actions, values.mean(axis=0)

    def world_values(self, state) -> tuple[np.ndarray, np.ndarray]:
        """(legal actions int64 [m] ascending, float64 [worlds, m] each action's deal value for
        player 0 in each world) at a decision node; one world once the stock is empty."""
        view = information_view(state)
        if view.stock_size == 0:  # every card is known: one world, solved exactly
            world = (view.unseen, np.zeros(0, dtype=np.int64))
            return self._solve([world], view, budget=None)
        return self._solve(self.sample_worlds(state, view), view, budget=self.node_budget)

    def sample_worlds(self, state, view: InformationView) -> list[tuple[int, np.ndarray]]:
        """`worlds` deals of the unseen cards consistent with the player's information
        (`sample_world`), from a generator seeded by the seed and his information state; with
        inference, once the opponent has played, weighted by his plays
        (`inference.inferred_worlds`)."""
        info = state.information_state_string(view.player)
        rng = np.random.default_rng((self.seed, zlib.crc32(info.encode())))
        if self.inference_error is None or not view.plays:
            return [sample_world(view, rng) for _ in range(self.worlds)]
        return inferred_worlds(view, self.game.rules, self.worlds,
                               INFERENCE_CANDIDATES_PER_WORLD * self.worlds,
                               self.inference_error, rng)

    def _match_utility(self, state):
        """None when playing for points; else a function mapping player 0's deal values to his
        match-winning odds (`match_odds.MatchOdds.deal_value`), when this deal can end the
        match."""
        if not self.match_aware:
            return None
        rules = state.rules
        score0, score1 = rules.scores
        if max(score0, score1) + self._odds.max_points < rules.target:
            return None
        odds, pack = self._odds, self._odds.pack
        offsets, weights = _gauss_hermite(self.match_noise)

        def utility(values: np.ndarray) -> np.ndarray:
            result = np.zeros_like(values)
            for offset, weight in zip(offsets, weights):
                for index, value in np.ndenumerate(values):
                    result[index] += weight * odds.deal_value(
                        score0, score1, rules.dealer, (pack + value + offset) / 2.0)
            return result

        return utility

    def _solve(self, worlds, view: InformationView, budget: int | None):
        """(actions, float64 [len(worlds), m] values), the worlds split between the solvers in
        a fixed order."""
        chunks = [worlds[i::len(self._solvers)] for i in range(len(self._solvers))]
        jobs = [(solver, chunk, view, budget) for solver, chunk in zip(self._solvers, chunks)
                if chunk]
        if self._pool is None or len(jobs) == 1:
            results = [_solve_chunk(*job) for job in jobs]
        else:
            results = list(self._pool.map(lambda job: _solve_chunk(*job), jobs))
        values = np.zeros((len(worlds), len(results[0][0])))
        for i, (_, chunk_values) in enumerate(results):
            values[i::len(self._solvers)] = chunk_values
        return results[0][0], values


class CheaterBot(PIMCBot):
    """PIMC that sees the opponent's hand (`make_bot("cheater:WORLDS:NODES", ...)`): each
    world is his true hand with the stock in a random order (the draws to come are chance: no
    one can see them), so measured against `pimc` it shows what the hidden hand costs. It
    reads the true state, so it plays matches only, not as a policy of information states."""

    sees_hidden_cards = True

    def sample_worlds(self, state, view: InformationView) -> list[tuple[int, np.ndarray]]:
        """`worlds` deals: the opponent's true hand, the other unseen cards shuffled into the
        stock by a generator seeded by the seed, his information state and that hand."""
        hand = mask_of(state.hands[1 - view.player])
        info = state.information_state_string(view.player)
        rng = np.random.default_rng((self.seed, zlib.crc32(info.encode()), hand))
        stock = np.array(cards_of(view.unseen & ~hand), dtype=np.int64)
        return [(hand, stock[rng.permutation(len(stock))]) for _ in range(self.worlds)]


def _solve_chunk(solver: OpenCardSolver, worlds, view: InformationView, budget: int | None):
    """(actions, float64 [len(worlds), m] values) of `worlds` on one solver, each from an
    empty table."""
    actions, rows = None, []
    for opponent_hand, stock in worlds:
        hands = (view.hand, opponent_hand) if view.player == 0 else (opponent_hand, view.hand)
        solver.new_stock()
        moves = solver.move_values(Position(hands, stock, view.lead, view.player, view.points),
                                   node_budget=budget)
        actions = moves.actions
        rows.append(moves.values)
    return actions, np.array(rows)
