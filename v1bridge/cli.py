"""The `v1bridge` console script: one front door, each subcommand in its own package.

Subcommands are imported lazily so that `v1bridge rewrite` never pays for
aiohttp and `v1bridge proxy` never pays for libcst.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from v1bridge import __version__

# subcommand -> (module, one-line help). The module exposes
# `configure(parser)` and `run(args) -> int`.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "proxy": ("proxy.cli_proxy", "serve v1 at /v1/... translated to a v2 upstream"),
    "sandbox": ("proxy.sandbox.cli", "serve the embedded v2 emulator at /v2/..."),
    "translate": ("proxy.cli_translate", "show the v2 request the proxy would send for a v1 request"),
    "rewrite": ("codemod.cli_rewrite", "rewrite Python v1 client code to v2"),
    "audit": ("codemod.cli_audit", "report what still depends on v1, in code or in proxy traffic"),
    "routes": ("mappings.cli", "print the v1 -> v2 operation table"),
    "mappings": ("mappings.cli_check", "check a v2 OpenAPI document against what the mapping depends on"),
    "rules": ("codemod.cli_rules", "list every rule (ID, class, severity, fixable) or explain one"),
}

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _top_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="v1bridge",
        description="Move clients of the retired v1 API to v2: proxy, rewrite, audit, sandbox.",
    )
    parser.add_argument("--version", action="version", version=f"v1bridge {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in SUBCOMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in SUBCOMMANDS:
        parser = _top_parser()
        if not argv:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        try:
            parser.parse_args(argv)
        except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
            return int(exc.code or 0)
        return EXIT_USAGE
    name, rest = argv[0], argv[1:]
    module_name, help_text = SUBCOMMANDS[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        print(f"v1bridge {name}: not available yet in this build", file=sys.stderr)
        return EXIT_USAGE
    parser = argparse.ArgumentParser(prog=f"v1bridge {name}", description=help_text)
    module.configure(parser)
    try:
        args = parser.parse_args(rest)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
