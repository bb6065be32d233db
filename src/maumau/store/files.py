"""The SQLite database's files are the server user's alone: they hold the seed of every
round being played (and so every hand), and the hashes of the seat tokens.

The data directory is created 0700, and the database file 0600 before SQLite first
opens it: SQLite gives the files it makes beside it (``-wal``, ``-shm``, ``-journal``)
the database file's mode, so they are 0600 too, whatever the umask.  A database that
exists already, and those files, are tightened to their owner's bits when this user
owns them (a file made by an earlier version, under a umask of 022, was world-readable).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

DIRECTORY_MODE = 0o700
FILE_MODE = 0o600
#: the files SQLite keeps beside a database
COMPANIONS = ("-wal", "-shm", "-journal")


def private_directory(path: Path) -> None:
    """Create the directory ``path`` if it is missing (its missing parents too, those
    as the umask has it), mode 0700.  An existing directory is left as it is."""
    try:
        path.mkdir(mode=DIRECTORY_MODE, parents=True)
    except FileExistsError:
        if not path.is_dir():
            raise
        return
    path.chmod(DIRECTORY_MODE)  # mkdir's mode is cut by the umask


def private_database(path: Path) -> None:
    """Make ready the SQLite database file ``path`` before SQLite opens it: its
    directory (:func:`private_directory`), the file itself, created empty with mode
    0600 if missing (SQLite takes an empty file for a new database), and an existing
    one and its companions cut to their owner's bits if this user owns them."""
    private_directory(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        pass
    else:
        try:
            os.fchmod(fd, FILE_MODE)  # the umask may have cut the owner's bits
        finally:
            os.close(fd)
    for file in (path, *(path.with_name(path.name + suffix) for suffix in COMPANIONS)):
        _tighten(file)


def _tighten(path: Path) -> None:
    """Take the group's and others' bits off ``path`` if it exists and is ours."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077 and info.st_uid == os.getuid():
        path.chmod(mode & 0o700)


def check_owner(path: Path) -> None:
    """Refuse (``PermissionError``) to work on the database file ``path`` (or, when it is
    missing, the directory it would be in) if another user owns it: a file SQLite made
    beside it (``-wal``, ``-shm``) or a restored file would be this user's, and the
    server's own user could then no longer open its database."""
    target = path if path.exists() else path.parent
    try:
        owner = target.stat().st_uid
    except FileNotFoundError:
        return
    if owner == os.getuid():
        return
    try:
        import pwd

        name = pwd.getpwuid(owner).pw_name
    except (ImportError, KeyError):
        name = str(owner)
    raise PermissionError(
        f"{target} belongs to the user {name}: run this as that user "
        f"(runuser -u {name} -- maumau ...), so that the server can still open its database"
    )
