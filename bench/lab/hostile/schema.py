"""schemathesis cases from the server's OpenAPI document, with real game ids and tokens
put in, and schemathesis' own checks of the replies."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from hypothesis import strategies as st

from lab.hostile.games import Context
from lab.hostile.raw_http import auth_headers, http_games


def schema_cases(
    schema: Any, ctx: Context
) -> st.SearchStrategy[tuple[Any, str | None, str | None]]:
    """schemathesis cases for every operation of the OpenAPI schema, negative and
    positive, each with (perhaps) a real game id and an Authorization value to put in."""
    from schemathesis import GenerationMode

    operations = [result.ok() for result in schema.get_all_operations()]
    cases = st.one_of(
        [
            op.as_strategy(generation_mode=mode)
            for op in operations
            for mode in (GenerationMode.NEGATIVE, GenerationMode.POSITIVE)
        ]
    )
    ids = st.none() | st.sampled_from([g.id for g in http_games(ctx)])
    auth = st.none() | st.sampled_from(auth_headers(ctx))
    return st.tuples(cases, ids, auth)


def prepare_case(case: Any, game_id: str | None, authorization: str | None) -> Any:
    """Put a real game id and an Authorization value into a generated case."""
    params = case.path_parameters
    if game_id is not None and isinstance(params, dict) and "game_id" in params:
        params["game_id"] = game_id
    if authorization is not None:
        headers = dict(case.headers or {})
        headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
        headers["Authorization"] = authorization
        case.headers = headers
    return case


#: schemathesis' own checks run on every reply; the first is a gate, the others are
#: reported (they compare the replies with the OpenAPI document)
def schemathesis_checks() -> list[Any]:
    from schemathesis.checks import (
        content_type_conformance,
        negative_data_rejection,
        not_a_server_error,
        response_schema_conformance,
        status_code_conformance,
    )

    return [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        response_schema_conformance,
        negative_data_rejection,
    ]


def run_schemathesis_checks(case: Any, response: Any, checks: list[Any]) -> list[str]:
    """The names of the schemathesis checks ``response`` fails."""
    failed = []
    for check in checks:
        try:
            case.validate_response(response, checks=[check])
        except (Exception, BaseExceptionGroup):  # schemathesis' FailureGroup
            failed.append(check.__name__)
    return failed


def case_json(case: Any) -> dict[str, Any]:
    body = case.body
    with contextlib.suppress(Exception):
        body = json.loads(json.dumps(body, default=repr))
    return {
        "operation": case.operation.label,
        "path_parameters": repr(case.path_parameters)[:200],
        "headers": repr(case.headers)[:300],
        "query": repr(case.query)[:200],
        "body": repr(body)[:300],
    }
