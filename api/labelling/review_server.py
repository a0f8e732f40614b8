"""``mjlens label --review DIR``: the review page of an output folder, served on this machine's loopback address
so that its saves are written into the folder itself (opened as a file, the page saves by download or through
the browser's File System Access API instead).

Three routes: ``GET /`` the page, made afresh from the folder at each load; ``GET /images/NAME`` a photo of the
folder; ``POST /save`` the page's corrections, checked, then written with the labels and the page (one save at a
time). Only loopback is served, a request must name the server as its host (another site's page cannot reach it
under another name), and a save must carry the page's token in a header, which a page of another origin cannot
send without the server's consent.
"""

from __future__ import annotations

import json
import mimetypes
import secrets
import sys
import threading
import traceback
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from mjlens.api.service.errors import short_message
from mjlens.i18n import DEFAULT_LANG, msg, say
from mjlens.i18n.os_errors import os_reason

from .corrections import CORRECTIONS_FILE, CorrectionError, parse_corrections, read_corrections
from .labels import SPLIT_FILES, review_html
from .outputs import OutputFolder
from .review import (
    LabelledPhoto,
    check_corrections,
    corrected_photos,
    failures_in,
    formats_in,
    photos_in,
    reading_of,
    save_corrections,
    write_review,
)

HOST = "127.0.0.1"
TOKEN_HEADER = "X-Review-Token"
#: The largest save accepted: some 200,000 tiles' corrections.
MAX_SAVE_BYTES = 32 * 1024 * 1024

#: The server's own error codes, answered as ``{"error": {"code", "message"}}`` as the service answers (the
#: corrections' codes, ``CORRECTION_ERROR_CODES``, come the same way with status 400).
REVIEW_ERROR_CODES = {
    "not_a_folder": "the folder to review is not a folder",
    "not_labelled": "the folder is not an output folder of mjlens label, or holds no labels",
    "wrong_host": "the request names another host than the server's loopback address",
    "bad_token": "a save without the token of the page the server served",
    "no_length": "a save that does not say its length",
    "too_large": "a save larger than MAX_SAVE_BYTES",
    "not_found": "no such page or photo of the folder",
    "cannot_read": "a photo of the folder could not be read",
    "cannot_write": "a save could not be written into the folder (the disk full, the folder read-only): nothing of "
                    "it is lost on the page, which can save again",
    "internal": "an unexpected error (a bug); the command's output says where",
}


@dataclass(frozen=True)
class Review:
    """The output folder served, the confidence below which tiles are flagged, the page's token, and the language
    of the page and of the server's answers."""

    out: OutputFolder
    low: float
    token: str
    lang: str = DEFAULT_LANG


class ReviewError(Exception):
    """A request answered with an error: its HTTP status and a stable code with a message."""

    def __init__(self, status: HTTPStatus, code: str, message: str):
        if code not in REVIEW_ERROR_CODES:
            raise KeyError(f"unregistered review error code {code!r}")
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def check_folder(out: OutputFolder) -> None:
    """An output folder of ``mjlens label``, with photos to review; a ``ReviewError`` says what is not."""
    if not out.root.is_dir():
        raise ReviewError(HTTPStatus.NOT_FOUND, "not_a_folder", msg("{folder} is not a folder", folder=str(out.root)))
    if not out.recognitions.is_dir() or not out.images.is_dir():
        raise ReviewError(HTTPStatus.NOT_FOUND, "not_labelled",
                          msg("{folder} is not an output folder of mjlens label (no recognitions/ and images/)",
                              folder=str(out.root)))
    if not formats_in(out):
        raise ReviewError(HTTPStatus.NOT_FOUND, "not_labelled",
                          msg("{folder} holds no labels (data.yaml or annotations.json): run mjlens label into it "
                              "first", folder=str(out.root)))


def _error_body(code: str, message: str, lang: str = DEFAULT_LANG) -> bytes:
    return json.dumps({"error": {"code": code, "message": short_message(say(message, lang))}}).encode()


class _Handler(BaseHTTPRequestHandler):
    server: ReviewServer
    server_version = "mjlens-review"

    def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
        self._answer(self._get)

    def do_POST(self) -> None:  # noqa: N802
        self._answer(self._post)

    def _answer(self, route) -> None:
        try:
            self._check_host()
            status, kind, body = route(urlsplit(self.path).path)
        except ReviewError as err:
            status, kind = err.status, "application/json"
            body = _error_body(err.code, err.message, self.server.review.lang)
        except CorrectionError as err:
            status, kind = HTTPStatus.BAD_REQUEST, "application/json"
            body = _error_body(err.code, err.message, self.server.review.lang)
        except OSError as err:  # a save that cannot be written: said, and the page keeps its corrections
            status, kind = HTTPStatus.INTERNAL_SERVER_ERROR, "application/json"
            where = str(err.filename) if err.filename else msg("the output folder")
            body = _error_body("cannot_write", msg("{path}: {message}", path=where, message=os_reason(err)),
                               self.server.review.lang)
        except Exception as err:  # a bug: answered in the same shape, its traceback on the command's stderr
            traceback.print_exc(file=sys.stderr)
            status, kind = HTTPStatus.INTERNAL_SERVER_ERROR, "application/json"
            body = _error_body("internal", f"{type(err).__name__}: {err}")
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def _check_host(self) -> None:
        port = self.server.server_address[1]
        if self.headers.get("Host", "") not in (f"{HOST}:{port}", f"localhost:{port}"):
            raise ReviewError(HTTPStatus.FORBIDDEN, "wrong_host", msg("open the page as {url}",
                                                                      url=f"http://{HOST}:{port}/"))

    def _get(self, path: str) -> tuple[HTTPStatus, str, bytes]:
        review = self.server.review
        if path in ("/", "/review.html"):
            labelled = self.server.labelled()
            page = review_html(labelled, review.low, failures_in(review.out), formats_in(review.out), review.token,
                               review.lang)
            return HTTPStatus.OK, "text/html; charset=utf-8", page.encode("utf-8", errors="surrogateescape")
        name = unquote(path.removeprefix("/images/"), errors="surrogateescape")
        if path.startswith("/images/") and self.server.is_photo(name):
            kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
            try:
                return HTTPStatus.OK, kind, (review.out.images / name).read_bytes()
            except OSError as err:
                raise ReviewError(HTTPStatus.NOT_FOUND, "cannot_read", msg("{path}: {message}", path=f"images/{name}",
                                                                          message=os_reason(err))) from None
        raise ReviewError(HTTPStatus.NOT_FOUND, "not_found", msg("{path} is not a page of the review", path=path))

    def _post(self, path: str) -> tuple[HTTPStatus, str, bytes]:
        if path != "/save":
            raise ReviewError(HTTPStatus.NOT_FOUND, "not_found", msg("{path} takes no POST", path=path))
        if not secrets.compare_digest(self.headers.get(TOKEN_HEADER, ""), self.server.review.token):
            raise ReviewError(HTTPStatus.FORBIDDEN, "bad_token",
                              msg("a save comes from the review page this server served: load it again"))
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            raise ReviewError(HTTPStatus.LENGTH_REQUIRED, "no_length", msg("a save says its length")) from None
        if not 0 <= length <= MAX_SAVE_BYTES:
            raise ReviewError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "too_large",
                              msg("a save is at most {mib} MiB", mib=MAX_SAVE_BYTES // 1024 // 1024))
        try:
            body = json.loads(self.rfile.read(length))
        except ValueError as err:
            raise CorrectionError("bad_corrections", msg("the save is not JSON: {reason}", reason=str(err))) from None
        if not isinstance(body, dict) or "corrections" not in body:
            raise CorrectionError("bad_corrections", msg('the save is not {{"corrections": [...]}}'))
        saved = self.server.save(parse_corrections(body["corrections"]))
        return HTTPStatus.OK, "application/json", json.dumps(saved).encode()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
        pass  # a request a line would bury the address the command printed


class ReviewServer(ThreadingHTTPServer):
    """The review of one output folder on ``HOST``."""

    daemon_threads = True

    def __init__(self, review: Review, port: int = 0):
        super().__init__((HOST, port), _Handler)
        self.review = review
        self._save_lock = threading.Lock()
        # each photo's reading by its key, with the stamp (mtime, size) of the file it was read from: a page load
        # or a save of a large folder reads again only what a labelling run rewrote meanwhile
        self._readings: dict[str, tuple[tuple[int, int], dict[str, Any]]] = {}
        self._readings_lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}/"

    def as_read(self) -> list[tuple[LabelledPhoto, dict[str, Any]]]:
        """``labelled_in`` the folder, each reading loaded again only where its file changed."""
        out, found = self.review.out, []
        for photo in photos_in(out):
            try:
                stat = (out.recognitions / f"{photo.key}.json").stat()
            except OSError:
                continue
            stamp = (stat.st_mtime_ns, stat.st_size)
            with self._readings_lock:
                cached = self._readings.get(photo.key)
            if cached is None or cached[0] != stamp:
                rec = reading_of(out, photo)
                if rec is None:
                    continue
                cached = (stamp, rec)
                with self._readings_lock:
                    self._readings[photo.key] = cached
            found.append((photo, cached[1]))
        return found

    def labelled(self):
        """The folder's photos with their readings as corrected so far."""
        out = self.review.out
        return corrected_photos(self.as_read(), read_corrections(out.root / CORRECTIONS_FILE))

    def is_photo(self, name: str) -> bool:
        """Whether ``name`` is a file of the folder's images/ (a name alone, never a path out of it)."""
        return bool(name) and "/" not in name and name not in (".", "..") and (self.review.out.images / name).is_file()

    def save(self, corrections) -> dict[str, Any]:
        """Write the corrections, then the labels and the page from them; what was written."""
        out = self.review.out
        with self._save_lock:
            labelled = self.as_read()
            by_name = {c.image_name: c for c in corrections}
            check_corrections(labelled, by_name)
            formats = formats_in(out)
            try:
                before = read_corrections(out.root / CORRECTIONS_FILE)
                changed: set[str] | None = {name for name in before.keys() | by_name.keys()
                                            if before.get(name) != by_name.get(name)}
            except CorrectionError:  # a file damaged since: every label written again
                changed = None
            save_corrections(out, corrections)
            write_review(out, corrected_photos(labelled, by_name), formats, self.review.low, failures_in(out),
                         only=changed, lang=self.review.lang)
        yolo = ["labels/", "data.yaml", *SPLIT_FILES.values()]
        files = [CORRECTIONS_FILE, "review.html"] + (yolo if "yolo" in formats else []) \
            + (["annotations.json"] if "coco" in formats else [])
        return {"saved": len(corrections), "done": sum(c.done for c in corrections), "photos": len(labelled),
                "files": files}


def run_review(args) -> int:
    """``mjlens label --review DIR [--port P]``: serve until Ctrl-C."""
    from mjlens.api.cli.main import EXIT_OK, UsageError

    if args.folder is not None or args.out is not None:
        raise UsageError(msg("--review serves an output folder alone: give no photo folder or --out with it"))
    if not 0 <= args.port <= 65535:
        raise UsageError(msg("--port must be between 0 and 65535"))
    if not 0.0 <= args.review_conf <= 1.0:
        raise UsageError(msg("--review-conf must be between 0 and 1"))
    out = OutputFolder(Path(args.review).absolute())
    try:
        check_folder(out)
        read_corrections(out.root / CORRECTIONS_FILE)  # a damaged file said now, not at the first load
    except ReviewError as err:
        raise UsageError(msg("{code}: {message}", code=err.code, message=err.message)) from None
    except CorrectionError as err:
        raise UsageError(msg("{code}: {message} (correct it, or move it away to start afresh)", code=err.code,
                             message=err.message)) from None
    try:
        server = ReviewServer(Review(out, args.review_conf, secrets.token_urlsafe(24), args.lang), args.port)
    except OSError as err:
        raise UsageError(msg("cannot serve on {host}:{port}: {reason} (give another port with --port, or leave it "
                             "out for a free one)", host=HOST, port=args.port, reason=os_reason(err))) from None
    print("mjlens label: " + say(msg("reviewing {folder} at {url} (saves write into the folder; Ctrl-C stops)",
                                     folder=str(args.review), url=server.url), args.lang), file=sys.stderr)
    with server:
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("mjlens label: " + say(msg("review stopped"), args.lang), file=sys.stderr)
    return EXIT_OK
