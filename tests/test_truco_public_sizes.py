"""The public tree of two-player Truco per vira class (`solver.sizes.truco_public`): its dynamic
program against a brute-force construction of the lists, its rows against the information
states of the history tree and of `solver.sizes.truco`, the vira weights, the cost model and the
`tricksolver sizes --public` command."""
from __future__ import annotations

import collections
import fractions
import json

import numpy as np
import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from games.truco import PublicState
from solver import cli, compile_game, sizes
from solver.sizes import truco_public

# Tiny variants: clean and dirty deck, Trucomano, a covered card chosen among two (and three
# covers in one hand), hands of eleven (no raising), full betting with a covered last card.
TINY = (
    "python_truco_paulista(deck=clean,hand_size=1,isomorphic=true)",
    "python_truco_paulista(hand_size=1,isomorphic=true)",
    "python_trucomano(num_ranks=3,hand_size=1,isomorphic=true)",
    "python_truco_paulista(deck=clean,num_ranks=2,hand_size=2,covered_from_round=1,score0=11,"
    "isomorphic=true)",
    "python_truco_paulista(deck=clean,num_ranks=2,hand_size=3,covered_from_round=1,score0=11,"
    "score1=11,isomorphic=true)",
    "python_truco_paulista(deck=clean,num_ranks=3,hand_size=2,score0=11,isomorphic=true)",
)
WITH_BETTING = (
    "python_truco_paulista(deck=clean,num_ranks=2,hand_size=2,isomorphic=true)",
    "python_truco_paulista(deck=clean,num_ranks=2,hand_size=2,covered_from_round=1,"
    "allow_reraise=false,isomorphic=true)",
)


# --- brute force ------------------------------------------------------------------------------
def _without(hand: tuple, item: int) -> tuple:
    rest = list(hand)
    rest.remove(item)
    return tuple(rest)


class _BruteForce:
    """Walks every public history of `games.truco.PublicState` and carries each player's list
    explicitly, from the dealable hands by the transitions a public-tree builder would apply:
    a face-up card leaves the actor's entries holding it (without it) and the other player's
    entries that still fit in the deck; a covered card moves one unplayed class of each actor
    entry to his covered sequence, once per distinct class."""

    def __init__(self, game, vira: int):
        rules = game.rules
        self.available = rules.class_counts(vira)
        hands = [(hand, ()) for hand in rules.hand_classes if self._fits(hand, (), ())]
        self.totals = collections.Counter()
        self.maxima = [0, 0]
        shown = ((0,) * len(self.available),) * 2
        public = PublicState(rules)
        public.hands_dealt()
        self.walk(public, (hands, hands), shown)

    def _fits(self, unplayed: tuple, covered: tuple, shown: tuple) -> bool:
        cards = list(unplayed) + list(covered)
        return all(cards.count(x) + (shown[x] if shown else 0) <= self.available[x]
                   for x in set(cards))

    def figures(self) -> dict:
        figures = {name: self.totals[name] for name in truco_public.FIELDS}
        figures["max_entries_p0"], figures["max_entries_p1"] = self.maxima
        return figures

    def walk(self, public, lists, shown) -> None:
        totals = self.totals
        if public.is_over():
            totals["terminals"] += 1
            return
        totals["decision_nodes"] += 1
        for p in (0, 1):
            totals[f"entries_p{p}"] += len(lists[p])
            self.maxima[p] = max(self.maxima[p], len(lists[p]))
        actor, other = public.to_act, 1 - public.to_act
        bets = public.legal_actions()
        card_turn = public.is_card_turn()
        cover = card_turn and public.may_cover()
        own = lists[actor]

        def columns(unplayed):
            return len(bets) + (len(set(unplayed)) * (1 + cover) if card_turn else 0)

        totals[f"rows_p{actor}"] += len(own)
        totals[f"table_entries_p{actor}"] += sum(columns(r) for r, _ in own)
        distinct = {r for r, _ in own}
        totals[f"forgetful_rows_p{actor}"] += len(distinct)
        totals[f"forgetful_table_entries_p{actor}"] += sum(columns(r) for r in distinct)
        children = []
        for action in bets:
            child = public.clone()
            child.apply(action)
            children.append((child, lists, shown))
        if card_turn:
            for item in sorted({x for r, _ in own for x in r}):
                child = public.clone()
                child.play(item + 1)
                seen = list(map(list, shown))
                seen[actor][item] += 1
                moved = [None, None]
                moved[actor] = [(_without(r, item), c) for r, c in own if item in r]
                moved[other] = [
                    (r, c) for r, c in lists[other]
                    if (r + c).count(item) + shown[other][item] + seen[actor][item]
                    <= self.available[item]]
                children.append((child, tuple(moved), tuple(map(tuple, seen))))
            if cover and own:
                child = public.clone()
                child.play(0, True)
                moved = [None, None]
                moved[actor] = [(_without(r, x), c + (x,)) for r, c in own for x in sorted(set(r))]
                moved[other] = lists[other]
                children.append((child, tuple(moved), shown))
        if any(child.is_over() for child, _, _ in children):
            totals["coupling_products"] += len(lists[0]) * len(lists[1])
        for child, child_lists, child_shown in children:
            self.walk(child, child_lists, child_shown)


@pytest.mark.parametrize("game_string", TINY + WITH_BETTING)
def test_dynamic_program_equals_brute_force_per_vira(game_string):
    game = pyspiel.load_game(game_string)
    counted = truco_public.public_sizes(game)
    assert len(counted.viras) == game.rules.num_ranks
    for vira in counted.viras:
        assert vira.figures == _BruteForce(game, vira.vira).figures(), vira.vira_name


def test_vira_weights_sum_to_one_and_hands_are_the_root_lists():
    for game_string in TINY[:3]:
        game = pyspiel.load_game(game_string)
        counted = truco_public.public_sizes(game)
        assert counted.weight() == 1
        assert all(vira.weight == fractions.Fraction(1, game.rules.num_ranks)
                   for vira in counted.viras)
        # the chance of the isomorphic game: each vira rank with probability 1/num_ranks
        root = game.new_initial_state()
        assert [p for _, p in root.chance_outcomes()] == pytest.approx(
            [float(vira.weight) for vira in counted.viras])
    counted = truco_public.public_sizes(pyspiel.load_game(TINY[3]))
    for vira in counted.viras:
        assert vira.figures["max_entries_p0"] >= vira.hand_classes
        assert vira.deal_classes <= vira.hand_classes ** 2


# --- rows are information states --------------------------------------------------------------
def _history_tree_by_vira(game) -> dict:
    """{(vira name, player): (information states, their legal actions)} of the compiled tree."""
    tree = compile_game(game, cache=False, method="traversal")
    counts = np.diff(tree.infoset_action_start)
    found = collections.Counter()
    for index, name in enumerate(tree.info_state_names):
        vira = name.split(" | ")[1].removeprefix("vira ")
        player = int(tree.infoset_player[index])
        found[vira, player, "infosets"] += 1
        found[vira, player, "actions"] += int(counts[index])
    return found


@pytest.mark.parametrize("game_string", TINY)
def test_rows_are_the_history_trees_information_states(game_string):
    # one row per (public decision node, actor's entry) = one information state, and its
    # columns are that information state's legal actions, vira class by vira class
    game = pyspiel.load_game(game_string)
    history = _history_tree_by_vira(game)
    for vira in truco_public.public_sizes(game).viras:
        for player in (0, 1):
            assert vira.figures[f"rows_p{player}"] == history[vira.vira_name, player, "infosets"]
            assert vira.figures[f"table_entries_p{player}"] == history[
                vira.vira_name, player, "actions"]


@pytest.mark.parametrize("game_string", [
    "python_truco_paulista(deck=clean,hand_size=2,isomorphic=true)",
    "python_truco_paulista(hand_size=2,isomorphic=true)",
    "python_truco_paulista(deck=clean,isomorphic=true)",  # the clean deck in full, 3 cards
])
def test_rows_sum_to_the_counted_information_states(game_string):
    game = pyspiel.load_game(game_string)
    counted = truco_public.public_sizes(game)
    assert (counted.total("rows_p0"), counted.total("rows_p1")) == sizes.truco_sizes(
        game).infosets
    # the forgetful design saves rows only where a card was covered among two or more
    assert counted.total("forgetful_rows_p0") < counted.total("rows_p0")


def test_rejects_other_games():
    for game_string in ("python_truco_paulista(num_players=4,hand_size=1,isomorphic=true)",
                        "python_trucomano(score0=11,score1=11,isomorphic=true)",
                        "python_le_truc", "kuhn_poker"):
        with pytest.raises(ValueError, match="two-player"):
            truco_public.public_sizes(pyspiel.load_game(game_string))
    with pytest.raises(ValueError, match="isomorphic=true"):
        truco_public.public_sizes(pyspiel.load_game("python_truco_paulista(hand_size=1)"))


# --- the cost model ---------------------------------------------------------------------------
def test_le_truc_work_counts_coupling_products_node_by_node():
    from solver.public.tree import build_play_tree
    tree = build_play_tree(pyspiel.load_game(
        "python_le_truc(num_ranks=3,hand_size=2,isomorphic=true,max_redeals=0)"))
    work = truco_public.le_truc_work(tree)
    products = 0
    terminals = 0
    for node in range(tree.num_nodes):
        children = tree.child[tree.child_start[node]:tree.child_start[node + 1]]
        terminals += int(np.count_nonzero(children < 0))
        if any(children < 0):
            e0, e1 = (len(tree.list_entries(int(tree.node_list[node, p]))) for p in (0, 1))
            products += e0 * e1
    assert work == {"nodes": tree.num_nodes + terminals,
                    "table_entries": int(tree.table_size.sum()), "coupling_products": products}


def test_cost_model_fit_and_bracket():
    truth = (2e-8, 5e-9, 1e-7)
    works = [(100, 300, 50), (1000, 900, 400), (5000, 8000, 2000), (9000, 20000, 3000)]
    samples = [{"game": f"g{i}", "table_entries": t, "coupling_products": k, "nodes": n,
                "seconds": truth[0] * t + truth[1] * k + truth[2] * n}
               for i, (t, k, n) in enumerate(works)]
    model = truco_public.fit_cost_model(samples)
    assert (model.per_table_entry, model.per_coupling_product, model.per_node) == pytest.approx(
        truth, rel=1e-6)
    low, high = model.bracket(4000, 20000, 1000)
    assert low <= model.seconds(4000, 20000, 1000) <= high
    assert (low, high) == pytest.approx((samples[-1]["seconds"] / 3, samples[-1]["seconds"]))
    # no negative coefficient, even where the data would prefer one
    skewed = [dict(sample, seconds=sample["table_entries"] * 1e-8) for sample in samples]
    skewed[0]["seconds"] *= 3
    fitted = truco_public.fit_cost_model(skewed)
    assert min(fitted.per_table_entry, fitted.per_coupling_product, fitted.per_node) >= 0
    largest = skewed[-1]  # the fit is scaled to reproduce the largest run
    assert fitted.seconds(largest["table_entries"], largest["coupling_products"],
                          largest["nodes"]) == pytest.approx(largest["seconds"])


def test_extrapolation_spreads_vira_classes_over_cores():
    game = pyspiel.load_game(TINY[2])
    counted = truco_public.public_sizes(game)
    model = truco_public.CostModel(1e-6, 0.0, 0.0, ({"game": "g", "table_entries": 1,
                                                     "coupling_products": 1, "nodes": 1,
                                                     "seconds": 1e-6},))
    result = counted.extrapolation(model, iterations=10, cores=2)
    per_vira = [model.seconds(*vira.work()) for vira in counted.viras]
    assert result["seconds_one_core"] == pytest.approx(10 * sum(per_vira))
    assert result["seconds_on_cores"] == pytest.approx(10 * (per_vira[0] + per_vira[1]))  # 3 equal
    largest = max(vira.table_entries() for vira in counted.viras)
    assert result["table_bytes_float32_on_cores"] == 2 * 2 * 4 * largest


# --- the command ------------------------------------------------------------------------------
@pytest.fixture
def run_cli(monkeypatch):
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("solver.cli.sizes",))
    return cli.main


def test_cli_public_table_json_and_markdown(run_cli, tmp_path, capsys):
    game_string = TINY[0]
    json_path, markdown_path = tmp_path / "public.json", tmp_path / "public.md"
    assert run_cli(["sizes", game_string, "--public", "--json", str(json_path),
                    "--markdown", str(markdown_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{game_string}: exact counts")
    assert lines[1].startswith("vira | weight | hands | deal classes | public nodes")
    expected = truco_public.public_sizes(pyspiel.load_game(game_string))
    first = expected.viras[0]
    assert lines[2].startswith(f"Q | 1/6 | {first.hand_classes} | {first.deal_classes} | "
                               f"{first.public_nodes:,} | ")
    assert lines[8].startswith("total | 1 | - | ")
    assert lines[9].startswith("extrapolated solve, 300 iterations: ")
    payload = json.loads(json_path.read_text())
    record = payload["games"][0]
    assert payload["command"].startswith(f"tricksolver sizes '{game_string}' --public")
    assert record["totals"]["rows_p0"] == expected.total("rows_p0")
    assert [v["weight"] for v in record["vira_classes"]] == ["1/6"] * 6
    assert record["vira_classes"][0]["table_bytes_float32"] == 8 * first.table_entries()
    text = markdown_path.read_text()
    assert f"Command: `{payload['command']}`" in text and f"## `{game_string}`" in text
    assert "extrapolations" in text


@pytest.mark.parametrize("arguments, message", [
    (["kuhn_poker", "--public"], "two-player"),
    (["python_truco_paulista(num_players=4,hand_size=1,isomorphic=true)", "--public"],
     "two-player"),
    (["python_truco_paulista(hand_size=1)", "--public"], "isomorphic=true"),
    ([TINY[0], "--public", "--samples", "10"], "--public takes no --samples"),
    ([TINY[0], "--calibrate"], "go with --public"),
])
def test_cli_public_bad_input_is_one_line(run_cli, capsys, arguments, message):
    assert run_cli(["sizes", *arguments]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and message in captured.err


# --- the memory check before a solve ------------------------------------------------------------
def test_a_solve_that_cannot_fit_is_refused_before_it_starts():
    """`check_solve_fits`: the tree, the tables (float64, or float32) and the coupling; the
    refusal names what float32 tables would need when they would fit."""
    game = pyspiel.load_game(TINY[0])
    sizes = truco_public.vira_sizes(game, 0)
    enough = sizes.solve_bytes(8)
    assert enough == (sizes.tree_bytes() + 16 * sizes.table_entries() + sizes.coupling_bytes())
    truco_public.check_solve_fits(game, 0, available=enough)
    with pytest.raises(ValueError, match=f"{sizes.public_nodes:,} nodes and solving it holds "
                                         "at least .* with --float32 tables it needs"):
        truco_public.check_solve_fits(game, 0, available=enough - 1)
    with pytest.raises(ValueError) as refused:  # solve-match: no --float32 to suggest
        truco_public.check_solve_fits(game, 0, available=enough - 1, float32_option=False)
    assert "--float32" not in str(refused.value)
    truco_public.check_solve_fits(game, 0, available=sizes.solve_bytes(4), float32=True)
    with pytest.raises(ValueError, match="float32 tables .* on a larger machine"):
        truco_public.check_solve_fits(game, 0, available=sizes.solve_bytes(4) - 1, float32=True)


def test_the_tree_bytes_are_the_built_trees():
    """`ViraSizes.tree_bytes` is what the built tree and its walk hold, lists and maps aside."""
    from solver.public.cfr import walk_of
    from solver.public.parts import public_parts
    from solver.public.tree import build_play_tree

    game = pyspiel.load_game(TINY[0])
    part = public_parts(game)[0]
    tree = build_play_tree(game, part)
    walk = walk_of(tree)
    shared = {"list_start", "entry_hand", "entry_nd", "entry_before", "map_start", "map_src",
              "map_dst", "map_slot", "table_size", "outcome_payoff", "outcome_whole_match"}
    held = sum(value.nbytes for name, value in vars(tree).items()
               if isinstance(value, np.ndarray) and name not in shared)
    held += sum(getattr(walk, name).nbytes for name in ("node_terminal", "step_depth",
                                                        "step_edge", "after"))
    assert truco_public.vira_sizes(game, part.vira).tree_bytes() == held


@pytest.mark.parametrize("command", [
    ["solve", TINY[0], "--engine", "public", "--iterations", "10"],
    ["solve-match", TINY[0].replace("isomorphic=true", "isomorphic=true,target=2")],
])
def test_solve_and_solve_match_refuse_a_tree_too_big_in_one_line(command, monkeypatch, tmp_path,
                                                                 capsys):
    """With (pretended) too little memory, nothing is built or written: one line, exit 2."""
    monkeypatch.setattr(truco_public, "_available_memory", lambda: 1)
    monkeypatch.setenv("TRICKSOLVER_CACHE", str(tmp_path / "cache"))  # no tree cached
    out = tmp_path / "out"
    assert cli.main([*command, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert len(captured.err.strip().splitlines()) == 1, captured.err
    assert "solving it holds at least" in captured.err and "Traceback" not in captured.err
    assert not out.exists()
