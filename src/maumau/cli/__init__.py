"""The ``maumau`` command line: :mod:`maumau.cli.main` builds the parser and runs a
command (the record and rules commands are there too); each other module adds the
commands of one concern.

- :mod:`~maumau.cli.bots`: ``tournament`` and ``simulate``;
- :mod:`~maumau.cli.play` (:mod:`~maumau.cli.play_input`, :mod:`~maumau.cli.play_screen`):
  ``play``, a game against the bots in the terminal;
- :mod:`~maumau.cli.serve` (:mod:`~maumau.cli.serve_options`): ``serve``, the game server;
- :mod:`~maumau.cli.load`: ``loadtest``;
- :mod:`~maumau.cli.backup`: ``backup`` and ``restore``; :mod:`~maumau.cli.admin`: ``admin``;
- :mod:`~maumau.cli.options` (``--preset``, ``--set``), :mod:`~maumau.cli.types` (the
  kinds of number an option takes) and :mod:`~maumau.cli.env` (options from ``MAUMAU_*``
  variables): what the commands share.

The package imports nothing itself: ``maumau --help`` loads neither the web framework
nor the database layer (``serve``, ``loadtest`` and the operator's commands import them
when they run; ``tests/project/test_layering.py`` guards it).
"""
