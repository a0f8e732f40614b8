"""The ``mjlens`` command line (CONVENTIONS §5). Each sub-command lives in its own module under
``api.cli.commands`` with ``register(subparsers)``; this module only wires them and maps failures to exit codes:
0 success, 2 bad arguments or bad input, 1 internal error, with a message on stderr and never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Callable, Sequence

from mjlens.i18n import DEFAULT_LANG, Message, msg, say

#: Sub-command modules, in the order ``mjlens --help`` lists them.
COMMANDS = ("score", "waits", "advise", "recognize", "photo", "eval", "label", "profile", "synth", "train", "serve")

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


class UsageError(Exception):
    """Bad arguments or bad input: exit status 2 with the message on stderr."""


#: argparse's complaints, by words they hold, and the stable code each is given (CONVENTIONS §5); the first match wins.
FLAG_ERRORS = (
    ("unrecognized arguments", "unknown_flag"),
    ("the following arguments are required", "missing_argument"),
    ("not allowed with argument", "conflicting_flags"),
    ("expected one argument", "missing_value"),
    ("invalid", "bad_flag_value"),
)


#: argparse's complaints (its own English), each said again as a catalogued message so ``--lang zh`` reads them in
#: Chinese; the first that matches the whole complaint wins, and one that none matches is left as argparse says it.
ARGPARSE_WORDS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], Message]], ...] = (
    (re.compile(r"unrecognized arguments: (?P<args>.*)"), lambda m: msg("unrecognized arguments: {args}", **m)),
    (re.compile(r"the following arguments are required: (?P<args>.*)"),
     lambda m: msg("the following arguments are required: {args}", **m)),
    (re.compile(r"argument (?P<arg>\S+): not allowed with argument (?P<other>.*)"),
     lambda m: msg("argument {arg}: not allowed with argument {other}", **m)),
    (re.compile(r"argument (?P<arg>\S+): expected one argument"),
     lambda m: msg("argument {arg}: expected one argument", **m)),
    (re.compile(r"argument (?P<arg>\S+): invalid choice: (?P<choice>.*) \(choose from (?P<choices>.*)\)"),
     lambda m: msg("argument {arg}: invalid choice: {choice} (choose from {choices})", **m)),
    (re.compile(r"argument (?P<arg>\S+): invalid (?P<kind>\w+) value: (?P<value>.*)"),
     lambda m: msg("argument {arg}: invalid {kind} value: {value}", **m)),
    (re.compile(r"ambiguous option: (?P<option>\S+) could match (?P<matches>.*)"),
     lambda m: msg("ambiguous option: {option} could match {matches}", **m)),
)


def argparse_said(message: str) -> str:
    """argparse's ``message`` as a catalogued message where one of ``ARGPARSE_WORDS`` says it, else as it is."""
    for pattern, said in ARGPARSE_WORDS:
        found = pattern.fullmatch(message)
        if found:
            return said(found.groupdict())
    return message


def lang_in(argv: Sequence[str]) -> str:
    """The ``--lang`` the command line gives (``--lang zh`` or ``--lang=zh``), for a complaint made before parsing
    ends and for ``--help``; English when there is none, or none offered."""
    from mjlens.i18n import LANGS

    words = list(argv)
    for i, word in enumerate(words):
        value = words[i + 1] if word == "--lang" and i + 1 < len(words) else word.partition("=")[2]
        if (word == "--lang" or word.startswith("--lang=")) and value in LANGS:
            return value
    return DEFAULT_LANG


#: argparse's own words in a help text (its headings, the usage prefix, the help flag's help), for the catalogue.
HELP_WORDS = (msg("usage: "), msg("positional arguments"), msg("options"), msg("show this help message and exit"))


class SaidHelp(argparse.HelpFormatter):
    """A help text in ``lang``: each help string, description and heading is a catalogued message (or one of
    argparse's own words in ``HELP_WORDS``), said in that language; flags, metavars and choices stay as typed."""

    lang: str = DEFAULT_LANG

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return say(super()._get_help_string(action), self.lang)

    def add_text(self, text: str | None) -> None:
        super().add_text(say(text, self.lang))

    def start_section(self, heading: str | None) -> None:
        super().start_section(say(heading, self.lang))

    def add_usage(self, usage, actions, groups, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, say("usage: ", self.lang) if prefix is None else prefix)

    # argparse wraps by characters at spaces; Chinese has no spaces and each character takes two columns
    def _split_lines(self, text: str, width: int) -> list[str]:
        return super()._split_lines(text, width) if self.lang == DEFAULT_LANG else wrapped(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if self.lang == DEFAULT_LANG:
            return super()._fill_text(text, width, indent)
        return "\n".join(indent + line for line in wrapped(text, width - len(indent)))


#: What may not begin a line of Chinese (its closing punctuation stays with the word before it), and what may not
#: end one (an opening bracket goes with the word after it).
NO_LINE_START, NO_LINE_END = "，。；：、）」』！？》", "（「『《"


def wrapped(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` terminal columns (a wide character takes two), broken at a space or
    between two Chinese characters, never inside an English word, before closing punctuation or after opening
    punctuation."""
    import unicodedata

    def columns(part: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in part)

    lines, line = [], ""
    for token in re.findall(r"\s+|[!-~]+|.", text.strip()):
        token = " " if token.isspace() else token
        if line and token != " " and token not in NO_LINE_START and columns(line + token) > width:
            carried = line[-1] if line[-1] in NO_LINE_END and len(line) > 1 else ""
            lines.append(line[:len(line) - len(carried)].rstrip())
            line = carried
        if line or token != " ":
            line += token
    return [*lines, line.rstrip()] if line else lines


class _Parser(argparse.ArgumentParser):
    #: the words the command line was given, to name the sub-command whose flag was mistyped
    argv: Sequence[str] = ()

    def _get_formatter(self) -> argparse.HelpFormatter:  # help and usage in the --lang of the command line
        kind = self.formatter_class
        said = kind if issubclass(kind, SaidHelp) else SaidHelp if kind is argparse.HelpFormatter \
            else type(f"Said{kind.__name__}", (kind, SaidHelp), {})
        formatter = said(prog=self.prog)
        formatter.lang = lang_in(self.argv)
        return formatter

    def error(self, message: str):  # argparse exits 2 as well; keep its wording with a code, drop the traceback path
        self.print_usage(sys.stderr)
        code = next((code for words, code in FLAG_ERRORS if words in message), "bad_arguments")
        command = self._command()
        prog = f"mjlens {command}" if command and self.prog == "mjlens" else self.prog
        lang = lang_in(self.argv)
        suggestion = self._suggestion(message, command)
        line = say(argparse_said(message), lang) + (say(suggestion, lang) if suggestion else "")
        print(f"{prog}: {code}: {line}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)

    def _command(self) -> str | None:
        return next((word for word in self.argv if word in COMMANDS), None)

    def _suggestion(self, message: str, command: str | None) -> str:
        """``; did you mean ...?`` for a mistyped flag, sub-command or choice, when one is close."""
        import difflib

        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            wrong, known = choice[1], re.findall(r"'([^']*)'", choice[2])
        elif "unrecognized arguments" in message:
            wrong = next((w for w in message.split(": ", 1)[1].split() if w.startswith("--")), "")
            known = [flag for parser in self._parsers(command) for flag in parser._option_string_actions]
        else:
            return ""
        close = difflib.get_close_matches(wrong.split("=", 1)[0], known, n=1)
        return msg("; did you mean {flag}?", flag=close[0]) if wrong and close else ""

    def _parsers(self, command: str | None) -> list[argparse.ArgumentParser]:
        subs = [a for a in self._actions if isinstance(a, argparse._SubParsersAction)]
        return [self] + [sub.choices[command] for sub in subs if command in sub.choices]


class _Version(argparse.Action):
    """``--version``, its number read only when asked for (the installed metadata is slow to load)."""

    def __call__(self, parser, namespace, values, option_string=None):
        import mjlens

        print(f"mjlens {mjlens.__version__}")
        raise SystemExit(EXIT_OK)


def commands_for(argv: Sequence[str] | None) -> tuple[str, ...]:
    """The sub-commands to register for ``argv``: only the one it runs where it names one (each command's module
    loads what its flags need, and a photo read should not wait for the others'), none for a bare ``--version``,
    else every one (``--help``, a missing or mistyped command: the message lists them all)."""
    if argv is None:
        return COMMANDS
    words = [arg for arg in argv if not arg.startswith("-")]
    if words and words[0] in COMMANDS:
        return (words[0],)
    if not words and "--version" in argv and not {"-h", "--help"} & set(argv):
        return ()
    return COMMANDS


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``mjlens`` parser with the sub-commands ``commands_for(argv)`` names (all of them without ``argv``)."""
    parser = _Parser(prog="mjlens", description=msg("Score a mahjong hand from a photo or from its notation."))
    parser.argv = tuple(argv or ())
    parser.add_argument("--version", action=_Version, nargs=0, help=msg("print the version and exit"))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in commands_for(argv):
        importlib.import_module(f"mjlens.api.cli.commands.{name}").register(sub)
    for child in _children(parser):  # a sub-command's complaint and help read --lang from the same words
        child.argv = parser.argv
    return parser


def _children(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """Every parser under ``parser``: its sub-commands, and theirs (``profile create``)."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return [p for sub in subs for child in sub.choices.values() for p in (child, *_children(child))]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    lang = getattr(args, "lang", DEFAULT_LANG)
    try:
        return int(args.run(args) or 0)
    except UsageError as err:
        print(f"mjlens {args.command}: {say(err.args[0] if err.args else str(err), lang)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("mjlens: " + say(msg("interrupted"), lang), file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as err:  # the last line of defence: an internal error, said in one line
        said = say(msg("internal error: {kind}: {error}", kind=type(err).__name__, error=str(err)), lang)
        print(f"mjlens {args.command}: {said}", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # ``python -m mjlens.api.cli.main``: run the imported module (its UsageError is the one
    # the commands raise)
    from mjlens.api.cli.main import main as _main

    sys.exit(_main())
