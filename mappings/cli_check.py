"""`v1bridge mappings check --v2 FILE|URL`: report every mapping entry whose v2 target is missing or changed.

Exit codes as ruff/black: 0 nothing the mapping depends on changed, 1 something did, 2 the document could
not be read (missing file, not JSON, not OpenAPI, the URL did not answer 200).
"""
from __future__ import annotations

import argparse
import json
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from mappings.check import SchemaError, check
from mappings.loader import SCHEMA_DIR, default_mappings, load

EXIT_OK, EXIT_CHANGED, EXIT_ERROR = 0, 1, 2
KEY_ENV = ("V1BRIDGE_API_KEY", "RUNPOD_API_KEY")


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    chk = sub.add_parser("check", help="compare a v2 OpenAPI document with the one the mapping was built on",
                         description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    chk.add_argument("--v2", required=True, metavar="FILE|URL",
                     help="the v2 document to check: a file, or a URL such as https://api.runpod.io/v2/openapi.json")
    chk.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    chk.add_argument("--api-key", metavar="KEY", default=None,
                     help=f"key for a URL (default: ${KEY_ENV[0]} or ${KEY_ENV[1]}); sent as a Bearer token")
    chk.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS", help="for a URL (default 30)")
    chk.add_argument("--base", metavar="FILE", default=None,
                     help="the document the mapping was built on (default: the packaged mappings/schemas/v2.json)")
    chk.add_argument("--mappings", metavar="DIR", help="read mapping data from DIR instead of the packaged files")


def _fetch(url: str, key: str | None, timeout: float) -> Any:
    from v1bridge import __version__

    headers = {"Accept": "application/json", "User-Agent": f"v1bridge/{__version__}"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:  # noqa: S310 - http(s) checked by the caller
            return json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        raise SchemaError(f"{url} answered {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise SchemaError(f"{url} could not be fetched: {reason}") from None
    except ValueError:
        raise SchemaError(f"{url} did not answer JSON") from None


def _read(source: str) -> Any:
    try:
        return json.loads(Path(source).read_text(encoding="utf-8"))
    except OSError as exc:
        raise SchemaError(f"{source}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise SchemaError(f"{source}: not JSON ({exc})") from None


def run(args: argparse.Namespace) -> int:
    """SchemaError, MappingError: shown by v1bridge/cli.py (exit 2)."""
    mappings = load(args.mappings) if args.mappings else default_mappings()
    base_path = args.base or str(SCHEMA_DIR / "v2.json")
    base = _read(base_path)
    if args.v2.startswith(("http://", "https://")):
        key = args.api_key or next((os.environ[k] for k in KEY_ENV if os.environ.get(k)), None)
        candidate = _fetch(args.v2, key, args.timeout)
    else:
        candidate = _read(args.v2)
    report = check(mappings, base, candidate, base_label=base_path, candidate_label=args.v2)
    if args.format == "json":
        print(json.dumps(report.as_dict(), indent=2))
    else:
        for finding in report.findings:
            print(finding.text())
        entries = len({(f.file, f.entry, f.field) for f in report.findings})
        if report.changed:
            print(f"{entries} mapping entries depend on something that changed in {args.v2} "
                  f"({len(report.findings)} changes, {report.checked} dependencies compared)")
        else:
            print(f"nothing the mapping depends on changed in {args.v2} ({report.checked} dependencies compared)")
    return EXIT_CHANGED if report.changed else EXIT_OK
