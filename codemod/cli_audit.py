"""`v1bridge audit PATH...` (code inventory) and `v1bridge audit --traffic USAGE...` (proxy traffic).

Exit codes: 0 nothing left on v1 (or no --fail-on-legacy); 1 with --fail-on-legacy
while unresolved v1 usage remains (markers excluded), a candidate file was not read,
or v1 traffic was seen; 2 usage or internal error.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from codemod import safe_write, selection
from mappings.errors import V1bridgeError

EXIT_OK, EXIT_LEGACY, EXIT_USAGE = 0, 1, 2
FORMATS = ("text", "json", "markdown", "sarif", "html")
SCOPES = ("rest", "graphql", "all")
GRAPHQL_CLASS = "retiring"


def allowed_rules(args: argparse.Namespace) -> frozenset[str]:
    """Rule IDs the run reports: --select/--ignore, then --scope (raises SelectionError)."""
    rules = selection.all_rules()
    chosen = selection.from_args(args).resolve(rules)
    if args.scope == "rest":
        chosen = frozenset(r for r in chosen if rules[r] != GRAPHQL_CLASS)
    elif args.scope == "graphql":
        chosen = frozenset(r for r in chosen if rules[r] == GRAPHQL_CLASS)
    return chosen


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or folders to audit (code inventory)")
    parser.add_argument("--traffic", nargs="+", metavar="USAGE", default=None,
                        help="audit proxy usage records (JSON Lines files, or folders of usage-*.jsonl) instead of code")
    parser.add_argument("--format", choices=FORMATS, default="text", help="report format (default: text)")
    parser.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE (atomically)")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="print only the verdict line (text format) and errors; --output still gets the whole "
                             "report")
    parser.add_argument("--fail-on-legacy", action="store_true",
                        help="exit 1 while unresolved v1 usage remains (markers excluded)")
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                        help="worker processes for the code audit (default: 1)")
    parser.add_argument("--scope", choices=SCOPES, default="all",
                        help="which API to report: rest (REST v1), graphql (the retiring GraphQL API) or all")
    parser.add_argument("--max-target-bytes", type=int, default=None, metavar="BYTES",
                        help="read files up to BYTES long (default: 2000000; 0: no limit); a larger file is listed "
                             "as not read and the verdict cannot be clean")
    selection.add_arguments(parser)
    parser.add_argument("--baseline", metavar="FILE",
                        help="findings recorded in FILE (by --write-baseline) are known: only new ones fail")
    parser.add_argument("--write-baseline", metavar="FILE",
                        help="record today's unresolved findings in FILE (JSON) and exit 0")


def _render_code(report, fmt: str, terminal: bool) -> str:
    if fmt == "json":
        from codemod.audit import report_json
        return report_json.render(report)
    if fmt == "markdown":
        from codemod.audit import report_markdown
        return report_markdown.render(report)
    if fmt == "sarif":
        from codemod.audit import report_sarif
        return report_sarif.render(report)
    if fmt == "html":
        from codemod.audit import report_html
        return report_html.render(report)
    from codemod.audit import report_text
    return report_text.render(report, terminal=terminal)


def _render_traffic(report, fmt: str, terminal: bool) -> str:
    from codemod.audit import traffic
    return traffic.render(report, fmt, terminal=terminal)


def run(args: argparse.Namespace) -> int:
    if args.traffic is not None and args.paths:
        print("v1bridge audit: give PATH... or --traffic USAGE..., not both", file=sys.stderr)
        return EXIT_USAGE
    if args.traffic is None and not args.paths:
        print("v1bridge audit: nothing to audit (give PATH... or --traffic USAGE...)", file=sys.stderr)
        return EXIT_USAGE
    if args.jobs < 1:
        print("v1bridge audit: --jobs must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    if args.max_target_bytes is not None and (args.max_target_bytes < 0 or args.traffic is not None):
        print("v1bridge audit: --max-target-bytes takes 0 (no limit) or more, for the code audit", file=sys.stderr)
        return EXIT_USAGE
    if args.traffic is not None and args.format in ("sarif", "html"):
        print(f"v1bridge audit: --format {args.format} is for the code audit; use text, json or markdown "
              "with --traffic", file=sys.stderr)
        return EXIT_USAGE
    if args.traffic is not None and (args.baseline or args.write_baseline):
        print("v1bridge audit: --baseline and --write-baseline are for the code audit", file=sys.stderr)
        return EXIT_USAGE
    if args.baseline and args.write_baseline:
        print("v1bridge audit: give --baseline or --write-baseline, not both", file=sys.stderr)
        return EXIT_USAGE
    allowed = allowed_rules(args)  # SelectionError: shown by v1bridge/cli.py
    known = None
    if args.baseline:
        from codemod.audit import baseline
        known = baseline.load(args.baseline)  # BaselineError: shown by v1bridge/cli.py
    terminal = args.output is None and sys.stdout.isatty()
    try:
        if args.traffic is not None:
            from codemod.audit import traffic
            missing = [p for p in args.traffic if not Path(p).exists()]
            if missing:
                print(f"v1bridge audit: no such usage file: {', '.join(missing)}", file=sys.stderr)
                return EXIT_USAGE
            empty = [p for p in args.traffic if not traffic.usage_files(p)]
            if empty:
                print(f"v1bridge audit: no usage files ({traffic.USAGE_GLOB}) in {', '.join(empty)}", file=sys.stderr)
                return EXIT_USAGE
            report = traffic.read_usage([f for p in args.traffic for f in traffic.usage_files(p)])
            text = _render_traffic(report, args.format, terminal)
            legacy = report.legacy_remaining
        else:
            missing = [p for p in args.paths if not Path(p).exists()]
            if missing:
                print(f"v1bridge audit: no such file or folder: {', '.join(missing)}", file=sys.stderr)
                return EXIT_USAGE
            from codemod.audit import baseline
            from codemod.audit.engine import MAX_BYTES, audit_paths, narrow
            max_bytes = MAX_BYTES if args.max_target_bytes is None else args.max_target_bytes
            own = {path: why for path, why in ((args.baseline, "the baseline in use"),
                                               (args.write_baseline, "the baseline this run writes"),
                                               (args.output, "the report this run writes")) if path}
            report = audit_paths(list(args.paths), jobs=args.jobs, exclude=args.exclude, max_bytes=max_bytes,
                                 own_files=own)
            narrow(report, allowed)
            report.scope = args.scope
            report.selection = (selection.from_args(args).select, selection.from_args(args).ignore)
            if args.write_baseline:
                count = baseline.write(report, args.write_baseline)
                if not args.quiet:
                    print(f"v1bridge audit: baseline of {count} finding(s) written to {args.write_baseline}",
                          file=sys.stderr)
            if known is not None:
                baseline.apply(report, known)
            text = _render_code(report, args.format, terminal)
            legacy = report.legacy_remaining and not args.write_baseline
            if report.not_read and args.fail_on_legacy and not args.write_baseline:
                print(f"v1bridge audit: {len(report.not_read)} candidate file(s) not read (see the report; "
                      "--max-target-bytes raises the size limit): the gate cannot pass", file=sys.stderr)
                legacy = True
        if args.output:
            safe_write.replace(args.output, text.encode("utf-8"))
        elif args.quiet and args.format == "text":
            verdict, sentence = report.verdict()
            print(f"verdict: {verdict} - {sentence}")
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
    except V1bridgeError:  # a refusal (a read-only report file, ...): shown by v1bridge/cli.py, not as internal
        raise
    except Exception as exc:  # internal error: say so, exit 2, never a traceback dump by default
        print(f"v1bridge audit: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        if os.environ.get("V1BRIDGE_DEBUG"):
            raise
        return EXIT_USAGE
    return EXIT_LEGACY if (args.fail_on_legacy and legacy) else EXIT_OK
