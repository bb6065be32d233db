"""The live campaign's results as tables."""

from __future__ import annotations

from typing import Any


def report(result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    ws = result["websocket"]
    table = Table(title=f"WebSocket: {ws['total']:,} hostile messages")
    table.add_column("category")
    table.add_column("sent", justify="right")
    table.add_column("right answer", justify="right")
    table.add_column("answers")
    for category, sent in sorted(ws["sent"].items(), key=lambda kv: -kv[1]):
        answers = ws["by_category"][category]
        top = ", ".join(f"{a} {n}" for a, n in sorted(answers.items(), key=lambda kv: -kv[1])[:6])
        more = len(answers) - 6
        table.add_row(
            category,
            f"{sent:,}",
            f"{ws['ok'].get(category, 0):,}",
            top + (f", +{more} more" if more > 0 else ""),
        )
    console.print(table)

    codes = Table(title="WebSocket answers, by error code (or close code)")
    codes.add_column("answer")
    codes.add_column("count", justify="right")
    for answer, count in sorted(ws["answers"].items(), key=lambda kv: -kv[1]):
        codes.add_row(answer, f"{count:,}")
    console.print(codes)

    for name in ("http_schemathesis", "http_raw"):
        part = result[name]
        title = (
            f"HTTP, schemathesis from /openapi.json: {part['total']:,} requests"
            if name == "http_schemathesis"
            else f"HTTP, raw malformed requests: {part['total']:,}"
        )
        table = Table(title=title)
        table.add_column("operation / category")
        table.add_column("sent", justify="right")
        table.add_column("passed", justify="right")
        table.add_column("answers (code or status)")
        for category, sent in sorted(part["sent"].items()):
            answers = part["by_category"][category]
            top = ", ".join(
                f"{a} {n}" for a, n in sorted(answers.items(), key=lambda kv: -kv[1])[:5]
            )
            table.add_row(category, f"{sent:,}", f"{part['ok'].get(category, 0):,}", top)
        console.print(table)

    attacks = result.get("attacks") or {}
    if attacks:
        table = Table(
            title="The attacks of the security issue (same server, after the parts above)"
        )
        table.add_column("attack")
        table.add_column("gate")
        table.add_column("passed")
        table.add_column("what happened")
        for name, part in attacks.items():
            table.add_row(name, part["gate"], str(part["passed"]), part["headline"])
        console.print(table)

    summary = Table(title="Verdict")
    summary.add_column("check")
    summary.add_column("result", justify="right")
    for check, value in result["summary"].items():
        summary.add_row(check, str(value))
    console.print(summary)
    for gate in result["failed_gates"]:
        console.print(f"[bold red]failed:[/] {gate}")
    if result["server_utf8_records"]["count"]:
        console.print(
            "uvicorn (its websockets-sansio protocol) logs every text frame that is not UTF-8 "
            "as an ERROR with a traceback, although the client is at fault; it closes the "
            "connection with 1007 as it should.  `maumau serve` can quiet it with a logging "
            "filter on the 'uvicorn.error' logger (see docs/history/performance-history.md, "
            "'The first run, and what it found')."
        )
    if result["failures"]:
        console.print("[bold red]failures (first ones):[/]")
        for failure in result["failures"][:20]:
            console.print(failure)
