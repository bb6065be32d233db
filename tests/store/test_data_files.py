"""The SQLite database and its companions are the server user's alone: the data
directory is made 0700, the database, its -wal and its -shm 0600, whatever the umask,
and an existing database that others may read is tightened when it is opened."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from maumau.store import Store, sqlite_url
from maumau.store.files import private_database, private_directory
from support.serverkit import create_table, make_client


@pytest.fixture
def umask() -> Iterator[None]:
    """The usual umask of a shell or a service, 022: files world-readable by default."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_data_directory_and_its_files_are_private(tmp_path: Path, umask: None) -> None:
    data = tmp_path / "new" / "maumau-data"
    with make_client(data) as client:
        create_table(client)  # written: the WAL and its index exist now
        files = {p.name: mode(p) for p in data.iterdir()}
        assert mode(data) == 0o700
        assert files == {
            "maumau.sqlite3": 0o600,
            "maumau.sqlite3-wal": 0o600,
            "maumau.sqlite3-shm": 0o600,
        }


def test_an_existing_database_is_tightened_when_opened(tmp_path: Path, umask: None) -> None:
    """A database made under the old code: 0644, as are its -wal and -shm."""
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    path = data / "maumau.sqlite3"
    old = sqlite3.connect(path)  # held open, so the -wal and -shm stay
    old.execute("PRAGMA journal_mode=WAL")
    old.execute("CREATE TABLE t (x)")
    old.execute("INSERT INTO t VALUES (1)")
    old.commit()
    companions = [path, data / "maumau.sqlite3-wal", data / "maumau.sqlite3-shm"]
    assert [mode(p) for p in companions] == [0o644] * 3
    try:

        async def open_and_close() -> None:
            store = await Store.open(sqlite_url(path))
            await store.close()

        asyncio.run(open_and_close())
        assert [mode(p) for p in companions] == [0o600] * 3
    finally:
        old.close()
    assert mode(data) == 0o755  # an existing directory is the operator's: left alone


def test_the_umask_cannot_widen_or_cut_the_modes(tmp_path: Path) -> None:
    for mask in (0o000, 0o277):
        old = os.umask(mask)
        try:
            path = tmp_path / f"umask-{mask:o}" / "db.sqlite3"
            private_database(path)
            assert (mode(path.parent), mode(path)) == (0o700, 0o600)
            assert path.stat().st_size == 0  # an empty file is a new database to SQLite
        finally:
            os.umask(old)
    private_directory(tmp_path / "umask-0")  # exists: nothing to do
    with pytest.raises(FileExistsError):
        private_directory(tmp_path / "umask-0" / "db.sqlite3")  # a file, not a directory
