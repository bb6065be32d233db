"""Mau Mau as a research environment: PettingZoo, Gymnasium and OpenSpiel.

Install the optional extras from the checkout (``uv sync --extra rl --extra spiel``, or
``pip install ".[rl,spiel]"``; ``spiel`` is OpenSpiel's ``open-spiel``):

* :mod:`maumau.env.maumau_v0` -- the PettingZoo AEC environment (``env``, ``raw_env``;
  ``parallel_env``: PettingZoo's turn-based conversion, only the agent to move acts);
* :mod:`maumau.env.gym` -- a Gymnasium single-agent wrapper whose other seats are our
  bots (``MauMauGym``, registered as ``maumau/MauMau-v0``);
* :mod:`maumau.env.spiel` -- the OpenSpiel game ``python_maumau`` (``load_game``);
* :mod:`maumau.env.spiel_bot` -- OpenSpiel's ISMCTS bot as one of our bots
  (``ismcts_agent``), to play our tables and matches;
* :mod:`maumau.env.batch` -- ``BatchEnv``, many ``maumau_v0`` games stepped at once
  (numpy arrays in and out), for self-play and population methods.

Every observation is built from one seat's :class:`~maumau.engine.SeatView` only
(:mod:`maumau.env.encoding`; ``BatchEnv`` writes the same vectors from arrays of what
the seat may see, :mod:`maumau.env.batch_encoding`); the action space is
:mod:`maumau.env.actions`.  The spaces, encodings and rewards are documented in
``docs/research.md``.  Importing this package imports none of the optional libraries:
only its submodules do.
"""

from __future__ import annotations

#: the version of the spaces, encodings and rewards (the ``_v0`` of ``maumau_v0``)
ENV_VERSION = 0

__all__ = ["ENV_VERSION"]
