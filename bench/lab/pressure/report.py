"""A run's results as a table: printed (rich) and as markdown."""

from __future__ import annotations

from typing import Any

from lab.pressure.stats import show_ms, show_ratio

COLUMNS = (
    "phase", "health p50", "health p99", "health max", "p99 x quiet",
    "move p50", "move p99", "move max", "p99 x quiet", "moves",
    "what the server allowed", "errors the table and the poller saw",
)  # fmt: skip
#: the columns right-aligned
NUMERIC = range(1, 10)


def counts(seen: dict[str, int]) -> str:
    return ", ".join(f"{k} x{v}" for k, v in sorted(seen.items(), key=lambda kv: -kv[1]))


def allowed(phase: dict[str, Any]) -> str:
    """What the server let the attacker do, in a few words."""
    attack = phase.get("attack")
    if attack is None:
        return "-"
    if "failed" in attack:
        return str(attack["failed"])
    name = phase["name"]
    if name == "replay":
        refused = {k: v for k, v in attack["statuses"].items() if k != "200"}
        also = f"; refused or failed: {counts(refused)}" if refused else ""
        return f"{attack['completed']} whole replays to {attack['clients']} clients{also}"
    if name == "bots":
        cap = attack.get("cap")
        then = attack["refused"] or (
            f"the campaign's cap of {cap}, nothing refused"
            if attack["tables_started"] == cap
            else "nothing refused"
        )
        return f"{attack['tables_started']} tables running (then: {then})"
    if name == "sockets":
        return f"{attack['open_1s_after']} sockets open (then: {attack['refused']})"
    return flood(name, attack)


def flood(name: str, attack: dict[str, Any]) -> str:
    """What the server let one of the floods (qr, health, info, hello, chat, ping) do."""
    closed = counts(attack.get("closed_by_server") or {})
    if name in ("qr", "health", "info"):
        return (
            f"{attack['requests']:,} answers to {attack['loops']} loops: "
            f"{counts(attack['classes']) or 'none'}"
        )
    if name == "hello":
        return (
            f"{attack['hellos_sent']:,} hellos on {attack['connections']:,} sockets: "
            f"{counts(attack['replies']) or 'no answer'}; closed by the server: "
            f"{closed or 'none'}"
        )
    if name == "chat":
        refused = {k: v for k, v in attack["replies"].items() if not k.startswith("hello")}
        return (
            f"{attack['lines_accepted']:,} of {attack['lines_sent']:,} lines accepted at "
            f"{attack['tables']} tables; refused: {counts(refused) or 'none'}"
        )
    if name == "ping":
        return (
            f"{attack['pongs']:,} of {attack['pings_sent']:,} pings answered; closed by "
            f"the server: {closed or 'none'}"
        )
    return "-"


def details(phase: dict[str, Any]) -> str:
    """The attack's and the server's figures in full."""
    attack = phase.get("attack") or {}
    s = phase["server"]
    name = phase["name"]
    out = [
        f"{phase['seconds']} s; server CPU {s['cpu_cores']} cores, RSS up to "
        f"{s['rss_max_mb']} MB, open files up to {s['open_files_max']}; "
        f"{phase['health']['n']} health polls, {phase['health']['unanswered']} unanswered "
        f"(30 s or a failed connection); {phase['moves']['n']} moves"
        + (
            ""
            if phase["settle_s"] is None
            else f"; /api/health fast again {phase['settle_s']} s after"
        )
    ]
    if name == "replay" and "statuses" in attack:
        mean = attack["mean_s"]
        out.append(
            f"{attack['completed']} whole replays ({attack['mb_received']:,} MB read"
            + (f", {mean:g} s each on average, at most {attack['max_s']:g} s" if mean else "")
            + f"); answers {counts(attack['statuses']) or 'none'}"
        )
    if name == "bots" and "tables_started" in attack:
        out.append(
            f"{attack['tables_started']} tables of 7 {attack['level']} bots started in "
            f"{attack['setup_s']} s; refused: {attack['refused'] or 'nothing'}; "
            f"at the end {counts(attack['status_at_end']) or 'none'}"
            + (f"; {counts(attack['notes'])}" if attack["notes"] else "")
        )
    if name == "sockets" and "handshakes_ok" in attack:
        probes = "; ".join(
            f"GET {path} {counts(seen) or 'not probed'}" for path, seen in attack["probes"].items()
        )
        out.append(
            f"{attack['handshakes_ok']} handshakes in {attack['opening_s']} s, stopped by: "
            f"{attack['refused']}; open 1 s later {attack['open_1s_after']}, at the end "
            f"{attack['open_at_end']}; closed by the server: "
            f"{counts(attack['closed_by_server']) or 'none'}; while they were open "
            f"(new connections from the other address, once a second): {probes}"
        )
    if name in FLOODS and attack and "failed" not in attack:
        out.append(
            ", ".join(f"{key} {_plain(value)}" for key, value in attack.items() if value != {})
        )
    log = phase.get("server_log")
    if log and (log["errors"] or log["tracebacks"]):
        ends = counts(dict(log["exceptions"])) or "none"
        out.append(
            f"server log: {log['errors']} ERROR lines, {log['tracebacks']} tracebacks "
            f"(ending in {ends})"
        )
    return "; ".join(out)


#: the phases whose attack's figures :func:`details` lists as they are
FLOODS = ("qr", "health", "info", "hello", "chat", "ping")


def _plain(value: Any) -> str:
    return counts(value) if isinstance(value, dict) else str(value)


def errors(phase: dict[str, Any]) -> str:
    return counts(dict(phase.get("observer_errors") or {})) or "none"


def row(phase: dict[str, Any]) -> list[str]:
    health, moves = phase["health"], phase["moves"]
    return [
        phase["name"],
        show_ms(health["p50_ms"]),
        show_ms(health["p99_ms"]),
        show_ms(health["max_ms"]),
        show_ratio(health.get("p99_ratio")),
        show_ms(moves["p50_ms"]),
        show_ms(moves["p99_ms"]),
        show_ms(moves["max_ms"]),
        show_ratio(moves.get("p99_ratio")),
        f"{moves['n']:,}",
        allowed(phase),
        errors(phase),
    ]


def header(result: dict[str, Any]) -> list[str]:
    seeded = result["seeded"]
    config = result["config"]
    log = result.get("server_log", {})
    at_stop = result.get("server_log_at_stop", {})
    return [
        f"{result['when']}, tree {result['source']} at {result['revision']}; {result['machine']}",
        f"database {result.get('database', 'sqlite')}, {result.get('servers', 1)} server "
        "process(es)"
        + (
            "; the human table is created at the first, two of its seats connect to each, "
            "health polls go to each in turn, every attack's loops, sockets or tables go "
            "half to each (the ping flood to the second)"
            if result.get("servers", 1) > 1
            else ""
        ),
        f"server RLIMIT_NOFILE (soft, hard): started with {result['nofile_given']}, "
        f"ran with {result['nofile']}; phases of "
        f"{config['phase_seconds']:g} s; times in ms; p99 x quiet: the phase's p99 over the "
        "quiet phase's",
        f"long game: {seeded['seats']} seats, {seeded['options']}, {seeded['rounds']} rounds, "
        f"{seeded['actions']:,} actions (written by the tree's own store, not played by "
        "the server)",
        f"server log during the run: {log.get('errors', '?')} ERROR lines, "
        f"{log.get('tracebacks', '?')} tracebacks, {log.get('warnings', '?')} warnings; "
        f"while stopping: {at_stop.get('errors', '?')} ERROR lines, "
        f"{at_stop.get('tracebacks', '?')} tracebacks; alive at the end: "
        f"{result.get('server_alive_at_end')}",
    ]


def log_lines(result: dict[str, Any]) -> list[str]:
    out = []
    for when in ("server_log", "server_log_at_stop"):
        label = "during the run" if when == "server_log" else "while stopping"
        problems = result.get(when, {})
        for line, count in problems.get("distinct", []):
            out.append(f"server log {label} x{count}: {line}")
        for line, count in problems.get("exceptions", []):
            out.append(f"server log {label}, traceback ending x{count}: {line}")
    return out


def print_report(result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if console.width < 160:
        console = Console(width=160)
    lines = header(result)
    table = Table(title="Hostile load: " + lines[0])
    for index, name in enumerate(COLUMNS):
        table.add_column(name, justify="right" if index in NUMERIC else "left")
    for phase in result.get("phases", []):
        table.add_row(*row(phase))
    console.print(table)
    for line in lines[1:]:
        console.print(line)
    for phase in result.get("phases", []):
        console.print(f"{phase['name']}: {details(phase)}")
    for line in log_lines(result):
        console.print(line)


def markdown(result: dict[str, Any], command: str) -> str:
    out = [f"```bash\n{command}\n```", ""]
    out += [f"- {line}" for line in header(result)]
    out += ["", "| " + " | ".join(COLUMNS) + " |"]
    out.append("|" + "".join("---:|" if i in NUMERIC else "---|" for i in range(len(COLUMNS))))
    for phase in result.get("phases", []):
        out.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row(phase)) + " |")
    out.append("")
    out += [f"- **{phase['name']}**: {details(phase)}" for phase in result.get("phases", [])]
    out += [f"- {line}" for line in log_lines(result)]
    return "\n".join(out) + "\n"
