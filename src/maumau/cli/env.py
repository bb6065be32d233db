"""Options from the environment: every option of an operator's command (``maumau
serve``, ``backup``, ``restore``, ``admin``) may also be given as ``MAUMAU_`` and its
name in capitals, ``-`` as ``_`` (``--public-url`` is ``MAUMAU_PUBLIC_URL``).

A service manager's environment file then holds a site's settings, and a secret such as
the database URL's password stays out of the process list.  An option on the command
line wins over the environment.  A repeatable option takes several values separated by
commas.  A flag (``--force``, ``--dry-run``, ``--no-export``) is only ever the
command line's: a setting left in an environment file must never force a restore or
skip an export.
A value that the option would refuse is refused the same way, naming the variable
(when that command runs: a wrong variable of ``serve`` does not stop ``maumau rules``).

A ``MAUMAU_`` variable that is no option of any of these commands (a misspelt one,
``MAUMAU_TRUSTED_PROXIES`` for ``MAUMAU_TRUSTED_PROXY``), or that names a flag, is
refused the same way, naming it and the closest variable there is: ignored, it would
leave a setting silently unset (behind a proxy, every client would share the proxy's
address and its limits).  It is refused, not warned of, since one environment file
serves all these commands: a variable that none of them takes is a mistake whichever
one runs.  Names that start with :data:`RESERVED` (``MAUMAU_TEST_``) are left to the
project's own test tooling, and to no command."""

from __future__ import annotations

import argparse
import difflib
import os
from collections.abc import Mapping, Sequence
from typing import Any

PREFIX = "MAUMAU_"


class SettingError(ValueError):
    """A variable whose value its option refuses (the message names both)."""


def variable(option: str) -> str:
    """``--public-url`` -> ``MAUMAU_PUBLIC_URL``."""
    return PREFIX + option.lstrip("-").replace("-", "_").upper()


#: the commands whose options the environment may give (and their subcommands')
OPERATOR_COMMANDS = ("serve", "backup", "restore", "admin")
#: variables of this prefix are no command's: the test suite's own (its Hypothesis
#: profile, the browser suite's child run), never refused
RESERVED = PREFIX + "TEST_"


def apply_to_commands(
    parser: argparse.ArgumentParser, environ: Mapping[str, str] | None = None
) -> None:
    """:func:`apply_environment` to each of :data:`OPERATOR_COMMANDS` of the
    ``maumau`` parser ``parser`` and their subcommands; and a ``MAUMAU_`` variable
    that none of them takes (:func:`unknown_variable`) refuses them all."""
    environ = os.environ if environ is None else environ
    commands = [sub for name, sub in _subparsers(parser) if name in OPERATOR_COMMANDS]
    parsers = [each for sub in commands for each in _tree(sub)]
    for each in parsers:
        apply_environment(each, environ)
    error = unknown_variable(parsers, environ)
    if error is not None:
        for each in parsers:
            each.set_defaults(environment_error=error)


def unknown_variable(
    parsers: Sequence[argparse.ArgumentParser], environ: Mapping[str, str]
) -> str | None:
    """What is wrong with the first ``MAUMAU_`` variable in ``environ`` that is no
    option of ``parsers`` (nor :data:`RESERVED`), or that names a flag
    (flags are the command line's alone); ``None`` if there is none."""
    known: set[str] = set()
    flags: dict[str, str] = {}
    for each in parsers:
        for action in each._actions:
            longs = [o for o in action.option_strings if o.startswith("--")]
            if longs and action.nargs == 0:
                flags[variable(longs[0])] = longs[0]
            elif longs:
                known.add(variable(longs[0]))
    for name in sorted(n for n in environ if n.startswith(PREFIX) and not n.startswith(RESERVED)):
        if name in known:
            continue
        if name in flags and flags[name] not in ("--help", "--version"):
            return f"{name}: {flags[name]} is taken from the command line only, never from here"
        stems = {k.removeprefix(PREFIX): k for k in known}
        close = difflib.get_close_matches(name.removeprefix(PREFIX), sorted(stems), n=1)
        hint = f" (did you mean {stems[close[0]]}?)" if close else ""
        return (
            f"{name} is no setting of maumau{hint}: the MAUMAU_ variables are the options of "
            f"{', '.join(OPERATOR_COMMANDS)} (docs/deploy.md); unset it or correct its name"
        )
    return None


def apply_environment(
    parser: argparse.ArgumentParser, environ: Mapping[str, str] | None = None
) -> None:
    """Make the ``MAUMAU_…`` variables set in ``environ`` (default: the process's)
    the defaults of ``parser``'s long options.  A variable whose value is wrong sets
    the default ``environment_error`` to a message naming it instead (the command
    line's runner refuses to run that command with it)."""
    environ = os.environ if environ is None else environ
    defaults: dict[str, object] = {}
    for action in parser._actions:
        longs = [o for o in action.option_strings if o.startswith("--")]
        if not longs or action.nargs == 0:  # --help, --version and flags
            continue
        name = variable(longs[0])
        if name not in environ:
            continue
        try:
            value = defaults[action.dest] = _value(action, name, environ[name].strip())
        except SettingError as exc:
            parser.set_defaults(environment_error=str(exc))
            return
        if isinstance(action, argparse._AppendAction):
            action.__class__ = _AppendOverEnvironment
            assert isinstance(action, _AppendOverEnvironment)
            action.environment = value
    if defaults:
        parser.set_defaults(**defaults)


class _AppendOverEnvironment(argparse._AppendAction):
    """A repeatable option whose default came from the environment: given on the
    command line, its values replace the environment's instead of adding to them."""

    environment: object = None

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        if getattr(namespace, self.dest, None) is self.environment:
            setattr(namespace, self.dest, None)
        super().__call__(parser, namespace, values, option_string)


def _subparsers(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    found: list[tuple[str, argparse.ArgumentParser]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found.extend(action.choices.items())
    return found


def _tree(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    return [parser] + [p for _, sub in _subparsers(parser) for p in _tree(sub)]


def _value(action: argparse.Action, name: str, text: str) -> object:
    if isinstance(action, argparse._AppendAction):
        return [_one(action, name, part.strip()) for part in text.split(",") if part.strip()]
    return _one(action, name, text)


def _one(action: argparse.Action, name: str, text: str) -> object:
    value: object = text
    if action.type is not None:
        convert = action.type
        try:
            value = convert(text)  # type: ignore[operator]
        except (argparse.ArgumentTypeError, TypeError, ValueError) as exc:
            raise SettingError(f"{name}: {exc or 'not a valid value'}") from None
    if action.choices is not None and value not in action.choices:
        choices = ", ".join(str(c) for c in action.choices)
        raise SettingError(f"{name}: {text!r} is not one of {choices}")
    return value
