"""The PIMC player (solver.play.pimc): legal and reproducible play, worlds that respect every
void the opponent has shown, and exact play once every card is known."""
import dataclasses
import itertools
import math

import numpy as np
import pyspiel
import pytest
from conftest import apply_named, dealt

import games  # noqa: F401  (registers the games)
from solver.play import exploit, match, to_target
from solver.play.bots import BotPolicy, make_bot, policy_depends_on_seed
from solver.play.match_odds import MatchOdds
from solver.play.open_card import OpenCardSolver, Position, cards_of, mask_of
from solver.play.pimc import CheaterBot, PIMCBot, information_view, sample_world
from solver.play.to_target import match_duel, near_end_starts

FULL = "python_two_ten_jack"
SMALL = "python_two_ten_jack(suits=c:h:s,ranks=2:3:5:T:J:A,hand_size=3)"


def _random_state(game_string, seed, plies, until=None):
    """A decision node after `plies` random plies (chance uniform), or the first one after
    them where `until(state)` holds."""
    state = pyspiel.load_game(game_string).new_initial_state()
    rng = np.random.default_rng(seed)
    count = 0
    while True:
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
            continue
        if state.is_terminal():
            return None
        if count >= plies and (until is None or until(state)):
            return state
        state.apply_action(int(rng.choice(state.legal_actions())))
        count += 1


def feasible(view, hand):
    """Whether the opponent can hold `hand` now: a matching of his receipts to his played cards
    (each received before it was played) and to the cards of `hand` (received any time), no
    card held at a trick where he showed a void of it (bipartite matching, augmenting paths)."""
    items = list(view.plays) + [(None, card) for card in cards_of(hand)]
    if len(items) != len(view.slots):
        return False

    def fits(item, slot):
        played_at, card = item
        arrival = view.slots[slot]
        if played_at is not None and arrival > played_at:
            return False
        end = float("inf") if played_at is None else played_at
        return not any(arrival <= k < end and void >> card & 1 for k, void in view.voids)

    owner = [-1] * len(view.slots)

    def augment(i, visited):
        for slot in range(len(view.slots)):
            if slot not in visited and fits(items[i], slot):
                visited.add(slot)
                if owner[slot] < 0 or augment(owner[slot], visited):
                    owner[slot] = i
                    return True
        return False

    return all(augment(i, set()) for i in range(len(items)))


# --- the sampler ----------------------------------------------------------------------------

def test_sampled_worlds_respect_a_shown_void():
    """Player 1 trumps a club lead, so he held no club at trick 1: of the two cards he holds
    after leading trick 2, at most one (the card he drew after trick 1) can be a club."""
    state = dealt(pyspiel.load_game(FULL, {"hand_size": 3}), ["5c", "4d", "Kd"],
                  ["3h", "7d", "8s"])
    apply_named(state, "Play 5c", "Play 3h", "Draw 9c", "Draw 2s", "Play 7d")
    view = information_view(state)
    assert view.player == 0 and view.slots == (0, 0, 0, 1) and view.opponent_hand_size == 2
    assert view.plays == ((0, state.rules.deck.index("3h")), (1, state.rules.deck.index("7d")))
    rules = state.rules
    clubs = mask_of(c for c in range(rules.num_cards) if rules.suit(c) == 0)
    assert view.voids == ((0, clubs),)
    rng = np.random.default_rng(3)
    club_counts = set()
    for _ in range(300):
        hand, stock = sample_world(view, rng)
        club_counts.add((hand & clubs).bit_count())
        assert hand.bit_count() == 2 and len(stock) == state.stock_left()
        assert hand | mask_of(stock) == view.unseen
    assert club_counts == {0, 1}


def test_a_discard_shows_a_void_in_trumps_too():
    """Player 1 follows a club lead with a diamond: he held neither clubs nor trumps."""
    state = dealt(pyspiel.load_game(FULL, {"hand_size": 3}), ["5c", "4d", "Kd"],
                  ["3d", "7d", "8s"])
    apply_named(state, "Play 5c", "Play 3d", "Draw 9c", "Draw 2s")
    view = information_view(state)
    rules = state.rules
    clubs = mask_of(c for c in range(rules.num_cards) if rules.suit(c) == 0)
    assert view.player == 0 and view.voids == ((0, clubs | mask_of(rules.trumps)),)
    hand, _ = sample_world(view, np.random.default_rng(0))
    assert (hand & (clubs | mask_of(rules.trumps))).bit_count() <= 1


def test_sampled_hands_are_feasible_and_match_the_games_resampler():
    """On a small deck, in deals where voids were shown: every sampled hand is feasible, and
    so is every hand of the game's own `resample_from_infostate` (the checker agrees with the
    game)."""
    states = [_random_state(SMALL, seed, 4, until=lambda s: len(information_view(s).voids) > 0)
              for seed in range(12)]
    states = [state for state in states if state is not None]
    assert len(states) >= 6
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for seed, state in enumerate(states):
        view = information_view(state)
        opponent = 1 - view.player
        assert feasible(view, mask_of(state.hands[opponent]))
        rng = np.random.default_rng(seed)
        for _ in range(200):
            hand, stock = sample_world(view, rng)
            assert feasible(view, hand)
            assert hand | mask_of(stock) == view.unseen and not hand & mask_of(stock)
        theirs = {mask_of(state.resample_from_infostate(view.player, sampler).hands[opponent])
                  for _ in range(50)}
        assert all(feasible(view, hand) for hand in theirs)


@pytest.mark.parametrize("plies", [0, 7, 30, 45])
def test_view_depends_on_the_information_state_only(plies):
    """Deals the player cannot tell apart (the game's resampler swaps the hidden cards) give
    the same view; the opponent's hand and the stock share the unseen cards."""
    state = _random_state(FULL, 4, plies)
    view = information_view(state)
    opponent = 1 - view.player
    assert mask_of(state.hands[opponent]) & ~view.unseen == 0
    assert view.unseen.bit_count() == view.opponent_hand_size + view.stock_size
    assert view.opponent_hand_size == len(state.hands[opponent])
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(5):
        other = state.resample_from_infostate(view.player, sampler)
        assert information_view(other) == view


# --- the player -----------------------------------------------------------------------------

@pytest.mark.parametrize("game_string, spec_a, spec_b, deals", [
    (SMALL, "pimc:4:2000", "random", 3),
    (FULL, "pimc:2:3000", "heuristic", 2),
    (FULL, "pimc-infer:3:2000", "heuristic", 2),
])
def test_pimc_plays_only_legal_actions(game_string, spec_a, spec_b, deals):
    summary = match.play_match(pyspiel.load_game(game_string), spec_a, spec_b, deals, seed=5)
    assert len(summary.deal_points) == deals


def test_pimc_is_deterministic_given_the_seed_whatever_the_threads():
    game = pyspiel.load_game(FULL)
    state = _random_state(FULL, 6, 9)
    assert state.stock_left() > 0
    one = PIMCBot(game, seed=11, worlds=6, node_budget=5000, threads=1)
    two = PIMCBot(game, seed=11, worlds=6, node_budget=5000, threads=2)
    actions, values = one.action_values(state)
    assert actions.tolist() == state.legal_actions()
    for bot in (one, two, make_bot("pimc:6:5000", game, 11)):
        again_actions, again_values = bot.action_values(state)
        assert again_actions.tolist() == actions.tolist()
        assert again_values.tolist() == values.tolist()
    other = PIMCBot(game, seed=12, worlds=6, node_budget=5000).action_values(state)[1]
    assert other.tolist() != values.tolist()


def test_with_the_stock_empty_pimc_plays_the_exact_best_move():
    game = pyspiel.load_game(FULL)
    for seed in range(4):
        state = _random_state(FULL, 20 + seed, 41, until=lambda s: len(s.legal_actions()) > 1)
        assert state.stock_left() == 0
        player = state.current_player()
        view = information_view(state)
        assert view.unseen == mask_of(state.hands[1 - player])
        exact = OpenCardSolver(game, table_bits=14).move_values(Position(
            (mask_of(state.hands[0]), mask_of(state.hands[1])), np.zeros(0, np.int64),
            view.lead, player, state.points[0] - state.points[1]))
        best = exact.values.max() if player == 0 else exact.values.min()
        bot = make_bot("pimc:3:1000", game, seed)
        action = bot.step(state)
        assert exact.values[exact.actions.tolist().index(action)] == best


def test_pimc_specs_and_seed_dependence():
    game = pyspiel.load_game(SMALL)
    assert make_bot("pimc", game, 0).worlds == 32
    bot = make_bot("pimc:5:700", game, 0)
    assert (bot.worlds, bot.node_budget) == (5, 700)
    for spec in ("pimc:0", "pimc:x", "pimc:1:2:3", "pimc:4:0", "pimc-match:y",
                 "pimc-match:1:2:-1", "pimc-match:1:2:x", "pimc-match:1:2:3:4"):
        with pytest.raises(ValueError, match="bad bot"):
            make_bot(spec, game, 0)
    with pytest.raises(ValueError, match="python_two_ten_jack"):
        make_bot("pimc", pyspiel.load_game("kuhn_poker"), 0)
    assert policy_depends_on_seed("pimc:4") and policy_depends_on_seed("pimc-match")
    assert not make_bot("pimc", game, 0).match_aware
    assert make_bot("pimc-match", game, 0).match_aware
    assert make_bot("pimc-match", game, 0).match_noise == 4.0
    bot = make_bot("pimc-match:5:700:0", game, 0)
    assert (bot.worlds, bot.node_budget, bot.match_noise, bot.match_aware) == (5, 700, 0.0, True)
    assert make_bot("pimc-match:5:700:2.5", game, 0).match_noise == 2.5


def test_pimc_as_a_policy():
    game = pyspiel.load_game(SMALL)
    state = _random_state(SMALL, 2, 1, until=lambda s: len(s.legal_actions()) > 1)
    probabilities = BotPolicy(game, make_bot("pimc:3:500", game, 1)).action_probabilities(state)
    assert len(probabilities) == 1 and list(probabilities.values()) == [1.0]
    assert next(iter(probabilities)) in state.legal_actions()


def test_the_cheater_sees_the_opponents_hand_and_not_the_stock_order():
    game = pyspiel.load_game(FULL)
    state = _random_state(FULL, 4, 7)
    view = information_view(state)
    hand = mask_of(state.hands[1 - view.player])
    bot = make_bot("cheater:6:500", game, 3)
    assert isinstance(bot, CheaterBot) and (bot.worlds, bot.node_budget) == (6, 500)
    worlds = bot.sample_worlds(state, view)
    assert len(worlds) == 6 and all(opponent == hand for opponent, _ in worlds)
    unseen_stock = sorted(cards_of(view.unseen & ~hand))
    assert all(sorted(stock.tolist()) == unseen_stock for _, stock in worlds)
    assert len({tuple(stock.tolist()) for _, stock in worlds}) > 1
    assert [s.tolist() for _, s in make_bot("cheater:6:500", game, 3).sample_worlds(
        state, view)] == [s.tolist() for _, s in worlds]  # reproducible from the seed
    small = pyspiel.load_game(SMALL)
    summary = match.play_match(small, "cheater:2:500", "pimc:2:500", 2, seed=2, progress=False)
    assert len(summary.deal_points) == 2


def test_the_cheater_is_no_policy():
    game = pyspiel.load_game(SMALL)
    for spec in ("cheater:0", "cheater:x", "cheater:1:2:3"):
        with pytest.raises(ValueError, match="bad bot"):
            make_bot(spec, game, 0)
    assert policy_depends_on_seed("cheater")
    with pytest.raises(ValueError, match="sees the opponent's hand"):
        BotPolicy(game, make_bot("cheater", game, 0))
    with pytest.raises(ValueError, match="sees the opponent's hand"):
        exploit.check_bots(game, ["cheater:2:100"], [0])


# --- playing for the match ------------------------------------------------------------------

def test_match_odds_are_symmetric_monotone_and_match_a_simulation():
    odds = MatchOdds(31, 5, -15, 20)
    assert odds.win_probability(0, 0, 1) + odds.win_probability(0, 0, 0) == pytest.approx(1.0)
    for a, b, dealer in ((25, 10, 0), (3, 29, 1), (-20, 12, 0)):
        assert odds.win_probability(a, b, dealer) == pytest.approx(
            1.0 - odds.win_probability(b, a, 1 - dealer))
    row = [odds.win_probability(s, 20, 1) for s in range(-10, 31)]
    assert all(x <= y + 1e-12 for x, y in itertools.pairwise(row))
    assert odds.win_probability(31, 20, 1) == 1.0 and odds.win_probability(20, 33, 0) == 0.0
    values = [odds.deal_value(25, 25, 1, p / 2) for p in range(-20, 30)]
    assert all(x <= y + 1e-12 for x, y in itertools.pairwise(values))
    assert odds.deal_value(25, 25, 1, 6.0) == 1.0  # 31 against 24
    # The model's matches, simulated: the same odds within sampling error.
    rng = np.random.default_rng(0)
    wins = 0
    trials = 4000
    for _ in range(trials):
        s0, s1, dealer = 20, 24, 1
        while True:
            points = rng.choice(odds.outcomes, p=odds.probabilities)
            gained = (5 - points, points) if dealer == 0 else (points, 5 - points)
            s0, s1, dealer = s0 + gained[0], s1 + gained[1], 1 - dealer
            if max(s0, s1) >= 31 and s0 != s1:
                wins += s0 > s1 if min(s0, s1) >= 31 else s0 >= 31
                break
    assert wins / trials == pytest.approx(odds.win_probability(20, 24, 1), abs=0.03)


def test_match_aware_pimc_takes_the_sure_win_over_more_points():
    """Player 0 needs 3 points to reach 31: a move worth +3 in every world beats one worth +20
    or -10 (more points on average) for the match, not for the deal."""
    game = pyspiel.load_game(FULL, {"score0": 28, "score1": 27})
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    while state.is_chance_node():
        state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
    actions = np.array(state.legal_actions()[:2])
    crafted = (actions, np.array([[3.0, 20.0], [3.0, -10.0]]))
    for spec, expected in (("pimc-match:2:100", actions[0]), ("pimc:2:100", actions[1])):
        bot = make_bot(spec, game, 0)
        bot.world_values = lambda _state: crafted
        assert bot.step(state) == expected
    assert make_bot("pimc-match", pyspiel.load_game(FULL), 0)._match_utility(
        pyspiel.load_game(FULL).new_initial_state()) is None  # 0-0: no deal ends the match


def test_matches_to_the_target_from_near_the_end():
    starts = near_end_starts(3, seed=1)
    assert all(15 <= s.score0 <= 30 and 15 <= s.score1 <= 30 for s in starts)
    summary = match_duel(FULL, "heuristic", "random", starts, seed=2)
    assert summary.starts == 3 and all(w in (0.0, 0.5, 1.0) for w in summary.start_wins)
    same = match_duel(FULL, "heuristic", "heuristic", starts, seed=2)
    assert same.start_wins == (0.5, 0.5, 0.5)  # duplicate seats cancel
    assert same.ci_low < same.mean == 0.5 < same.ci_high  # an interval even with no spread
    assert to_target.play_game is match.play_game  # one deal-playing loop for both


def test_share_interval_is_agresti_coull_for_wins_and_losses():
    z = match.Z_95
    for shares in ([1.0] * 5, [1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0]):
        count = len(shares) + z * z
        centre = (sum(shares) + z * z / 2) / count
        half = z * math.sqrt(centre * (1 - centre) / count)
        mean, low, high = to_target.share_interval(shares)
        assert mean == pytest.approx(np.mean(shares))
        assert (low, high) == pytest.approx((max(0.0, centre - half), min(1.0, centre + half)))
    half = z * z / 2 / (600 + z * z)  # only the pseudo-starts spread: z * sqrt(z²/4) / count
    assert to_target.share_interval([0.5] * 600)[1:] == pytest.approx((0.5 - half, 0.5 + half))
    with pytest.raises(ValueError, match="no starts"):
        match_duel(FULL, "heuristic", "random", [], seed=0)


# --- match records: canonical game strings, move timings, progress ------------------------

def test_records_without_default_parameters_pool_with_new_ones():
    game = pyspiel.load_game(FULL)
    new = match.play_match(game, "pimc:2:500", "heuristic", deals=2, seed=3, progress=False)
    assert "suits=c:d:h:s" in new.game  # the game prints every parameter now
    old_game = new.game.replace(",suits=c:d:h:s", "")  # as records written before did
    record = {**dataclasses.asdict(new), "game": old_game, "seed": 4}
    del record["move_ms"]  # and without timings
    old = match.MatchSummary.from_record(record)
    assert old.game == new.game and old.move_ms is None
    [pooled] = match.pool_matches([new, old])
    assert pooled.deals == 4 and pooled.seeds == (3, 4)
    assert match.canonical_game_string("no_such_game(x=1)") == "no_such_game(x=1)"


def test_match_times_each_bots_moves_and_shows_progress(capsys):
    game = pyspiel.load_game(SMALL)
    summary = match.play_match(game, "pimc:2:500", "random", deals=2, seed=1)
    assert "deal" in capsys.readouterr().err  # the progress bar
    # Hand size 3 of 18 cards: 9 tricks, one card each per trick, 2 games per deal.
    assert summary.move_ms["a"]["moves"] == summary.move_ms["b"]["moves"] == 2 * 2 * 9
    a = summary.move_ms["a"]
    assert 0 < a["median"] <= a["p95"] and a["mean"] > 0
    assert "ms per move (median, p95)" in match.format_summary(summary)
    again = match.play_match(game, "pimc:2:500", "random", deals=2, seed=1, progress=False)
    assert again == summary and capsys.readouterr().err == ""  # timings are not compared
    assert match.move_time_stats([]) == {"moves": 0}
