"""Why the operating system refused (no such file, a port taken, a host name unknown), in the reader's language: the
common reasons as catalogued messages whose English is the C library's own wording, any other as the system says
it."""

from __future__ import annotations

import errno
import socket

from . import Message, msg

#: errno -> the reason (English as glibc's strerror says it).
REASONS: dict[int, Message] = {
    errno.ENOENT: msg("No such file or directory"),
    errno.EACCES: msg("Permission denied"),
    errno.EPERM: msg("Operation not permitted"),
    errno.EISDIR: msg("Is a directory"),
    errno.ENOTDIR: msg("Not a directory"),
    errno.EEXIST: msg("File exists"),
    errno.ENOSPC: msg("No space left on device"),
    errno.EROFS: msg("Read-only file system"),
    errno.ENAMETOOLONG: msg("File name too long"),
    errno.ELOOP: msg("Too many levels of symbolic links"),
    errno.EADDRINUSE: msg("Address already in use"),
    errno.EADDRNOTAVAIL: msg("Cannot assign requested address"),
}
#: getaddrinfo's codes (``socket.gaierror``) -> the reason.
NAME_REASONS: dict[int, Message] = {
    socket.EAI_NONAME: msg("Name or service not known"),
    socket.EAI_AGAIN: msg("Temporary failure in name resolution"),
}


def os_reason(err: OSError) -> str:
    """The reason ``err`` gives, a catalogued message where it is a common one."""
    table = NAME_REASONS if isinstance(err, socket.gaierror) else REASONS
    return table.get(err.errno) or str(err.strerror or err)  # type: ignore[arg-type]
