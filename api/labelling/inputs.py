"""The photos ``mjlens label`` reads: found under the input folder without leaving it, each given an output name
that is unique and short enough for any file system, and opened so that what was listed is what is read.

Symbolic links are read only while they lead to a file inside the input folder, unless the caller asks to
follow them anywhere (``follow_links``); the output folder is skipped when it lies inside the input. A photo
whose output name would be too long or would collide with another's gets a shortened or suffixed name (the
notices say which), so one awkward name never stops the run.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mjlens.i18n import msg
from mjlens.i18n.os_errors import os_reason
from mjlens.vision.runtime.decode import MAX_BYTES, ImageError

from .outputs import Failure

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif"})

#: The longest output name a photo's key may give: the key takes a suffix of up to five bytes (".jpeg",
#: ".json") and most file systems allow 255 bytes a name.
KEY_MAX_BYTES = 250
#: Hex digits of the path digest that sets a shortened or colliding photo's name apart.
DIGEST_CHARS = 8


@dataclass(frozen=True)
class Photo:
    """One photo of the input folder and the names its outputs take."""

    source: Path  # the path as found under the input folder (a link is not resolved)
    relative: str  # the path relative to the input folder, "/"-separated
    key: str  # the output name without suffix: relative path without suffix, folders joined by "__"

    @property
    def image_name(self) -> str:
        return self.key + self.source.suffix.lower()


@dataclass(frozen=True)
class Renamed:
    """A photo whose output name is not its plain key (too long, or taken by another photo)."""

    relative: str
    key: str
    reason: str


@dataclass(frozen=True)
class PhotoList:
    photos: list[Photo]
    skipped: list[Failure]
    renamed: list[Renamed]


def find_photos(folder: Path, exclude: Path | None = None, follow_links: bool = False) -> PhotoList:
    """Every photo under ``folder`` (recursively, in name order), leaving out ``exclude`` (the output folder)
    and, unless ``follow_links``, every symbolic link that leads out of ``folder``."""
    root = Path(os.path.realpath(folder))
    excluded = Path(os.path.realpath(exclude)) if exclude else None
    found: list[tuple[Path, str]] = []
    skipped: list[Failure] = []
    for path in _walk(Path(folder), excluded, follow_links, skipped):
        relative = path.relative_to(folder).as_posix()
        real = Path(os.path.realpath(path))
        if not follow_links and not _inside(real, root):
            skipped.append(Failure(relative, "link_outside_input",
                                   msg("a symbolic link to a file outside the input folder (--follow-links reads it)")))
        elif not (excluded and _inside(real, excluded)):
            found.append((path, relative))
    photos, renamed, collisions = _name_outputs(found)
    return PhotoList(photos, skipped + collisions, renamed)


def _walk(folder: Path, excluded: Path | None, follow_links: bool, skipped: list[Failure]) -> Iterator[Path]:
    """Photo files under ``folder`` in name order; a linked folder is entered only with ``follow_links``, and
    then once (a link back up the tree would loop)."""
    seen: set[tuple[int, int]] = set()

    def unreadable(err: OSError) -> None:
        where = Path(err.filename).relative_to(folder).as_posix() if err.filename else "."
        skipped.append(Failure(where, "cannot_read", msg("a folder that cannot be listed: {reason}",
                                                         reason=os_reason(err))))

    for dirpath, dirnames, filenames in os.walk(folder, onerror=unreadable, followlinks=follow_links):
        here = Path(dirpath)
        info = os.stat(here)
        if (info.st_dev, info.st_ino) in seen or (excluded and _inside(Path(os.path.realpath(here)), excluded)):
            dirnames[:] = []
            continue
        seen.add((info.st_dev, info.st_ino))
        dirnames.sort()
        for name in dirnames:
            path = here / name
            if path.is_symlink() and not follow_links:
                skipped.append(Failure(path.relative_to(folder).as_posix(), "linked_folder",
                                       msg("a symbolic link to a folder, not entered (--follow-links enters it)")))
            elif _photo_name(name) and not (excluded and _inside(Path(os.path.realpath(path)), excluded)):
                skipped.append(Failure(path.relative_to(folder).as_posix(), "not_a_file",
                                       msg("a folder named like a photo: not a photo (the photos in it are "
                                           "labelled)")))
        for name in sorted(filenames):
            path = here / name
            if not _photo_name(name):
                continue
            if path.is_file():
                yield path
            elif path.is_symlink() and not path.exists():
                skipped.append(Failure(path.relative_to(folder).as_posix(), "dangling_link",
                                       msg("a symbolic link to nothing (its target is missing)")))
            else:  # a FIFO, a socket, a device, or a link to one
                skipped.append(Failure(path.relative_to(folder).as_posix(), "not_a_file",
                                       msg("not a regular file (a pipe, socket or device), so not read")))


def _photo_name(name: str) -> bool:
    return Path(name).suffix.lower() in IMAGE_SUFFIXES


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _name_outputs(found: list[tuple[Path, str]]) -> tuple[list[Photo], list[Renamed], list[Failure]]:
    """Give every photo a unique output key: the plain key where it is free and short enough, else a
    shortened or suffixed one carrying a digest of the photo's own path (so a photo keeps its name from run to
    run). Keys are compared without case, for output folders on case-insensitive file systems."""
    photos: list[Photo] = []
    renamed: list[Renamed] = []
    collisions: list[Failure] = []
    taken: dict[str, str] = {}
    for path, relative in sorted(found, key=lambda item: item[1]):
        plain = "__".join(Path(relative).with_suffix("").parts)
        key, reason = plain, ""
        if len(os.fsencode(plain)) > KEY_MAX_BYTES:
            key, reason = _with_digest(plain, relative), msg("the name is too long for an output file name")
        elif plain.casefold() in taken:
            key = _with_digest(plain, relative)
            reason = msg("its output name {key} is taken by {other}", key=plain, other=taken[plain.casefold()])
        if key.casefold() in taken:  # only a name crafted to look like a digest gets here: skip, never overwrite
            collisions.append(Failure(relative, "name_collision",
                                      msg("its output name {key} is taken by {other}; rename one", key=key,
                                          other=taken[key.casefold()])))
            continue
        taken[key.casefold()] = relative
        photos.append(Photo(path, relative, key))
        if reason:
            renamed.append(Renamed(relative, key, reason))
    return photos, renamed, collisions


def _with_digest(key: str, relative: str) -> str:
    digest = hashlib.sha256(os.fsencode(relative)).hexdigest()[:DIGEST_CHARS]
    head = os.fsencode(key)[:KEY_MAX_BYTES - DIGEST_CHARS - 1]
    return f"{_cut(head)}~{digest}"


def _cut(raw: bytes) -> str:
    """Bytes cut at a length, as a name: a UTF-8 character split by the cut is dropped (a name that is not
    UTF-8 keeps its bytes, as the file system gave them)."""
    for end in range(len(raw), max(0, len(raw) - 4), -1):
        try:
            return raw[:end].decode("utf-8")
        except UnicodeDecodeError:
            continue
    return os.fsdecode(raw)


class PhotoRefused(OSError):
    """A listed file that is not read after all (a stable ``code``, a message naming why)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def open_photo(photo: Photo, root: Path, follow_links: bool) -> int:
    """A read-only descriptor on the photo, checked at opening time: a regular file, not larger than the image
    layer accepts, and (unless ``follow_links``) inside ``root`` even if a link changed since the listing."""
    path = photo.source
    if not follow_links:
        real = Path(os.path.realpath(path))
        if not _inside(real, Path(os.path.realpath(root))):
            raise PhotoRefused("link_outside_input", msg("the file is now a symbolic link out of the input folder"))
        path = real
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags | (0 if follow_links else getattr(os, "O_NOFOLLOW", 0)))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PhotoRefused("not_a_file", msg("the file is not a regular file"))
        if info.st_size > MAX_BYTES:
            raise ImageError("image_too_large", f"the file is {info.st_size / 2**20:.1f} MiB; the limit is "
                                                f"{MAX_BYTES / 2**20:.0f} MiB")
    except BaseException:
        os.close(fd)
        raise
    return fd
