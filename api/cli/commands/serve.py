"""``mjlens serve``: the HTTP API and the phone web page (uvicorn), reachable from phones on the same LAN
with ``--host 0.0.0.0``. Settings beyond host and port come from ``MJLENS_*`` environment variables."""

from __future__ import annotations

from mjlens.i18n import msg, say
from mjlens.i18n.os_errors import os_reason

from ..lang import add_lang_flag
from ..main import UsageError


def register(sub) -> None:
    parser = sub.add_parser("serve", help=msg("run the HTTP API and the web page"),
                            description=msg("Run the HTTP API and the phone web page. Environment: {variables} "
                                            "(docs/api.md lists them all), {more}.", variables=", ".join(ENV_LIMITS),
                                            more=", ".join(ENV_RUN)))
    parser.add_argument("--host", default="127.0.0.1",
                        help=msg("address to listen on (0.0.0.0: every interface)"))
    parser.add_argument("--port", type=int, default=8000, help=msg("TCP port (default 8000)"))
    parser.add_argument("--model", metavar="ONNX", help=msg("detector file (default models/mjlens-tiles.onnx)"))
    parser.add_argument("--profile", metavar="FILE",
                        help=msg("the service's default profile of the tile set (mjlens profile create; default: "
                                 "$MJLENS_PROFILE, else none)"))
    add_lang_flag(parser)
    parser.set_defaults(run=run)


#: The environment variables the description names: the service's limits (docs/api.md), then how it runs.
ENV_LIMITS = ("MJLENS_API_KEY", "MJLENS_CORS_ORIGINS", "MJLENS_MAX_UPLOAD_BYTES", "MJLENS_MAX_PIXELS",
              "MJLENS_MAX_JSON_BYTES", "MJLENS_HEADER_TIMEOUT_S", "MJLENS_BODY_TIMEOUT_S", "MJLENS_KEEP_ALIVE_S")
ENV_RUN = ("MJLENS_WORKERS", "MJLENS_THREADS", "MJLENS_SPIN", "MJLENS_QUEUE_SIZE", "MJLENS_MODEL", "MJLENS_PROFILE",
           "MJLENS_LOG_LEVEL")


def run(args) -> int:
    from pydantic import ValidationError

    from mjlens.api.service.app import create_app
    from mjlens.api.service.server import serve
    from mjlens.api.service.settings import Settings

    if not 0 < args.port < 65536:
        raise UsageError(msg("{code}: --port must be 1..65535, not {port}", code="bad_flag_value", port=args.port))
    check_port_free(args.host, args.port)  # before the models load, which takes seconds
    try:
        given = {"model": args.model, "profile": args.profile}
        settings = Settings(**{key: value for key, value in given.items() if value})
    except ValidationError as err:
        raise UsageError(msg("bad MJLENS_* setting: {setting}: {reason}", setting=err.errors()[0]["loc"][0],
                             reason=err.errors()[0]["msg"])) from None
    app = create_app(settings)
    print("mjlens serve: " + say(msg("the phone page at {url} (the API under /v1, Ctrl-C to stop)",
                                     url=page_url(args.host, args.port)), args.lang), flush=True)
    print("mjlens serve: " + say(msg("profiles made on the page are kept in {place} (MJLENS_PROFILE_DB to change; "
                                     "made at the first profile)", place=profile_place(settings.profile_db)),
                                 args.lang), flush=True)
    try:
        serve(app, args.host, args.port, settings)
    except OSError as err:
        raise UsageError(msg("cannot listen on {host}:{port}: {reason}", host=args.host, port=args.port,
                             reason=os_reason(err))) from None
    return 0


def page_url(host: str, port: int) -> str:
    """The address to open: for every interface (0.0.0.0, ::), this machine's address on its network, which a phone
    on the same network can reach (no packet is sent to find it); an IPv6 address in brackets."""
    import socket

    if host in ("0.0.0.0", "::", ""):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                probe.connect(("10.254.254.254", 1))  # a UDP connect only picks the outgoing interface
                host = probe.getsockname()[0]
        except OSError:  # no network: the machine itself
            host = "127.0.0.1"
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def check_port_free(host: str, port: int) -> None:
    """Refuse a port another program listens on (``port_in_use``), in words that say what to do, rather than
    uvicorn's bare ``[Errno 98]`` after loading everything."""
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        raise UsageError(msg("{code}: --host {host} is not an address of this machine: {reason}",
                             code="bad_flag_value", host=repr(host), reason=os_reason(err))) from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: a closing socket is no bar
        try:
            probe.bind(address)
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                raise UsageError(msg("{code}: port {port} on {host} is taken by another program; stop it or "
                                     "choose another port with --port (e.g. --port {other})", code="port_in_use",
                                     port=port, host=host, other=port + 1 if port < 65535 else 8000)) from None
            raise UsageError(msg("cannot listen on {host}:{port}: {reason}", host=host, port=port,
                                 reason=os_reason(err))) from None


def profile_place(setting: str) -> str:
    """Where ``MJLENS_PROFILE_DB`` keeps profiles, for people: a SQLite file's full path, or a URL without its
    password."""
    if "://" not in setting:
        from pathlib import Path

        return str(Path(setting).expanduser().resolve())
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(setting).render_as_string(hide_password=True)
    except ArgumentError:
        return msg("a database URL that cannot be read (the first profile call will say why)")

