"""The code of the benchmark and campaign scripts in ``bench/``, split by concept.

The scripts (``bench/server.py``, ``bench/faults.py``, ...) stay the commands to run;
each imports its code from here (a script's own folder is on ``sys.path``, so this
package is ``lab``).  The tests import it too: ``pyproject.toml`` puts ``bench/`` on
pytest's ``pythonpath``.

- ``paths``, ``ports``, ``serve``, ``postgres``: shared by the scripts (and
  ``postgres`` by the tests' fixtures): the repository's root, a free port, the
  ``maumau serve`` command line, a throwaway PostgreSQL cluster.
- ``engine``: the engine benchmark (``bench/engine.py``).
- ``matrix``: the server matrix (``bench/server.py``).
- ``faults``: the fault campaign (``bench/faults.py``).
- ``hostile``: the hostile input campaign (``bench/hostile.py``).
- ``baselines``: the agent kinds' baselines (``bench/baselines.py``).
"""
