"""The command line of ``bench/hostile.py``."""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path

import lab.hostile
from lab.hostile.campaign import campaign
from lab.hostile.report import report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=lab.hostile.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=10_000, help="WebSocket messages")
    parser.add_argument(
        "--requests", type=int, default=3_000, help="schemathesis HTTP requests (raw: a third)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the results here")
    parser.add_argument("--keep", action="store_true", help="keep the server's data directory")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="maumau-hostile-"))
    try:
        result = campaign(args.messages, args.requests, args.seed, work)
    finally:
        if not args.keep:
            import shutil

            shutil.rmtree(work, ignore_errors=True)
    report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=str) + "\n")
    return 0 if result["passed"] else 1
