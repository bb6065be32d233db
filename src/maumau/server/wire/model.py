"""The base of every protocol model, and the display name's type (``maumau.server.wire.protocol``
and ``maumau.server.wire.table_talk`` build on them)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field


class Model(BaseModel):
    """Base of every message: unknown fields are refused, not ignored, and values are
    not converted: ``"12"`` or ``12.5`` is no integer, ``false`` is no number (an
    integer is a number, though)."""

    model_config = ConfigDict(extra="forbid", strict=True)


#: a display name.  Its rules (at most 32 characters after normalisation, no control
#: or format characters, distinct at the table...) are those of ``maumau.server.wire.names``,
#: checked there so that a refusal is ``bad_name`` or ``name_taken`` and names the
#: rule, not a ``bad_message`` about the body's shape
Name = Annotated[
    str,
    Field(
        description="a display name: 1 to 32 characters after normalisation, no control "
        "or format characters (docs/protocol.md, Display names)"
    ),
]
