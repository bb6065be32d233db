"""The code of the benchmark and campaign scripts in ``bench/``, split by concept.

The scripts (``bench/server.py``, ``bench/faults.py``, ...) stay the commands to run;
each imports its code from here (a script's own folder is on ``sys.path``, so this
package is ``lab``).  The tests import it too: ``pyproject.toml`` puts ``bench/`` on
pytest's ``pythonpath``.

- ``ports``, ``postgres``: shared by the scripts (and ``postgres`` by the tests'
  fixtures): a free port, a throwaway PostgreSQL cluster.
"""
