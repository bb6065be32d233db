"""The server builds on uvicorn's and websockets' internals: it runs only on the
versions it was tested with, and says so clearly when another one is installed."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from maumau.cli.main import main
from maumau.server.transport import dependencies
from maumau.server.transport.dependencies import SUPPORTED, UnsupportedVersion, check, requirement
from support.paths import ROOT


def installed_as(monkeypatch: pytest.MonkeyPatch, **versions: str | None) -> None:
    """Pretend these distributions are installed at these versions (``None``: not at
    all); the others as they are."""
    real = metadata.version

    def version(name: str) -> str:
        if name not in versions:
            return real(name)
        found = versions[name]
        if found is None:
            raise metadata.PackageNotFoundError(name)
        return found

    monkeypatch.setattr(dependencies.metadata, "version", version)


def test_the_installed_versions_are_supported() -> None:
    check()  # what the tests run on


def test_pyproject_bounds_each_dependency_to_the_supported_versions() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for name in SUPPORTED:
        wanted = requirement(name)
        assert wanted in project["dependencies"], (wanted, project["dependencies"])


@pytest.mark.parametrize(
    ("name", "version"),
    [
        ("uvicorn", "0.54.0"),
        ("uvicorn", "0.54.7"),
        ("websockets", "17.4"),
        ("websockets", "17.4.2"),
    ],
)
def test_releases_within_the_bounds_are_accepted(
    monkeypatch: pytest.MonkeyPatch, name: str, version: str
) -> None:
    installed_as(monkeypatch, **{name: version})
    check()


@pytest.mark.parametrize(
    ("name", "version"),
    [
        ("uvicorn", "0.55.0"),
        ("uvicorn", "0.55.0rc1"),
        ("uvicorn", "0.53.9"),
        ("uvicorn", "1.0"),
        ("websockets", "17.5"),
        ("websockets", "18.0"),
        ("websockets", "16.0"),
    ],
)
def test_an_unsupported_version_is_refused_with_what_to_install(
    monkeypatch: pytest.MonkeyPatch, name: str, version: str
) -> None:
    installed_as(monkeypatch, **{name: version})
    low, high, _ = SUPPORTED[name]
    with pytest.raises(UnsupportedVersion) as caught:
        check()
    message = str(caught.value)
    assert f"{name} {version} is installed" in message
    assert f">={low},<{high}" in message
    assert f"pip install '{requirement(name)}'" in message


def test_a_missing_dependency_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    installed_as(monkeypatch, websockets=None)
    with pytest.raises(UnsupportedVersion, match="websockets is not installed"):
        check()


def test_serve_does_not_start_on_an_unsupported_version(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    installed_as(monkeypatch, uvicorn="0.56.1")
    assert main(["serve", "--data-dir", str(tmp_path / "data"), "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert "maumau serve: uvicorn 0.56.1 is installed" in err
    assert "pip install 'uvicorn[standard]>=0.54.0,<0.55'" in err
    assert not (tmp_path / "data").exists()  # nothing was done
