"""The `v1bridge` console script: one front door, each subcommand in its own package.

Subcommands are imported lazily so that `v1bridge rewrite` never pays for
aiohttp and `v1bridge proxy` never pays for libcst.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from mappings.errors import V1bridgeError
from v1bridge import __version__, settings

# subcommand -> (module, one-line help). The module exposes
# `configure(parser)` and `run(args) -> int`.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "proxy": ("proxy.cli_proxy", "serve v1 at /v1/... translated to a v2 upstream"),
    "sandbox": ("sandbox.cli", "serve the embedded v2 emulator at /v2/..."),
    "translate": ("proxy.cli_translate", "show the v2 request the proxy would send for a v1 request or a GraphQL document"),
    "rewrite": ("codemod.cli_rewrite", "rewrite Python v1 client code to v2"),
    "audit": ("codemod.cli_audit", "report what still depends on v1, in code or in proxy traffic"),
    "routes": ("mappings.cli", "print the v1 -> v2 operation table"),
    "mappings": ("mappings.cli_check", "check a v2 OpenAPI document against what the mapping depends on"),
    "rules": ("codemod.cli_rules", "list every rule (ID, class, severity, fixable) or explain one"),
}

# subcommand -> examples shown at the end of its --help (tests/test_cli.py runs each of them)
EXAMPLES: dict[str, tuple[str, ...]] = {
    "proxy": (
        "v1bridge proxy                                  # embedded sandbox upstream; prints a dev key",
        "v1bridge proxy --upstream https://api.runpod.io --port 8080 --workers 4",
        "v1bridge proxy --config v1bridge.toml --strict reset",
    ),
    "sandbox": (
        "v1bridge sandbox --port 8090 --keys dev-key",
        "v1bridge sandbox --db state.sqlite --max-page-size 3",
    ),
    "translate": (
        "v1bridge translate GET /v1/pods?desiredStatus=RUNNING",
        "v1bridge translate POST /v1/pods '{\"imageName\": \"x\", \"gpuTypeIds\": [\"NVIDIA A40\"]}'",
        "v1bridge translate --strict all POST /v1/pods/abc/reset",
        "v1bridge translate 'mutation { podStop(input: {podId: \"abc\"}) { id desiredStatus } }'",
    ),
    "rewrite": (
        "v1bridge rewrite src/ --diff                    # review the change",
        "v1bridge rewrite src/                           # apply it",
        "v1bridge rewrite src/ --check                   # CI: exit 1 while v1 code remains",
    ),
    "audit": (
        "v1bridge audit . --format html --output audit.html",
        "v1bridge audit . --write-baseline .v1bridge-baseline.json",
        "v1bridge audit . --baseline .v1bridge-baseline.json --fail-on-legacy --format sarif -o audit.sarif",
        "v1bridge audit --traffic /var/log/v1bridge/",
    ),
    "routes": ("v1bridge routes", "v1bridge routes --format json"),
    "mappings": ("v1bridge mappings check --v2 openapi.json", "v1bridge mappings check --v2 https://rest.runpod.io/v2/openapi.json --api-key $KEY"),
    "rules": ("v1bridge rules", "v1bridge rules Q13", "v1bridge rules --format markdown"),
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


def _apply_settings(name: str, parser: argparse.ArgumentParser, rest: list[str]) -> None:
    """Defaults from `[tool.v1bridge]` (audit, rewrite) or `--config FILE` (proxy); flags still override."""
    if name in settings.PROJECT_COMMANDS:
        # like ruff: the settings of the project the first PATH lives in, else of the current folder
        given = next((Path(a) for a in rest if not a.startswith("-") and Path(a).exists()), None)
        start = None if given is None else (given if given.is_dir() else given.parent)
        settings.apply_project(name, parser, start)
    elif name == "proxy":
        parser.add_argument("--config", metavar="FILE",
                            help="TOML file of settings: any long option without its dashes "
                                 "(upstream, keys-file, strict, max-body, ...); flags override it")
        pre = argparse.ArgumentParser(add_help=False)
        pre.add_argument("--config")
        known, _ = pre.parse_known_args(rest)
        if known.config:
            settings.apply_config_file(parser, Path(known.config))


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
    parser = argparse.ArgumentParser(prog=f"v1bridge {name}", description=help_text,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="examples:\n" + "\n".join(f"  {line}" for line in EXAMPLES[name]))
    module.configure(parser)
    label = f"v1bridge {name}"
    try:
        _apply_settings(name, parser, rest)
        try:
            args = parser.parse_args(rest)
        except SystemExit as exc:
            return int(exc.code or 0)
        if isinstance(getattr(args, "action", None), str):  # `v1bridge mappings check`
            label = f"{label} {args.action}"
        return int(module.run(args) or 0)
    except V1bridgeError as exc:  # the one place a tool's refusal is shown: one line, exit 2 (mappings/errors.py)
        print(f"{label}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
