"""Running the app under uvicorn with every connection's time bounded.

uvicorn closes an idle keep-alive connection (``timeout_keep_alive``) but has no limit on the time a client
takes to send its headers: a client sending one header byte every few seconds holds its connection, and enough
of them hold every file descriptor. ``HeaderTimeoutProtocol`` closes a connection whose request headers are not
complete within the header timeout, counted from the connection or from the end of the previous answer. The
body's own timeout is in the app (api.service.middleware.BodyLimitMiddleware), where it can answer 408.

``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed only from the proxies named in
``MJLENS_FORWARDED_ALLOW_IPS`` (none by default).
"""

from __future__ import annotations

import asyncio
import resource

from uvicorn.protocols.http.h11_impl import H11Protocol

#: Largest request line plus headers, in bytes (uvicorn's default, stated here so the docs can say it).
MAX_HEADER_BYTES = 16 * 1024


class HeaderTimeoutProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose headers take longer than ``header_timeout_s``."""

    header_timeout_s = 10.0
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        if self.cycle is not cycle:  # a request's headers were complete: a new request/response cycle began
            self._cancel_header_timer()

    def on_response_complete(self) -> None:
        self._arm_header_timer()  # the next request's headers; a pipelined one already here cancels it at once
        super().on_response_complete()

    def _arm_header_timer(self) -> None:
        self._cancel_header_timer()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_too_slow)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self.transport.close()


def protocol_with_header_timeout(seconds: float) -> type[HeaderTimeoutProtocol]:
    return type("HeaderTimeoutProtocol", (HeaderTimeoutProtocol,), {"header_timeout_s": seconds})


def raise_open_files_limit() -> None:
    """Let the process hold as many connections as the system allows it (the soft limit is often 1024)."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY or soft < hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else 65536, hard))
    except (ValueError, OSError):  # not allowed here: keep what there is
        pass


def server_options(settings) -> dict:
    """uvicorn's options for the settings: the timeouts (headers, body in the app, keep-alive), and forwarded
    headers believed only from ``settings.forwarded_allow_ips``. uvicorn's own default believes them from
    127.0.0.1, so a client on the same machine (or any client, through a proxy that passes the header on) could
    name the address that its per-client limits count against."""
    return {"log_level": "warning", "access_log": False,
            "http": protocol_with_header_timeout(settings.header_timeout_s),
            "timeout_keep_alive": settings.keep_alive_s, "h11_max_incomplete_event_size": MAX_HEADER_BYTES,
            "proxy_headers": bool(settings.forwarded_allow_ips),
            "forwarded_allow_ips": settings.forwarded_allow_ips or None}


def serve(app, host: str, port: int, settings) -> None:
    """Run ``app`` under uvicorn with ``server_options``."""
    import uvicorn

    raise_open_files_limit()
    uvicorn.run(app, host=host, port=port, **server_options(settings))
