"""The app's shared keys: what the factory builds once and the middleware, handlers and contexts look up."""
from __future__ import annotations

from aiohttp import web

from proxy.config import ProxyConfig
from proxy.confine import PassThroughRoutes
from proxy.graphql.service import GraphQLService
from proxy.routes import RouteTable
from proxy.telemetry import AccessLog, Metrics, UsageLog
from proxy.upstream import Upstream
from proxy.v1 import V1Service

CONFIG: web.AppKey[ProxyConfig] = web.AppKey("config", ProxyConfig)
UPSTREAM: web.AppKey[Upstream] = web.AppKey("upstream", Upstream)
UPSTREAM_URL: web.AppKey[str] = web.AppKey("upstream_url", str)
METRICS: web.AppKey[Metrics] = web.AppKey("metrics", Metrics)
USAGE: web.AppKey[UsageLog] = web.AppKey("usage", UsageLog)
ACCESS: web.AppKey[AccessLog] = web.AppKey("access", AccessLog)
SERVICE: web.AppKey[V1Service] = web.AppKey("service", V1Service)
TABLE: web.AppKey[RouteTable] = web.AppKey("routes", RouteTable)
SANDBOX_URL: web.AppKey[str] = web.AppKey("sandbox_url", str)
PASSTHROUGH: web.AppKey[PassThroughRoutes] = web.AppKey("passthrough", PassThroughRoutes)
GRAPHQL: web.AppKey[GraphQLService] = web.AppKey("graphql", GraphQLService)
