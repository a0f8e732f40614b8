"""What ``--lang zh`` output may hold: no English sentence. Shared by the tests of every command's Chinese."""

from __future__ import annotations

import re

from mjlens.api.cli.main import COMMANDS

#: Two or more English words in a row: a sentence, or a piece of one, left untranslated (a word that begins a file
#: name, table.jpg, is none).
ENGLISH_RUN = re.compile(r"(?<![\w'-])[A-Za-z]{2,}(?: [A-Za-z]{2,})+(?![\w'-]|\.\w)")
#: Runs of English words that are names, not sentences: the commands a user types, which stay as they are typed,
#: the JSON formats by their names (CONVENTIONS), and a help text's metavars (PHOTO LINE LABELLED SHOWN).
ALLOWED_RUN = re.compile(rf"mjlens (?:{'|'.join(COMMANDS)})(?: create| show)?|pip install(?: onnx)?"
                         r"|(?:Hand|Recognition|Score) JSON|[A-Z]{2,}(?: [A-Z]{2,})+")


def english_sentences(text: str) -> list[str]:
    return [m[0] for m in ENGLISH_RUN.finditer(text) if not ALLOWED_RUN.fullmatch(m[0])]
