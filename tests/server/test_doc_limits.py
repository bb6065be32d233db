"""What the operator's and client's docs name exists in the code, and every limit the
code has is in the docs: docs/protocol.md's limits table against ``ServerConfig``, its
error-code table against the server's codes, and every ``MAUMAU_…`` variable and every
``maumau serve --option`` the docs or the README name against the options the command
really reads.

(``tests/server/test_protocol_doc.py`` checks the other direction for the protocol: every
message, field, route and code the code has is named in the doc.)
"""

from __future__ import annotations

import argparse
import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from maumau.cli.env import OPERATOR_COMMANDS, PREFIX, RESERVED, variable
from maumau.cli.main import build_parser
from maumau.server.config import ServerConfig
from maumau.server.wire.errors import ERROR_CODES
from maumau.server.wire.protocol import CLIENT_TYPES, TableSettings
from support.paths import ROOT

PROTOCOL = ROOT / "docs" / "protocol.md"
#: the documents an operator or a client reads for settings, limits and codes (not
#: docs/history: a record of the past may name a setting that is gone since)
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: ServerConfig fields that are no limit a client meets (where things are, which
#: origins, how the process is run); every other field must be in the limits table
NOT_LIMITS = {
    "data_dir",
    "database_url",
    "allowed_origins",
    "trusted_proxies",
    "public_url",
    "web_dir",
    "metrics_port",
    "metrics_host",
}


def _prose(path: Path) -> str:
    """A document without its fenced code blocks."""
    text = path.read_text(encoding="utf-8")
    return re.sub(r"^```.*?^```[ \t]*$", "", text, flags=re.M | re.S)


def _limits_table() -> list[str]:
    """The rows of the table under docs/protocol.md's "## Limits" heading."""
    text = _prose(PROTOCOL)
    section = text.split("\n## Limits\n", 1)[1].split("\n#", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]


def _parsers(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every (sub)command's parser, by its command path (``serve``, ``admin tables``)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name, sub
                for deeper, subsub in _parsers(sub):
                    yield f"{name} {deeper}", subsub


def _long_options(parser: argparse.ArgumentParser) -> set[str]:
    return {o for a in parser._actions for o in a.option_strings if o.startswith("--")}


@pytest.fixture(scope="module")
def commands() -> dict[str, argparse.ArgumentParser]:
    return dict(_parsers(build_parser()))


def test_every_limit_of_the_server_is_in_the_limits_table() -> None:
    table = "\n".join(_limits_table())
    limits = [f.name for f in dataclasses.fields(ServerConfig) if f.name not in NOT_LIMITS]
    missing = [name for name in limits if f"`{name}`" not in table]
    assert not missing, f"docs/protocol.md's limits table does not name: {missing}"


def test_every_setting_the_limits_table_names_exists() -> None:
    known = {f.name for f in dataclasses.fields(ServerConfig)} | set(TableSettings.model_fields)
    known |= set(CLIENT_TYPES)  # message types (`ask_seat`)
    named = {
        name
        for row in _limits_table()
        for name in re.findall(r"`([a-z]+(?:_[a-z]+)+)`", row.split("|")[2])
    }
    assert named, "the limits table names no setting: the table's layout changed"
    unknown = sorted(named - known)
    assert not unknown, f"the limits table names settings the server does not have: {unknown}"


def test_every_error_code_in_the_docs_exists() -> None:
    documented = set(re.findall(r"^\|\s*`([a-z_]+)`\s*\|\s*\d{3}\s*\|", _prose(PROTOCOL), re.M))
    assert documented, "no error-code table found in docs/protocol.md"
    unknown = sorted(documented - set(ERROR_CODES))
    assert not unknown, f"docs/protocol.md's error table names codes that do not exist: {unknown}"


def test_every_environment_variable_the_docs_name_is_read(
    commands: dict[str, argparse.ArgumentParser],
) -> None:
    read = {
        variable(option)
        for command, parser in commands.items()
        if command.split()[0] in OPERATOR_COMMANDS
        for option in _long_options(parser)
    }
    named = {
        (path.name, name)
        for path in DOCS
        for name in re.findall(rf"\b{PREFIX}[A-Z0-9_]+\b", path.read_text(encoding="utf-8"))
    }
    assert named, "the docs name no MAUMAU_ variable: the check no longer looks at them"
    unknown = sorted(
        (doc, name) for doc, name in named if name not in read and not name.startswith(RESERVED)
    )
    assert not unknown, f"variables the docs name but no command reads: {unknown}"


def test_every_serve_option_the_docs_name_exists(
    commands: dict[str, argparse.ArgumentParser],
) -> None:
    options = _long_options(commands["serve"])
    named = {
        (path.name, option)
        for path in DOCS
        for option in re.findall(r"maumau serve[^`\n|]*?(--[a-z][a-z0-9-]*)", _prose(path))
    }
    assert named, "the docs name no `maumau serve --option`: the check no longer looks"
    unknown = sorted((doc, option) for doc, option in named if option not in options)
    assert not unknown, f"`maumau serve` options the docs name that do not exist: {unknown}"
