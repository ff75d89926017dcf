"""Issue 23 #9: every upstream call (translated, through proxy/http1.py, and the /v2 pass-through, through aiohttp)
goes through the egress proxy the standard variables name (HTTPS_PROXY / HTTP_PROXY, NO_PROXY; CONNECT for https)
and verifies the upstream against the CA bundle given (`--upstream-ca`, else SSL_CERT_FILE), never unverified.
A real forward proxy (tests/forward_proxy.py) and a TLS sandbox signed by a test CA (trustme), both on loopback."""
from __future__ import annotations

import base64
import ssl

import pytest
import trustme
from aiohttp import web

from proxy.app import create_proxy_app
from proxy.config import ProxyConfig
from tests.forward_proxy import ForwardProxy

AUTH = {"Authorization": "Bearer key-alice"}
# the upstream's name: only the egress proxy resolves it (to loopback), as a corporate egress proxy would
HOST = "v2.upstream.test"
HOSTS = {HOST: "127.0.0.1"}
PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy",
                   "SSL_CERT_FILE", "SSL_CERT_DIR", "ALL_PROXY", "all_proxy")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def ca_file(ca, tmp_path) -> str:
    path = tmp_path / "test-ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return str(path)


async def _serve(app: web.Application, context: ssl.SSLContext | None):
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    return runner, site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]


@pytest.fixture
async def tls_sandbox(sandbox_app, ca):
    """The sandbox over https, its certificate (for HOST) signed by the test CA."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(HOST).configure_cert(context)
    runner, port = await _serve(sandbox_app, context)
    yield f"https://{HOST}:{port}"
    await runner.cleanup()


@pytest.fixture
async def http_sandbox(sandbox_app):
    runner, port = await _serve(sandbox_app, None)
    yield f"http://{HOST}:{port}"
    await runner.cleanup()


async def _proxy(aiohttp_client, upstream: str, **extra):
    config = ProxyConfig(upstream=upstream, access_log=False, fingerprint_salt="s", connect_timeout=2,
                         total_timeout=5, get_retries=0, **extra)
    return await aiohttp_client(create_proxy_app(config))


async def _both(client) -> tuple[int, int]:
    v1 = await client.get("/v1/pods", headers=AUTH)
    v2 = await client.get("/v2/pods", headers=AUTH)
    return v1.status, v2.status


async def test_https_upstream_through_connect_verified_by_the_given_ca(aiohttp_client, tls_sandbox, ca_file,
                                                                        monkeypatch):
    async with ForwardProxy(hosts=HOSTS) as egress:
        monkeypatch.setenv("HTTPS_PROXY", egress.url)
        client = await _proxy(aiohttp_client, tls_sandbox, upstream_ca=ca_file)
        assert await _both(client) == (200, 200)
        tunnel = "CONNECT " + tls_sandbox.removeprefix("https://")
        assert len(egress.asked) >= 2 and set(egress.asked) == {tunnel}  # the pool's and the pass-through's


async def test_ssl_cert_file_is_the_default_bundle(aiohttp_client, tls_sandbox, ca_file, monkeypatch):
    async with ForwardProxy(hosts=HOSTS) as egress:
        monkeypatch.setenv("https_proxy", egress.url)
        monkeypatch.setenv("SSL_CERT_FILE", ca_file)
        client = await _proxy(aiohttp_client, tls_sandbox)
        assert await _both(client) == (200, 200)
        assert egress.asked


async def test_an_upstream_the_bundle_does_not_vouch_for_is_refused(aiohttp_client, tls_sandbox, monkeypatch):
    """No --upstream-ca, no SSL_CERT_FILE: the system's authorities do not know the test CA; never unverified."""
    async with ForwardProxy(hosts=HOSTS) as egress:
        monkeypatch.setenv("HTTPS_PROXY", egress.url)
        client = await _proxy(aiohttp_client, tls_sandbox)
        v1 = await client.get("/v1/pods", headers=AUTH)
        assert v1.status == 502 and "CERTIFICATE_VERIFY_FAILED" in (await v1.json())["message"]
        assert (await client.get("/v2/pods", headers=AUTH)).status == 502
        assert egress.asked  # it did go through the proxy, and refused what answered at the other end


async def test_no_proxy_names_the_upstream_so_it_is_reached_directly(aiohttp_client, tls_sandbox, ca_file,
                                                                     monkeypatch):
    """NO_PROXY lists the upstream's domain: the proxy is not asked; the name is looked up here, where it does not
    resolve (only the egress proxy knows it), so the call fails as unreachable, naming the host."""
    async with ForwardProxy(hosts=HOSTS) as egress:
        monkeypatch.setenv("HTTPS_PROXY", egress.url)
        monkeypatch.setenv("NO_PROXY", "example.com,.upstream.test")
        client = await _proxy(aiohttp_client, tls_sandbox, upstream_ca=ca_file)
        r = await client.get("/v1/pods", headers=AUTH)
        assert r.status == 502 and f"the v2 upstream is unreachable ({HOST}: " in (await r.json())["message"]
        assert (await client.get("/v2/pods", headers=AUTH)).status == 502
        assert egress.asked == []


def test_a_loopback_upstream_is_never_sent_to_the_egress_proxy():
    from proxy import http1

    env = {"HTTPS_PROXY": "http://proxy.corp:3128", "HTTP_PROXY": "http://proxy.corp:3128"}
    assert [http1.egress_proxy(u, env) for u in ("http://127.0.0.1:8080", "https://localhost", "http://[::1]:9")] \
        == [None, None, None]
    assert http1.egress_proxy("https://api.runpod.io", env).url == "http://proxy.corp:3128"
    assert http1.egress_proxy("https://api.runpod.io", {**env, "NO_PROXY": "runpod.io"}) is None
    assert http1.egress_proxy("https://api.runpod.io", {"HTTP_PROXY": "http://p:1"}) is None  # https wants HTTPS_PROXY


async def test_the_egress_proxys_credentials_go_to_the_proxy_only(aiohttp_client, tls_sandbox, ca_file,
                                                                  monkeypatch):
    async with ForwardProxy(hosts=HOSTS) as egress:
        monkeypatch.setenv("HTTPS_PROXY", egress.url.replace("http://", "http://corp%20user:s3cret@"))
        client = await _proxy(aiohttp_client, tls_sandbox, upstream_ca=ca_file)
        assert await _both(client) == (200, 200)
        assert set(egress.credentials) == {"Basic " + base64.b64encode(b"corp user:s3cret").decode()}


async def test_a_refused_connect_is_a_502_naming_the_proxy(aiohttp_client, tls_sandbox, ca_file, monkeypatch):
    async with ForwardProxy(refuse=True, hosts=HOSTS) as egress:
        monkeypatch.setenv("HTTPS_PROXY", egress.url)
        client = await _proxy(aiohttp_client, tls_sandbox, upstream_ca=ca_file)
        r = await client.get("/v1/pods", headers=AUTH)
        host = tls_sandbox.removeprefix("https://")
        assert (r.status, await r.json()) == (502, {"message": (
            f"the v2 upstream is unreachable (the egress proxy {egress.url} refused CONNECT {host} "
            "(HTTP/1.1 403 Forbidden))")})
        assert (await client.get("/v2/pods", headers=AUTH)).status == 502


async def test_an_http_upstream_goes_through_http_proxy_in_absolute_form(aiohttp_client, http_sandbox, monkeypatch):
    async with ForwardProxy(hosts=HOSTS) as egress:
        monkeypatch.setenv("HTTP_PROXY", egress.url)
        client = await _proxy(aiohttp_client, http_sandbox)
        assert await _both(client) == (200, 200)
        assert any(a.startswith(f"GET {http_sandbox}/v2/pods") for a in egress.asked), egress.asked
