"""Render modes of the environments, as PettingZoo's classic games and Gymnasium name
them: ``"ansi"`` returns the table as text, ``"human"`` prints that text (and returns
``None``).  ``"rgb_array"`` is refused when the environment is made: a card table has
no picture here.  The refusal is a :class:`RenderModeError`, a ``ValueError`` that is
also a ``TypeError``, because Stable-Baselines3's ``make_vec_env`` first tries
``render_mode="rgb_array"`` and makes the environment without it on ``TypeError``.
"""

from __future__ import annotations

#: the render modes every environment of maumau.env offers
RENDER_MODES = ("ansi", "human")


class RenderModeError(ValueError, TypeError):
    """A render mode the environments do not offer."""


def check_render_mode(render_mode: str | None) -> None:
    """Raise :class:`RenderModeError` naming ``render_mode`` unless it is offered."""
    if render_mode is None or render_mode in RENDER_MODES:
        return
    if render_mode == "rgb_array":
        raise RenderModeError(
            "render_mode 'rgb_array' is not supported: a card table has no picture here; "
            "use 'ansi' (the table as text) or 'human' (the text printed)"
        )
    raise RenderModeError(
        f"render_mode: {render_mode!r} is not one of None, {', '.join(map(repr, RENDER_MODES))}"
    )


def show(render_mode: str | None, text: str) -> str | None:
    """What ``render()`` returns for ``text``: the text itself in ``"ansi"`` mode; in
    ``"human"`` mode it is printed and ``None`` returned."""
    if render_mode == "human":
        print(text)
        return None
    return text
