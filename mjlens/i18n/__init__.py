"""What mjlens says to people, in English or Chinese, from one gettext catalogue.

A message is made in English with ``msg(TEMPLATE, **params)``: the result is the English text itself (a ``str``, so
JSON, logs and every English reader see exactly what they saw before), which also remembers its template and
parameters. ``say(text, "zh")`` looks the template up in ``zh.po`` (the catalogue, read with Babel) and formats the
Chinese template with the same parameters, each of which is said in Chinese too where it is a message itself.
Codes never pass through here: only the words around them change.

The catalogue's message ids are the English templates (``python-brace-format``); ``docs/i18n.md`` says how to add
a message and bring ``zh.po`` up to date.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from importlib.resources import files
from typing import Any

#: The languages mjlens speaks; the first is the default everywhere.
LANGS = ("en", "zh")
DEFAULT_LANG = LANGS[0]


class Message(str):
    """An English message that can be said in another language: ``template.format(**params)``, remembering both.
    A message joined from parts (``join``) has no template of its own: its parts are said one by one."""

    template: str
    params: dict[str, Any]
    #: gettext's msgctxt: which sense of a short word (a wait shape "pung" is not a meld's "pung")
    context: str | None
    parts: tuple[str, ...]
    sep: str

    def __new__(cls, template: str, /, **params: Any) -> Message:
        self = super().__new__(cls, template.format(**params))
        self.template, self.params, self.context, self.parts, self.sep = template, params, None, (), ""
        return self

    def __reduce__(self):  # pickled (worker processes) as its template and parameters, not its English text
        return _rebuild, (self.template, self.params, self.context, self.parts, self.sep)


def _rebuild(template: str, params: dict[str, Any], context: str | None, parts: tuple[str, ...],
             sep: str) -> Message:
    if parts:
        return join(sep, parts)
    return pmsg(context, template, **params) if context else Message(template, **params)


def msg(template: str, /, **params: Any) -> Message:
    """The message ``template`` (an English ``str.format`` template, the catalogue's id) with ``params``."""
    return Message(template, **params)


def pmsg(context: str, template: str, /, **params: Any) -> Message:
    """``msg`` in a ``context`` (gettext's msgctxt), for a short word that means different things in places."""
    self = Message(template, **params)
    self.context = context
    return self


def tr(lang: str, template: str, /, **params: Any) -> str:
    """``msg(template, **params)`` said in ``lang`` at once: words printed where they are made."""
    return say(msg(template, **params), lang)


def ptr(lang: str, context: str, template: str, /, **params: Any) -> str:
    """``pmsg`` said in ``lang`` at once."""
    return say(pmsg(context, template, **params), lang)


def join(sep: str, parts: Iterable[str]) -> Message:
    """``sep.join(parts)`` that stays translatable: each part and the separator are said in the reader's language."""
    parts = tuple(parts)
    self = Message("{text}", text=sep.join(parts))
    self.parts, self.sep = parts, sep
    return self


#: The separators ``join`` and the tables put between messages, so the catalogue holds them too.
SEPARATORS = (msg("; "), msg(", "))


@cache
def catalogue(lang: str) -> dict[tuple[str | None, str], str]:
    """(context, English template) -> the template in ``lang``, from ``<lang>.po`` (empty for English). Fuzzy or
    empty entries are left out: such a message stays English rather than wrong."""
    if lang == DEFAULT_LANG:
        return {}
    from babel.messages.pofile import read_po

    with files(__package__).joinpath(f"{lang}.po").open("rb") as po:
        entries = read_po(po, locale=lang)
    return {(m.context, m.id): m.string for m in entries
            if m.id and isinstance(m.id, str) and m.string and not m.fuzzy}


def page_words(lang: str, page: str | None = None) -> dict[str, str]:
    """A page's sentences in ``lang``, English template -> its translation: the phone page's (context ``page``),
    or those of the context ``page`` names (``review``: the label review page's)."""
    from .extract import PAGE

    return {text: said for (context, text), said in catalogue(lang).items() if context == (page or PAGE)}


def say(text: Any, lang: str = DEFAULT_LANG) -> Any:
    """``text`` in ``lang``: a message in its translation, a plain string that is itself a catalogue entry (a label,
    a separator) in its translation; anything else, or a message the catalogue lacks, as it is."""
    if lang == DEFAULT_LANG or not isinstance(text, str):
        return text
    table = catalogue(lang)
    if not isinstance(text, Message):
        return table.get((None, text), text)
    if text.parts:
        return say(text.sep, lang).join(say(part, lang) for part in text.parts)
    params = {key: say(value, lang) for key, value in text.params.items()}
    try:
        return table.get((text.context, text.template), text.template).format(**params)
    except (KeyError, IndexError, ValueError):  # a translation whose fields do not fit: the English, not a crash
        return text.template.format(**params)


def localize(data: Any, lang: str = DEFAULT_LANG) -> Any:
    """A JSON-shaped value with every message in it said in ``lang`` (keys, codes and numbers unchanged)."""
    if lang == DEFAULT_LANG:
        return data
    if isinstance(data, Message):
        return say(data, lang)
    if isinstance(data, dict):
        return {key: localize(value, lang) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [localize(value, lang) for value in data]
    return data


def lang_of(accept_language: str | None) -> str:
    """The language an HTTP ``Accept-Language`` header (or a browser's ``navigator.language``) asks for first among
    ``LANGS``: ``zh``, ``zh-TW``, ``zh-Hant-HK``... read as ``zh``; anything else, or nothing, as English."""
    best, best_q = DEFAULT_LANG, -1.0
    for order, part in enumerate((accept_language or "").split(",")):
        tag, _, q = part.strip().partition(";q=")
        lang = tag.strip().lower().split("-")[0]
        try:
            weight = float(q) if q else 1.0
        except ValueError:
            weight = 0.0
        if lang in LANGS and weight > 0 and weight - order * 1e-6 > best_q:
            best, best_q = lang, weight - order * 1e-6
    return best
