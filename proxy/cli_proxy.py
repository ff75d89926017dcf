"""`v1bridge proxy`: serve v1 at /v1/... over a v2 upstream (or the embedded sandbox)."""
from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import secrets
import shutil
import signal
import socket
import sys

from mappings import default_mappings
from proxy import embedded
from proxy.config import EVENT_LOOPS, ProxyConfig, default_salt
from proxy.serving import shared_metrics_dir


def configure(parser: argparse.ArgumentParser) -> None:
    policies = sorted(default_mappings().policies)
    parser.add_argument("--upstream", metavar="URL", help="v2 host root, e.g. https://api.runpod.io (default: embedded sandbox)")
    parser.add_argument("--sandbox", action="store_true", help="serve over the embedded sandbox (the default without --upstream)")
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1; 0.0.0.0 for every one)")
    parser.add_argument("--port", type=int, default=8080, help="port to listen on (default 8080)")
    parser.add_argument("--workers", type=int, default=1, help="processes sharing the port (SO_REUSEPORT)")
    parser.add_argument("--strict", action="append", default=[], metavar="POLICY",
                        help=f"answer 501 instead of emulating; repeatable, or 'all'. Policies: {', '.join(policies)}")
    parser.add_argument("--emulate", action="append", default=[], metavar="POLICY",
                        help="emulate a policy even under --strict all or a strict mapping default")
    parser.add_argument("--connect-timeout", type=float, default=3.0, metavar="SECONDS",
                        help="time to open a connection to the upstream (default 3)")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS", help="total upstream timeout")
    parser.add_argument("--deadline", type=float, default=20.0, metavar="SECONDS",
                        help="overall deadline of one v1 request: no emulation step starts after it (default 20)")
    parser.add_argument("--upstream-connections", type=int, default=100, metavar="N",
                        help="open connections to the upstream per process (default 100)")
    parser.add_argument("--stream-idle-timeout", type=float, default=60.0, metavar="SECONDS",
                        help="a /v2 stream silent this long is cut (default 60)")
    parser.add_argument("--step-retries", type=int, default=ProxyConfig.step_retries, metavar="N",
                        help="times a step of a multi-step emulation (reset's start) refused with 409 while the "
                             "previous step settles is re-sent at most (default 8; 0: never)")
    parser.add_argument("--lookup-concurrency", type=int, default=ProxyConfig.lookup_concurrency, metavar="N",
                        help="per-item reads of an include* expansion in flight at once, per request (default 16)")
    parser.add_argument("--large-answer", type=int, default=ProxyConfig.large_answer, metavar="BYTES",
                        help="v2 answers this large or larger are translated in a worker process, off the event "
                             "loop (default 1 MiB; 0: never)")
    parser.add_argument("--answer-memory", type=int, default=ProxyConfig.answer_memory, metavar="BYTES",
                        help="memory for v1 lists built page by page, all requests of a process together; a list "
                             "past it goes on from files (default 64 MiB; 0: no bound)")
    parser.add_argument("--max-answer", type=int, default=ProxyConfig.max_answer, metavar="BYTES",
                        help="a v2 answer larger than this once decoded (gzip, deflate) is refused with a 502 "
                             "(default 256 MiB)")
    parser.add_argument("--upstream-ca", metavar="FILE",
                        help="CA bundle (PEM) that verifies an https upstream (default: SSL_CERT_FILE, else the "
                             "system's); verification is never off. Egress proxies: HTTPS_PROXY, HTTP_PROXY, NO_PROXY")
    parser.add_argument("--answer-processes", type=int, default=ProxyConfig.answer_processes, metavar="N",
                        help="worker processes for large answers, per proxy process (default 2)")
    parser.add_argument("--max-body", type=int, default=1024 * 1024, metavar="BYTES",
                        help="largest request body accepted from a client; larger is a 413 (default 1 MiB)")
    parser.add_argument("--usage-dir", metavar="DIR", help="append usage records (JSON Lines) here, one file per process")
    parser.add_argument("--keys", help="embedded sandbox API keys, comma-separated")
    parser.add_argument("--keys-file", metavar="FILE", help="embedded sandbox API keys, one per line")
    parser.add_argument("--db", metavar="PATH", help="embedded sandbox database (default: in memory)")
    parser.add_argument("--no-access-log", action="store_true", help="do not write the JSON access log to stderr")
    parser.add_argument("--max-inflight", type=int, default=ProxyConfig.max_inflight, metavar="N",
                        help="requests one process answers at once; past it a 503 with Retry-After (0: no limit)")
    parser.add_argument("--loop", choices=EVENT_LOOPS, default=ProxyConfig.event_loop,
                        help="event loop of each serving process (default asyncio: uvloop costs ~9%% fewer instructions "
                             "per request but, saturated, leaves some connections waiting seconds)")
    parser.add_argument("--backlog", type=int, default=ProxyConfig.backlog, metavar="N",
                        help="connections waiting to be accepted, per listening socket; past it the kernel drops new "
                             "connections' SYNs and clients retry after 1 s (default 2048; capped by "
                             "net.core.somaxconn)")


def _validate_policies(names: list[str]) -> frozenset[str]:
    known = set(default_mappings().policies) | {"all"}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"v1bridge proxy: unknown policy {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    return frozenset(names)


def config_from_args(args: argparse.Namespace) -> tuple[ProxyConfig, bool]:
    """The config, and whether a development key was generated (to print it)."""
    generated = False
    keys: list[str] = []
    if not args.upstream:
        keys, generated = embedded.sandbox_keys(args.keys, args.keys_file)
    config = ProxyConfig(
        upstream=args.upstream.rstrip("/") if args.upstream else None,
        host=args.host,
        port=args.port,
        workers=max(1, args.workers),
        strict=_validate_policies(args.strict),
        emulate=_validate_policies(args.emulate),
        connect_timeout=args.connect_timeout,
        total_timeout=args.timeout,
        request_deadline=args.deadline,
        upstream_connections=max(1, args.upstream_connections),
        stream_idle_timeout=args.stream_idle_timeout,
        step_retries=max(0, args.step_retries),
        lookup_concurrency=max(1, args.lookup_concurrency),
        max_body=args.max_body,
        large_answer=max(0, args.large_answer),
        answer_memory=max(0, args.answer_memory),
        max_answer=max(1, args.max_answer),
        upstream_ca=args.upstream_ca,
        answer_processes=max(1, args.answer_processes),
        usage_dir=args.usage_dir,
        fingerprint_salt=default_salt(),
        keys=keys,
        db_path=args.db,
        access_log=not args.no_access_log,
        max_inflight=max(0, args.max_inflight),
        backlog=max(1, args.backlog),
        event_loop=args.loop,
    )
    return config, generated


def _serve(config: ProxyConfig, sock: socket.socket | None = None) -> None:
    from proxy.malloc import return_large_blocks

    return_large_blocks()  # before the app is built: its start-up frees would move glibc's thresholds first
    from aiohttp import web

    from proxy.app import create_proxy_app
    from proxy.serving import event_loop, serving_for_life

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    app = serving_for_life(create_proxy_app(config))
    # the backlog is given to run_app even with a socket listening already: starting a site listens again, with
    # aiohttp's default of 128 unless told otherwise
    if sock is not None:
        web.run_app(app, sock=sock, access_log=None, print=None, handle_signals=True,
                    loop=event_loop(config.event_loop), backlog=config.backlog)
    else:
        web.run_app(app, host=config.host, port=config.port, access_log=None, print=None,
                    reuse_port=config.workers > 1, loop=event_loop(config.event_loop), backlog=config.backlog)


def _reuseport_socket(host: str, port: int, backlog: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    sock.set_inheritable(True)
    return sock


def _follow_parent() -> None:
    """A child of `--workers N` stops (SIGTERM to itself: the graceful path) when its parent is gone, even
    when the parent was killed with SIGKILL and could not stop it: no orphan keeps serving the port."""
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="v1bridge-parent-watch", daemon=True).start()


def _worker(config: ProxyConfig) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when workers stop
    _follow_parent()
    _serve(config, _reuseport_socket(config.host, config.port, config.backlog))


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _start_shared_sandbox(config: ProxyConfig) -> tuple[multiprocessing.Process, str]:
    """With several workers, one sandbox process serves them all, so state is shared."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    process = multiprocessing.get_context("spawn").Process(
        target=_run_sandbox, args=(list(config.keys), config.db_path, port, config.backlog), daemon=True
    )
    process.start()
    url = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.1):
                break
        except OSError:
            import time

            time.sleep(0.05)
    return process, url


def _run_sandbox(keys: list[str], db_path: str | None, port: int, backlog: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _follow_parent()
    embedded.serve(keys, db_path, port, backlog)


def run(args: argparse.Namespace) -> int:
    config, generated = config_from_args(args)
    where = f"http://{config.host}:{config.port}"
    upstream = config.upstream or "embedded sandbox"
    print(f"v1bridge proxy: v1 at {where}/v1, v2 pass-through at {where}/v2, upstream: {upstream}, "
          f"workers: {config.workers}", file=sys.stderr)
    if config.upstream is None:
        if generated:
            print(f"v1bridge proxy: development key (Authorization: Bearer <key>): {config.keys[0]}", file=sys.stderr)
    if config.workers == 1:
        _serve(config)  # the embedded sandbox's DatabaseLocked: shown by v1bridge/cli.py (exit 2)
        return 0
    children: list[multiprocessing.Process] = []
    ctx = multiprocessing.get_context("spawn")
    if config.upstream is None:
        sandbox, url = _start_shared_sandbox(config)
        children.append(sandbox)
        config.upstream = url
    config.metrics_dir, made = shared_metrics_dir(os.environ)
    if config.fingerprint_salt is None and config.usage_dir is None:  # one salt for all workers of this start
        config.fingerprint_salt = secrets.token_hex(16)
    signal.signal(signal.SIGTERM, _interrupt)  # a service manager's stop: workers drain, the parent cleans up
    workers = [ctx.Process(target=_worker, args=(config,), daemon=False) for _ in range(config.workers)]
    children.extend(workers)
    code = 0
    try:
        # started inside the try: a signal while the second is still starting (the first may already answer a
        # health check) must stop the first too, not leave the parent waiting on it at exit
        for w in workers:
            w.start()
        # any child ending on its own (a crash, the sandbox refusing a locked database) stops them all: a
        # service manager sees the exit and restarts a whole proxy, not one quietly short of a worker
        from multiprocessing.connection import wait

        ended = wait([c.sentinel for c in children])
        gone = [c for c in children if c.sentinel in ended]
        print(f"v1bridge proxy: {', '.join(f'{c.name} (pid {c.pid}) exited with {c.exitcode}' for c in gone)}; "
              "stopping every process", file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        pass
    finally:
        for stop in (signal.SIGTERM, signal.SIGINT):  # a second signal must not cut the cleanup short
            signal.signal(stop, signal.SIG_IGN)
        _stop_children(workers, children[: len(children) - len(workers)])
        if made:
            shutil.rmtree(config.metrics_dir, ignore_errors=True)
    return code


def _stop_children(workers: list[multiprocessing.Process], others: list[multiprocessing.Process],
                   grace: float = 10.0) -> None:
    """Workers first (SIGTERM: they stop accepting, finish their requests, flush their records), then the
    sandbox they talk to; whatever has not exited after `grace` seconds is killed."""
    import time

    for group in (workers, others):
        group = [child for child in group if child.pid is not None]  # a signal may come before all started
        for child in group:
            if child.is_alive():
                child.terminate()
        ends = time.monotonic() + grace
        for child in group:
            child.join(timeout=max(0.0, ends - time.monotonic()))
        for child in group:
            if child.is_alive():
                print(f"v1bridge proxy: {child.name} (pid {child.pid}) did not stop within {grace:g}s; killed",
                      file=sys.stderr)
                child.kill()
                child.join(timeout=5)


if __name__ == "__main__":  # pragma: no cover
    parser = argparse.ArgumentParser()
    configure(parser)
    sys.exit(run(parser.parse_args()))
    os._exit(0)
