"""`v1bridge audit --traffic`: who still calls v1 through the proxy (usage records, docs/CONTRACTS.md).

Reads any number of JSON Lines files (one per proxy process; a folder means its
`usage-*.jsonl` files), tolerates a truncated last line and bad lines (counted and
reported, never fatal: a line nested 100,000 deep too, parsed by orjson, whose
depth limit is an error, not a RecursionError), and
groups records by v1 route: count, first and last seen, clients (fingerprint
and user agents), emulations and rules engaged, statuses. The client list is
the list of who must migrate before the proxy can be switched off.
"""
from __future__ import annotations

import io
import json
from pathlib import Path
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from codemod.audit.model import SCHEMA_VERSION, TRAFFIC_SCHEMA_ID

REQUIRED = ("time", "route", "client")
USAGE_GLOB = "usage-*.jsonl"  # the proxy's file names (docs/CONTRACTS.md); the folder also holds other files
LISTS = ("emulations", "rules", "ignored")


def usage_files(path: str) -> list[str]:
    """PATH itself, or for a folder its usage files (sorted; not its other files, not its subfolders)."""
    folder = Path(path)
    if not folder.is_dir():
        return [path]
    return sorted(str(p) for p in folder.glob(USAGE_GLOB) if p.is_file())


@dataclass
class ClientUse:
    client: str
    user_agents: set[str] = field(default_factory=set)
    count: int = 0
    first_seen: str = ""
    last_seen: str = ""
    routes: set[str] = field(default_factory=set)

    def see(self, when: str, agent: str | None, route: str) -> None:
        self.count += 1
        if agent:
            self.user_agents.add(agent)
        self.routes.add(route)
        self.first_seen = min(self.first_seen, when) if self.first_seen else when
        self.last_seen = max(self.last_seen, when)


@dataclass
class RouteUse:
    route: str
    operation: str | None
    count: int = 0
    first_seen: str = ""
    last_seen: str = ""
    clients: dict[str, ClientUse] = field(default_factory=dict)
    emulations: dict[str, int] = field(default_factory=dict)
    rules: dict[str, int] = field(default_factory=dict)
    # v1 inputs the proxy served without (X-V1bridge-Ignored): the client relies on something v2 cannot do
    ignored: dict[str, int] = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)


@dataclass
class BadLine:
    file: str
    line: int
    reason: str


@dataclass
class TrafficReport:
    files: list[str]
    records: int = 0
    routes: dict[str, RouteUse] = field(default_factory=dict)
    clients: dict[str, ClientUse] = field(default_factory=dict)
    bad_lines: list[BadLine] = field(default_factory=list)
    truncated: list[BadLine] = field(default_factory=list)
    proxies: set[str] = field(default_factory=set)

    @property
    def legacy_remaining(self) -> bool:
        return self.records > 0

    def verdict(self) -> tuple[str, str]:
        if not self.records:
            return "clean", "no v1 traffic in the usage records"
        return "legacy", (f"v1 still called: {self.records} request(s) on {len(self.routes)} route(s) "
                          f"by {len(self.clients)} client(s)")


def _normal_time(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("time is not a string")
    datetime.fromisoformat(value.replace("Z", "+00:00"))  # validates
    return value


def read_usage(paths: list[str]) -> TrafficReport:
    report = TrafficReport(files=[str(p) for p in paths])
    for path in paths:
        with open(path, "rb") as handle:
            data = handle.read()
        lines = data.split(b"\n")
        ends_clean = data.endswith(b"\n") or not data
        for index, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            last = index == len(lines)
            try:
                record = orjson.loads(raw)
                if not isinstance(record, dict):
                    raise ValueError("not an object")
                missing = [k for k in REQUIRED if k not in record]
                if missing:
                    raise ValueError("missing " + ", ".join(missing))
                wrong = [k for k in LISTS if not isinstance(record.get(k) or [], list)]
                if wrong:
                    raise ValueError(", ".join(wrong) + " not a list")
                when = _normal_time(record["time"])
            except ValueError as exc:  # orjson.JSONDecodeError too (bad UTF-8, nesting past its limit)
                entry = BadLine(str(path), index, str(exc)[:120])
                if last and not ends_clean:
                    entry.reason = "truncated last line"
                    report.truncated.append(entry)
                else:
                    report.bad_lines.append(entry)
                continue
            _add(report, record, when)
    return report


def _add(report: TrafficReport, record: dict, when: str) -> None:
    report.records += 1
    route = str(record.get("route") or "UNKNOWN")
    method = record.get("method")
    if route != "UNKNOWN" and method and not route.upper().startswith(str(method).upper() + " "):
        route = f"{method} {route}"
    use = report.routes.get(route)
    if use is None:
        use = report.routes[route] = RouteUse(route, record.get("operation"))
    use.count += 1
    use.first_seen = min(use.first_seen, when) if use.first_seen else when
    use.last_seen = max(use.last_seen, when)
    client = str(record.get("client") or "anonymous")
    agent = record.get("user_agent")
    agent = str(agent) if agent else None
    use.clients.setdefault(client, ClientUse(client)).see(when, agent, route)
    report.clients.setdefault(client, ClientUse(client)).see(when, agent, route)
    for name in record.get("emulations") or []:
        use.emulations[str(name)] = use.emulations.get(str(name), 0) + 1
    for name in record.get("rules") or []:
        use.rules[str(name)] = use.rules.get(str(name), 0) + 1
    for name in record.get("ignored") or []:
        use.ignored[str(name)] = use.ignored.get(str(name), 0) + 1
    status = record.get("status")
    if status is not None:
        use.statuses[str(status)] = use.statuses.get(str(status), 0) + 1
    if record.get("proxy"):
        report.proxies.add(str(record["proxy"]))


# ------------------------------------------------------------------ rendering


def _client_json(c: ClientUse) -> dict[str, Any]:
    return {"client": c.client, "user_agents": sorted(c.user_agents), "count": c.count,
            "first_seen": c.first_seen, "last_seen": c.last_seen, "routes": sorted(c.routes)}


def to_dict(report: TrafficReport) -> dict[str, Any]:
    verdict, sentence = report.verdict()
    routes = sorted(report.routes.values(), key=lambda r: (-r.count, r.route))
    return {
        "schema": TRAFFIC_SCHEMA_ID,
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "v1bridge", "version": "0.1.0"},
        "kind": "traffic",
        "verdict": verdict,
        "verdict_text": sentence,
        "summary": {
            "files": len(report.files),
            "proxies": len(report.proxies),
            "records": report.records,
            "routes": len(report.routes),
            "clients": len(report.clients),
            "bad_lines": len(report.bad_lines),
            "truncated_lines": len(report.truncated),
        },
        "routes": [
            {
                "route": r.route,
                "operation": r.operation,
                "count": r.count,
                "first_seen": r.first_seen,
                "last_seen": r.last_seen,
                "clients": [_client_json(c) for c in sorted(r.clients.values(), key=lambda c: (-c.count, c.client))],
                "emulations": dict(sorted(r.emulations.items())),
                "rules": dict(sorted(r.rules.items())),
                "ignored": dict(sorted(r.ignored.items())),
                "statuses": dict(sorted(r.statuses.items())),
            }
            for r in routes
        ],
        "clients": [_client_json(c) for c in sorted(report.clients.values(), key=lambda c: (-c.count, c.client))],
        "bad_lines": [{"file": b.file, "line": b.line, "reason": b.reason} for b in report.bad_lines],
        "truncated_lines": [{"file": b.file, "line": b.line} for b in report.truncated],
    }


def render_plain(report: TrafficReport) -> str:
    verdict, sentence = report.verdict()
    out = [f"verdict: {verdict} - {sentence}",
           f"records: {report.records} from {len(report.files)} file(s); bad lines: {len(report.bad_lines)}; "
           f"truncated last lines: {len(report.truncated)}"]
    data = to_dict(report)
    if data["routes"]:
        out.append("")
        out.append("v1 routes still called:")
        for r in data["routes"]:
            emu = ", ".join(f"{k} x{v}" for k, v in r["emulations"].items()) or "-"
            ignored = ", ".join(f"{k} x{v}" for k, v in r["ignored"].items())
            ignored = f"  ignored={ignored}" if ignored else ""
            out.append(f"  {r['route']}  count={r['count']}  first={r['first_seen']}  last={r['last_seen']}  "
                       f"emulations={emu}{ignored}")
            for c in r["clients"]:
                out.append(f"    client {c['client']} x{c['count']} ({', '.join(c['user_agents']) or 'no user agent'})")
    if data["clients"]:
        out.append("")
        out.append("clients that must migrate before the proxy is switched off:")
        for c in data["clients"]:
            out.append(f"  {c['client']}  requests={c['count']}  last={c['last_seen']}  "
                       f"agents={', '.join(c['user_agents']) or '-'}  routes={len(c['routes'])}")
    for b in report.bad_lines + report.truncated:
        out.append(f"skipped {b.file}:{b.line}: {b.reason}")
    return "\n".join(out) + "\n"


def render_markdown(report: TrafficReport) -> str:
    verdict, sentence = report.verdict()
    data = to_dict(report)
    out = [f"## v1bridge traffic audit: **{verdict}**", "", sentence, ""]
    if data["routes"]:
        out += ["| v1 route | requests | clients | first seen | last seen | emulations |",
                "|---|---:|---:|---|---|---|"]
        for r in data["routes"]:
            emu = ", ".join(f"`{k}`" for k in r["emulations"]) or "-"
            if r["ignored"]:
                emu += "; ignored: " + ", ".join(f"`{k}`" for k in r["ignored"])
            out.append(f"| `{r['route']}` | {r['count']} | {len(r['clients'])} | {r['first_seen']} | "
                       f"{r['last_seen']} | {emu} |")
        out += ["", "| client | user agents | requests | last seen |", "|---|---|---:|---|"]
        for c in data["clients"]:
            out.append(f"| `{c['client']}` | {', '.join(c['user_agents']) or '-'} | {c['count']} | {c['last_seen']} |")
    out += ["", f"Bad lines: {len(report.bad_lines)}; truncated last lines: {len(report.truncated)}.", ""]
    return "\n".join(out)


def render_rich(report: TrafficReport) -> str:
    from rich.console import Console
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=120)
    verdict, sentence = report.verdict()
    console.print(f"[{'bold red' if verdict == 'legacy' else 'bold green'}]{verdict.upper()}[/] {sentence}")
    data = to_dict(report)
    table = Table(title="v1 routes still called")
    for col in ("route", "requests", "clients", "first seen", "last seen", "emulations"):
        table.add_column(col)
    for r in data["routes"]:
        table.add_row(r["route"], str(r["count"]), str(len(r["clients"])), r["first_seen"], r["last_seen"],
                      (", ".join(r["emulations"]) or "-") + ("; ignored: " + ", ".join(r["ignored"]) if r["ignored"] else ""))
    console.print(table)
    clients = Table(title="clients that must migrate")
    for col in ("client", "user agents", "requests", "last seen"):
        clients.add_column(col)
    for c in data["clients"]:
        clients.add_row(c["client"], ", ".join(c["user_agents"]) or "-", str(c["count"]), c["last_seen"])
    console.print(clients)
    console.print(f"bad lines: {len(report.bad_lines)}; truncated last lines: {len(report.truncated)}")
    return buffer.getvalue()


def render(report: TrafficReport, fmt: str, terminal: bool = False) -> str:
    if fmt == "json":
        return json.dumps(to_dict(report), indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return render_markdown(report)
    if fmt in ("sarif", "html"):
        raise ValueError(f"--format {fmt} is for the code audit; use text, json or markdown with --traffic")
    return render_rich(report) if terminal else render_plain(report)
