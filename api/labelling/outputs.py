"""What ``mjlens label`` writes: every file through a short temporary name and a rename (an interrupted run never
leaves half a file, and a name near the file system's limit still fits), output photos as copies (a reflink
where the file system offers one; a hard link only when asked), JSON text that holds any file name, and the
list of files not labelled as JSON lines.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mjlens.i18n import msg

try:  # Linux's clone ioctl: the copy shares the original's blocks on btrfs, XFS and others, at no cost
    import fcntl

    FICLONE: int | None = 0x40049409
except ImportError:  # pragma: no cover - not on Windows
    fcntl, FICLONE = None, None

FAILED_LIST = "failed.jsonl"
LEGACY_FAILED_LIST = "failed.txt"
RUN_LOCK = ".label.lock"


class FolderInUse(Exception):
    """Another ``mjlens label`` run is writing into the output folder."""


@dataclass(frozen=True)
class Failure:
    """A file under the input folder that was not labelled: its path there, a stable code, and why."""

    relative: str
    code: str
    message: str


@dataclass(frozen=True)
class OutputFolder:
    """The output folder's layout (CONVENTIONS §5, docs/label-cluster.md)."""

    root: Path

    @property
    def recognitions(self) -> Path:  # one Recognition JSON a photo: the resumable state
        return self.root / "recognitions"

    @property
    def images(self) -> Path:
        return self.root / "images"

    @property
    def labels(self) -> Path:
        return self.root / "labels"


@contextlib.contextmanager
def exclusive_run(out: OutputFolder) -> Iterator[None]:
    """Held while a run labels into ``out``: a second run into the same folder is refused (FolderInUse), and the
    temporary files a killed run left behind (a worker stopped mid-write) are removed, since no one else writes
    temporary files into the recognitions and images folders."""
    handle = open(out.root / RUN_LOCK, "a+b")  # noqa: SIM115 - held for the whole run
    try:
        if fcntl is not None:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise FolderInUse(msg("another mjlens label run is writing into {folder}", folder=str(out.root))
                                  ) from None
        for folder in (out.recognitions, out.images):
            for stale in folder.glob(".*.part"):
                with contextlib.suppress(OSError):
                    stale.unlink()
        yield
    finally:
        handle.close()


def json_text(value: Any) -> str:
    """JSON with non-ASCII text kept readable, or escaped where a name holds bytes that are not UTF-8 (a file
    name on Linux may), so the text always writes and always reads back to the same name."""
    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value)
    return text


def write_atomic(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8", errors="surrogateescape"))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write through a temporary file with a short name beside ``path``, then rename it into place."""
    fd, tmp = _create_temporary(path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def store_image(source_fd: int, data: bytes, target: Path, link_to: Path | None = None) -> None:
    """Put the photo read from ``source_fd`` (its bytes ``data``) at ``target``: a hard link to ``link_to`` when
    given and possible, else a reflink of the open file, else a copy of the bytes; the source's times kept."""
    if link_to is not None:
        with contextlib.suppress(OSError):  # another device, or a file the link protection refuses: copy it
            _link_atomic(link_to, target)
            return
    fd, tmp = _create_temporary(target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            if not _reflink(source_fd, handle.fileno()):
                handle.write(data)
        info = os.fstat(source_fd)
        os.utime(tmp, ns=(info.st_atime_ns, info.st_mtime_ns))
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _create_temporary(folder: Path) -> tuple[int, Path]:
    """A new file with a short hidden name in ``folder``, its mode from the umask (as any output file's)."""
    while True:
        path = folder / f".{secrets.token_hex(6)}.part"
        try:
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666), path
        except FileExistsError:
            continue


def _reflink(source_fd: int, target_fd: int) -> bool:
    if fcntl is None or FICLONE is None:
        return False
    try:
        fcntl.ioctl(target_fd, FICLONE, source_fd)
    except OSError:  # not offered here (ext4, tmpfs, another file system): the caller copies
        return False
    return True


def _link_atomic(source: Path, target: Path) -> None:
    tmp = target.with_name(f".{secrets.token_hex(6)}.part")
    os.link(source, tmp)
    try:
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def failed_lines(failures: Iterable[Failure]) -> str:
    """One JSON object a line, ``{"path", "code", "message"}``: any file name survives, newlines included."""
    return "".join(json_text({"path": f.relative, "code": f.code, "message": f.message}) + "\n" for f in failures)


def write_failed(out: OutputFolder, failures: list[Failure]) -> None:
    write_atomic(out.root / FAILED_LIST, failed_lines(failures))
    with contextlib.suppress(FileNotFoundError):  # the tab-separated list of earlier versions, now misleading
        (out.root / LEGACY_FAILED_LIST).unlink()
