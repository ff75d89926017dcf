"""Baselines: adopt the audit gate on a large repository without fixing everything on day one.

`audit --write-baseline FILE` records today's unresolved findings; `audit --baseline FILE
--fail-on-legacy` fails only on findings that are not in it. Findings are matched by a
fingerprint that survives line moves and unrelated edits:

    sha256(rule, file, normalised source of the call)[:16] + ":" + occurrence

The normalised source is what the finding is about, with every name the author may choose
taken out: for a call, its method and v1 route template (`POST /pods/{podId}/stop`, whatever
the variables in `"/pods/$id/stop"` are called); for a field or parameter, its kind and
name; for a base URL, the host; otherwise the source line with whitespace removed,
identifiers outside string literals replaced by `_` and interpolations inside them by `{}`.
Moving the call, renaming a variable, re-indenting, adding blank lines or editing the rest
of the line keeps the fingerprint; calling another route or reading another field does not.
`occurrence` numbers identical fingerprints in one file in line order, so two identical calls
are two entries and a third one is new.
The same string is the SARIF `partialFingerprints["v1bridge/v1"]` of the finding.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from codemod.audit.model import AuditFinding, AuditReport
from mappings.errors import UsageError

SCHEMA_ID = "v1bridge.audit.baseline/1"
STRING = re.compile(r"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`)""")
INTERPOLATION = re.compile(r"\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_:]*|\{[^{}]*\}|%[sdvq]")
IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
KEYWORDS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "get", "post", "put", "patch", "delete"})


class BaselineError(UsageError):
    """A baseline file that cannot be read or is not a v1bridge baseline."""


def normalise(source: str) -> str:
    out = []
    pos = 0
    for m in STRING.finditer(source):
        out.append(_code(source[pos:m.start()]))
        out.append(INTERPOLATION.sub("{}", m.group(0)))
        pos = m.end()
    out.append(_code(source[pos:]))
    return re.sub(r"\s+", "", "".join(out))


def _code(text: str) -> str:
    # identifiers are names the author may rename; HTTP verbs and v1 field names stay (they are the call)
    return IDENTIFIER.sub(lambda m: m.group(0) if m.group(0) in KEYWORDS or _is_field(m.group(0)) else "_", text)


def _is_field(name: str) -> bool:
    from codemod.audit.catalogue import catalogue

    cat = catalogue()
    return name in cat.field_rules or name in cat.param_rules


NAMED = re.compile(r"`([^`]+)`")


def call_source(finding: AuditFinding) -> str:
    """The normalised source of the finding (see the module docstring)."""
    if finding.route:
        return f"{finding.kind} {finding.route}"
    named = NAMED.search(finding.message)
    if named:
        return f"{finding.kind} {named.group(1)}"
    if finding.kind == "base-url":
        return f"{finding.kind} {finding.message.split(' in ', 1)[0]}"
    return normalise(finding.source_line)


def fingerprint(finding: AuditFinding) -> str:
    material = "\0".join((finding.rule, finding.path, call_source(finding)))
    return hashlib.sha256(material.encode("utf-8")).hexdigest()[:16]


def assign(report: AuditReport) -> None:
    """Give every finding of REPORT its fingerprint (with occurrence), in file and line order."""
    for fr in report.files:
        counts: dict[str, int] = {}
        updated = []
        for f in sorted(fr.findings, key=AuditFinding.sort_key):
            base = fingerprint(f)
            counts[base] = counts.get(base, 0) + 1
            updated.append(f.but(fingerprint=f"{base}:{counts[base]}"))
        fr.findings = updated


def to_dict(report: AuditReport) -> dict[str, Any]:
    return {
        "schema": SCHEMA_ID,
        "tool": {"name": "v1bridge", "version": "0.1.0"},
        "findings": [
            {"fingerprint": f.fingerprint, "rule": f.rule, "path": f.path, "line": f.line,
             "source_line": f.source_line}
            for f in report.findings
        ],
    }


def write(report: AuditReport, path: str) -> int:
    from codemod import safe_write

    data = to_dict(report)
    safe_write.replace(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return len(data["findings"])


def load(path: str) -> set[str]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise BaselineError(f"cannot read baseline {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise BaselineError(f"baseline {path} is not JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("schema") != SCHEMA_ID or not isinstance(data.get("findings"), list):
        raise BaselineError(f"baseline {path} is not a {SCHEMA_ID} file (write one with --write-baseline)")
    out = set()
    for entry in data["findings"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str):
            raise BaselineError(f"baseline {path}: an entry without a fingerprint")
        out.add(entry["fingerprint"])
    return out


def apply(report: AuditReport, known: set[str]) -> None:
    """Mark each unresolved finding as in the baseline or new; count baseline entries no longer found."""
    seen = set()
    for fr in report.files:
        updated = []
        for f in fr.findings:
            if f.suppressed is None:
                in_baseline = f.fingerprint in known
                if in_baseline:
                    seen.add(f.fingerprint)
                f = f.but(baseline="unchanged" if in_baseline else "new")
            updated.append(f)
        fr.findings = updated
    report.baseline = {"entries": len(known), "matched": len(seen), "fixed": len(known - seen),
                       "new": sum(1 for f in report.findings if f.baseline == "new")}
