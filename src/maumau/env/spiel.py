"""Mau Mau as an OpenSpiel game: ``python_maumau``, registered with ``pyspiel``.

>>> from maumau.env.spiel import load_game
>>> game = load_game("penalty-100", players=3)   # or pyspiel.load_game("python_maumau", {...})
>>> state = game.new_initial_state()             # the deal: one chance node per card

Public names (kept stable for other tools): :data:`GAME_NAME`, :func:`load_game`,
:class:`MauMauGame`, :class:`MauMauState` (``.view(player)`` gives a seat's
:class:`~maumau.engine.SeatView`).

* Parameters: ``rules`` (a rule set of :data:`maumau.env.session.RULE_SETS`),
  ``players`` (2-8, as the deck allows), ``options`` (a JSON object of option keys
  applied over the rule set, e.g. ``'{"ace_skips": true}'``), ``reward``.
* Actions: the 145 indices of :mod:`maumau.env.actions`.  Chance outcomes are card
  ints (0..51): every card dealt (seat 0's hand first, then seat 1's, ..., then the
  start card) and every card drawn is a chance node, uniform over the cards it can be
  (the draw pile as a set, or after a reshuffle the cards that were under the top card;
  see :mod:`maumau.env.draws`).  Each round of a multi-round game is dealt the same way.
* Returns: the game's outcome as :func:`maumau.env.rewards.game_rewards` gives it
  (zero-sum, terminal); ``reward`` ("outcome", the default; "points"; "both") chooses
  as in the PettingZoo and Gymnasium environments, all at the end.  A game still
  running after ``MAX_STEPS`` decisions ends as a draw (all 0).
* Observation tensor: :func:`maumau.env.encoding.encode` (364 floats);
  information-state tensor: :func:`maumau.env.encoding.encode_info` (the same plus the
  last 8 public log entries).  The information-state string is the seat's hand, the
  score, and the round's public log with the seat's own draws: exactly what it knows
  of the round (imperfect recall across rounds: earlier rounds only by the score).
  Other observation types (public only, every seat's hand) are
  :mod:`maumau.env.spiel_observer`'s.
* ``resample_from_infostate(player, sampler)`` deals the cards ``player`` has not seen
  (every card not in its hand or on the discard pile) at random into the other hands
  and the draw pile, which is what ISMCTS needs.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pyspiel

from maumau.engine import Action, Game, Layout, Rules, SeatView
from maumau.engine.cards import CODES, deck_cards
from maumau.engine.game import DealtRound
from maumau.env.actions import ACTION_COUNT, Legal, describe, legal_indices
from maumau.env.draws import Arranger, Segment, arrange, plan_draws
from maumau.env.rewards import check_reward, game_rewards, points_bound, round_rewards
from maumau.env.session import MAX_STEPS, RULE_SETS, resolve_rules
from maumau.env.spiel_observer import MauMauObserver

GAME_NAME = "python_maumau"
_DEFAULTS: dict[str, Any] = {"rules": "standard", "players": 2, "options": "", "reward": "outcome"}

GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Mau Mau",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=8,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


class MauMauGame(pyspiel.Game):  # type: ignore[misc]
    """The game; its parameters are ``rules``, ``players`` and ``options``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DEFAULTS, **(params or {})}
        options = params["options"]
        spec: Any = params["rules"]
        if options:
            try:
                extra = json.loads(options)
            except json.JSONDecodeError as error:
                raise ValueError(f"options: not JSON ({error}): {options!r}") from None
            if not isinstance(extra, dict):
                raise ValueError(f"options: must be a JSON object of option keys, not {options!r}")
            if spec not in RULE_SETS:
                resolve_rules(spec)  # raises, naming the rule sets
            spec = {**RULE_SETS[spec], **extra}
        self.rules = resolve_rules(spec)
        self.players = int(params["players"])
        self.rules.check_players(self.players)
        #: what returns() gives: "outcome" (the default), "points" or "both"
        self.reward = check_reward(params["reward"])
        bound = (0.0 if self.reward == "points" else 1.0) + (
            0.0 if self.reward == "outcome" else points_bound(self.rules)
        )
        info = pyspiel.GameInfo(
            num_distinct_actions=ACTION_COUNT,
            max_chance_outcomes=52,
            num_players=self.players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=MAX_STEPS,
        )
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self) -> MauMauState:
        return MauMauState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> MauMauObserver:
        """OpenSpiel's observer for ``iig_obs_type`` (default: the observation, public
        and the player's own, no recall), see :mod:`maumau.env.spiel_observer`."""
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        return MauMauObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class _Core:
    """The Python part of a state: the engine game and the chance steps.  OpenSpiel
    clones states by deepcopy (made fast here) and serializes them by pickling (a
    replay of the actions taken)."""

    def __init__(self, rules: Rules, players: int) -> None:
        self.rules = rules
        self.n = players
        self.silent = rules.mau_penalty == "catch"
        self.game = Game(rules, [f"player_{i}" for i in range(players)])
        #: the cards dealt so far while a round is being dealt, else None
        self.dealing: list[int] | None = []
        #: a player's action waiting for its draws: (action, seat, segments)
        self.plan: tuple[Action, int, list[Segment]] | None = None
        self.chosen: list[int] = []
        self.steps = 0
        #: every action applied (player actions and chance outcomes), for pickling
        self.history: list[int] | None = []
        self._legal: Legal = {}
        self._legal_version = -1

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        core = _Core.__new__(_Core)
        core.__dict__.update(self.__dict__)
        old = self.game
        game = Game.__new__(Game)
        game.__dict__.update(old.__dict__)
        game.totals = old.totals[:]
        game.rounds_won = old.rounds_won[:]
        game.results = old.results[:]
        if old.rounds:
            last = old.rounds[-1]
            state = last.state.copy(Arranger())
            game.rounds = [*old.rounds[:-1], DealtRound(last.seed, last.layout, state)]
            game._state = state
        else:  # (not the list the original deals its first round into)
            game.rounds = []
        core.game = game
        core.dealing = None if self.dealing is None else self.dealing[:]
        core.chosen = self.chosen[:]
        core.history = None if self.history is None else self.history[:]
        core._legal_version = -1
        return core

    def __reduce__(self) -> tuple[Any, ...]:
        if self.history is None:
            raise ValueError("a state from resample_from_infostate is no replay: not serializable")
        return (_replayed, (self.rules, self.n, self.history))

    @property
    def terminal(self) -> bool:
        return self.game.finished or self.steps >= MAX_STEPS

    def player(self) -> int:
        if self.terminal:
            return int(pyspiel.PlayerId.TERMINAL)
        if self.dealing is not None or self.plan is not None:
            return int(pyspiel.PlayerId.CHANCE)
        return self.game.to_move

    def legal(self) -> Legal:
        game = self.game
        if self._legal_version != game.version:
            seat = game.to_move
            self._legal = legal_indices(game.legal_actions(), seat, self.n, self.silent)
            self._legal_version = game.version
        return self._legal

    def chance_cards(self) -> list[int]:
        """The cards the next chance node can give."""
        if self.dealing is not None:
            dealt = set(self.dealing)
            return [c for c in deck_cards(self.rules.deck) if c not in dealt]
        assert self.plan is not None
        done = len(self.chosen)
        for cards, count in self.plan[2]:
            if done < count:
                taken = set(self.chosen[len(self.chosen) - done :])
                return [c for c in cards if c not in taken]
            done -= count
        raise AssertionError("every planned draw is chosen")

    def apply(self, action: int) -> None:
        game = self.game
        if self.dealing is not None:
            self.dealing.append(action)
            size = self.rules.hand_size
            if len(self.dealing) == self.n * size + 1:
                dealt = self.dealing
                hands = tuple(tuple(dealt[i * size : (i + 1) * size]) for i in range(self.n))
                rest = tuple(c for c in deck_cards(self.rules.deck) if c not in set(dealt))
                game.deal(0, Layout(hands, dealt[-1], rest))
                game.round.rng = Arranger()
                self.dealing = None
        elif self.plan is not None:
            self.chosen.append(action)
            act, seat, segments = self.plan
            if len(self.chosen) == sum(count for _, count in segments):
                arrange(game.round, segments, self.chosen)
                self.plan = None
                self.chosen = []
                self._finish(act, seat)
        else:
            found = self.legal().get(action)
            if found is None:
                raise ValueError(f"action {action} ({describe(action)}) is not legal now")
            seat = game.to_move
            segments = plan_draws(game.round, found, seat)
            if segments:
                self.plan = (found, seat, segments)
                self.chosen = []
            else:
                self._finish(found, seat)
        if self.history is not None:
            self.history.append(action)

    def _finish(self, act: Action, seat: int) -> None:
        game = self.game
        game.apply(act, seat)
        self.steps += 1
        if game.round_over and not game.finished:
            self.dealing = []


def _replayed(rules: Rules, players: int, history: list[int]) -> _Core:
    core = _Core(rules, players)
    for action in history:
        core.apply(action)
    return core


class MauMauState(pyspiel.State):  # type: ignore[misc]
    """A state of ``python_maumau``: an engine :class:`Game` plus the chance steps."""

    def __init__(self, game: MauMauGame) -> None:
        super().__init__(game)
        self.core = _Core(game.rules, game.players)

    def current_player(self) -> int:
        return self.core.player()

    def is_terminal(self) -> bool:
        return self.core.terminal

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.core.player():
            return []
        return sorted(self.core.legal())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        cards = self.core.chance_cards()
        p = 1.0 / len(cards)
        return [(c, p) for c in cards]

    def _apply_action(self, action: int) -> None:
        self.core.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"card {CODES[action]}"
        return describe(action)

    def returns(self) -> list[float]:
        core = self.core
        game = core.game
        if not game.finished or game.winners is None:
            return [0.0] * core.n
        reward = self.get_game().reward
        total = [0.0] * core.n
        if reward != "outcome":
            for result in game.results:
                for seat, value in enumerate(round_rewards(core.rules, result)):
                    total[seat] += value
        if reward != "points":
            for seat, value in enumerate(game_rewards(core.n, game.winners)):
                total[seat] += value
        return total

    def __str__(self) -> str:
        game = self.core.game
        if not game.rounds:
            return f"dealing round 1: {len(self.core.dealing or [])} cards dealt"
        state = game.round
        hands = " | ".join(" ".join(CODES[c] for c in range(52) if h >> c & 1) for h in state.hands)
        return (
            f"round {game.round_index + 1} {state.step} top {CODES[state.top]} "
            f"pending {state.pending} totals {game.totals} hands {hands}"
        )

    # --- what a seat knows -----------------------------------------------------------------

    def view(self, player: int) -> SeatView | None:
        """``player``'s view, or ``None`` while a round is being dealt."""
        if self.core.dealing is not None:
            return None
        return self.core.game.view(player)

    def start_card(self) -> str:
        """The current round's start card (public)."""
        layout = self.core.game.rounds[-1].layout
        return CODES[layout.start] if layout is not None else "?"

    def dealt_to(self, player: int) -> list[int]:
        """While a round is dealt: the cards ``player`` has been dealt so far."""
        size = self.core.rules.hand_size
        return (self.core.dealing or [])[player * size : (player + 1) * size]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> MauMauState:
        """A state ``player_id`` cannot tell from this one: the cards it has not seen
        dealt at random to the other hands (keeping their counts) and the draw pile.
        (Its ``history()`` is this state's; the sampled cards are not in it.)"""
        state: MauMauState = self.clone()
        core = state.core
        if core.dealing is not None or core.plan is not None or core.game.round_over:
            return state
        rng = random.Random(int(probability_sampler() * (1 << 53)))
        r = core.game.round
        n = core.n
        fixed = [0] * n
        known = r.hands[player_id] | sum(1 << c for c in r.discard)
        unseen = [c for c in deck_cards(core.rules.deck) if not known >> c & 1]
        rng.shuffle(unseen)
        i = 0
        if r.drawn >= 0 and r.turn != player_id:
            # another seat just drew a card it may play: unseen by player_id, so a
            # sampled card takes its place (the drawer still holds a drawn card)
            r.drawn = unseen[0]
            fixed[r.turn] = 1 << r.drawn
            i = 1
        for seat in range(n):
            if seat == player_id:
                continue
            need = r.hands[seat].bit_count() - fixed[seat].bit_count()
            hand = fixed[seat]
            for c in unseen[i : i + need]:
                hand |= 1 << c
            r.hands[seat] = hand
            i += need
        r.stock[:] = unseen[i:]
        for seat in range(n):
            if seat != player_id:
                r.private[seat] = []
        core.history = None  # a sampled world is not a replay of the actions
        return state


def load_game(
    rules: str = "standard", players: int = 2, reward: str = "outcome", **options: Any
) -> MauMauGame:
    """``python_maumau`` for a rule set (and option keys over it), a player count and
    what ``returns()`` gives (``reward``: "outcome", "points" or "both")."""
    params: dict[str, Any] = {"rules": rules, "players": players, "reward": reward}
    if options:
        params["options"] = json.dumps(options)
    game: MauMauGame = pyspiel.load_game(GAME_NAME, params)
    return game


pyspiel.register_game(GAME_TYPE, MauMauGame)
