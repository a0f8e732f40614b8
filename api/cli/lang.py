"""``--lang``: the language of what a command prints for people (tables, listings, warnings, errors). Codes, and
the messages inside ``--json`` output, stay as they are: scripts read those (docs/i18n.md)."""

from __future__ import annotations

import sys

from mjlens.i18n import DEFAULT_LANG, LANGS, msg, say


def add_lang_flag(parser) -> None:
    parser.add_argument("--lang", choices=LANGS, default=DEFAULT_LANG,
                        help=msg("language of the output for people: tables, warnings and errors, and of --help "
                                 "(default en)"))


def complain(command: str, code: str, message: str, lang: str, hint: str | None = None) -> None:
    """The one line on stderr that says why a command refused: ``mjlens COMMAND: CODE: MESSAGE[; HINT]``."""
    line = f"mjlens {command}: {code}: {say(message, lang)}"
    if hint:
        line += say("; ", lang) + say(hint, lang)
    print(line, file=sys.stderr)
