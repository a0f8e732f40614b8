"""``mjlens serve``: the HTTP API and the phone web page (uvicorn), reachable from phones on the same LAN
with ``--host 0.0.0.0``. Settings beyond host and port come from ``MJLENS_*`` environment variables."""

from __future__ import annotations

from ..cli import UsageError


def register(sub) -> None:
    parser = sub.add_parser("serve", help="run the HTTP API and the web page",
                            description="Run the HTTP API and the phone web page. Environment: MJLENS_API_KEY, "
                                        "MJLENS_CORS_ORIGINS, MJLENS_MAX_UPLOAD_BYTES, MJLENS_MAX_PIXELS, "
                                        "MJLENS_MAX_JSON_BYTES, MJLENS_HEADER_TIMEOUT_S, MJLENS_BODY_TIMEOUT_S, "
                                        "MJLENS_KEEP_ALIVE_S (docs/api.md lists them all), "
                                        "MJLENS_WORKERS, MJLENS_THREADS, MJLENS_SPIN, MJLENS_QUEUE_SIZE, MJLENS_MODEL, "
                                        "MJLENS_PROFILE, MJLENS_LOG_LEVEL.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    parser.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    parser.add_argument("--model", metavar="ONNX", help="detector file (default models/mjlens-tiles.onnx)")
    parser.add_argument("--profile", metavar="FILE", help="the service's default profile of the tile set (mjlens "
                                                          "profile create; default: $MJLENS_PROFILE, else none)")
    parser.set_defaults(run=run)


def run(args) -> int:
    from pydantic import ValidationError

    from ..app import create_app
    from ..server import serve
    from ..settings import Settings

    if not 0 < args.port < 65536:
        raise UsageError(f"--port must be 1..65535, not {args.port}")
    try:
        given = {"model": args.model, "profile": args.profile}
        settings = Settings(**{key: value for key, value in given.items() if value})
    except ValidationError as err:
        raise UsageError(f"bad MJLENS_* setting: {err.errors()[0]['loc'][0]}: {err.errors()[0]['msg']}") from None
    app = create_app(settings)
    print(f"mjlens serve: the phone page at {page_url(args.host, args.port)} (the API under /v1, Ctrl-C to stop)",
          flush=True)
    try:
        serve(app, args.host, args.port, settings)
    except OSError as err:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {err.strerror or err}") from None
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
