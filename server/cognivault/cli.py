"""The ``cognivault`` command: index, search, related notes, answers, evaluation, diagnostics.

Every command takes ``--vault PATH`` (default: the current folder) and
``--json`` (one machine-readable JSON document on stdout); otherwise it
prints text for people. Errors go to stderr as one line (``cognivault: ...``),
with exit code 2 for bad input and 1 for failures of the machine (a full disk,
a read-only vault), never a traceback for either.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import signal
import sqlite3
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cognivault.config import load_settings
from cognivault.errors import CogniVaultError, describe_os_error, display_path, is_text
from cognivault.models.providers import EMBEDDING_PROVIDER_CHOICES
from cognivault.progress_line import ProgressLine

if TYPE_CHECKING:
    from cognivault.engine import Engine
    from cognivault.models.base import EmbeddingProvider

log = logging.getLogger("cognivault")

# Feature packages add their own subcommands: each module has
# ``register(command)`` where ``command(name, handler, help) -> ArgumentParser``.
FEATURE_COMMANDS: list[str] = ["cognivault.companion.commands", "cognivault.lsp.commands",
                               "cognivault.answer.commands", "cognivault.study.commands", "cognivault.obsidian"]


class UserError(CogniVaultError):
    """A problem the user can fix; printed without a traceback."""


# Arguments naming files on disk, where bytes that are not UTF-8 are a real name (kept surrogate-escaped).
FILE_ARGUMENTS = frozenset({"vault", "questions", "nuggets", "unanswerable", "attach", "file", "out", "model",
                            "source", "pipe", "socket"})


def refuse_undecodable_text(args: argparse.Namespace) -> None:
    """UserError for a text argument (a query, a note name, a topic) holding bytes that are not UTF-8: Python
    keeps them as lone surrogates, which no search, index or JSON can take (a Latin-1 terminal typing "Größe")."""
    for name, value in vars(args).items():
        if name in FILE_ARGUMENTS:
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and not is_text(item):
                raise UserError(f"{name.replace('_', '-')} {display_path(item)!r} is not UTF-8 text: set the "
                                "terminal to UTF-8 (for example LANG=C.UTF-8) and type it again")


def vault_folder(raw: str) -> Path:
    """The vault folder a command was given, or UserError saying what is wrong with it."""
    vault = Path(raw).expanduser()
    try:
        if vault.is_dir():
            os.listdir(vault)
            return vault
        if vault.exists():
            raise UserError(f"the vault must be a folder, but {display_path(vault)} is a file")
    except PermissionError:
        raise UserError(f"cannot read the vault folder {display_path(vault)}: permission denied") from None
    raise UserError(f"vault folder not found: {display_path(vault)}")


def _print_json(data: object) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


def _open_engine(args: argparse.Namespace, writable: bool = True,
                 embedder: EmbeddingProvider | str | None = "auto") -> Engine:
    from cognivault.engine import open_engine

    overrides = {"embedding": {"provider": args.provider}} if getattr(args, "provider", None) else None
    return open_engine(vault_folder(args.vault), overrides, writable=writable,
                       embedder=embedder)


# -- commands ----------------------------------------------------------------
def cmd_index(args: argparse.Namespace) -> int:
    with _open_engine(args) as engine:
        progress = ProgressLine(sys.stderr.isatty() and not args.json)
        try:
            report = engine.index(progress)
        except KeyboardInterrupt:
            engine.stop_indexing()
            sys.stderr.write("\ninterrupted: everything indexed so far is kept; run again to resume\n")
            return 130
    data = report.to_dict()
    if args.json:
        _print_json(data)
        return 0
    totals = report.totals()
    for file_report in report.files:
        if file_report.state in ("skipped", "failed"):
            print(f"  {file_report.state:8} {file_report.path}: {file_report.reason}")
        elif args.verbose and file_report.state != "unchanged":
            print(f"  {file_report.state:8} {file_report.path} ({file_report.chunks} chunks)")
    print(f"{totals.get('indexed', 0)} indexed, {totals.get('unchanged', 0)} unchanged, "
          f"{totals.get('skipped', 0)} skipped, {totals.get('failed', 0)} failed, "
          f"{totals.get('deleted', 0)} removed; {totals['chunks']} chunks, "
          f"{report.embedded_chunks} embedded now, {report.reused_chunks} reused "
          f"({report.timings['total']:.1f} s, model {report.embedding_model})")
    if "multilingual" in report.timings:
        print(f"German search: {report.multilingual_chunks} passages embedded "
              f"({report.timings['multilingual']:.1f} s after the index was ready)")
    for message in report.messages:
        print(f"note: {message}")
    if not report.files:
        print(f"note: no notes or attachments found in {vault_folder(args.vault)}: is this the vault's folder?")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    with _open_engine(args, writable=False) as engine:
        status: dict[str, Any] = engine.status(per_file=args.json or args.verbose)
    if args.json:
        _print_json(status)
        return 0
    files = status["files"]
    stages = status["stages"]
    embedding = status["embedding"]
    print(f"vault: {status['vault']}\nindex: {status['index_dir']}")
    print(f"embedding model: {embedding['model_id'] or 'none'}"
          + (f" ({embedding['error']})" if embedding["error"] else ""))
    if not files["total"]:  # an index pass records its model: none recorded, none ran
        print("no notes or attachments found in the vault" if embedding["recorded_model_id"] is not None
              else "not indexed yet: run `cognivault index` first")
        return 0
    print(f"files: {files['total']} ({files.get('indexed', 0)} indexed, {files.get('skipped', 0)} skipped, "
          f"{files.get('failed', 0)} failed)")
    print(f"chunks: {stages['lexical']['total']}; keyword index "
          f"{'up to date' if stages['lexical']['up_to_date'] else 'stale'}; "
          f"embedded {stages['embedded']['done']}/{stages['embedded']['total']}")
    german = stages["multilingual"]
    if german["on"]:
        print(f"German meaning side: {german['done']}/{german['total']} embedded"
              + ("" if german["filled"] else " (German search uses keywords until it is filled)"))
    print("catalog, FAISS and BM25 agree" if status["consistency"]["agree"]
          else f"index parts disagree: {status['consistency']}")
    for row in status.get("per_file", []):
        print(f"  {row['state']:8} {row['path']} ({row['chunks']} chunks)"
              + (f": {row['reason']}" if row["reason"] else ""))
    return 0


def _location(path: str, line_start: int, line_end: int, locator: str) -> str:
    if locator:
        return f"{path} ({locator})"
    return f"{path}:{line_start}-{line_end}" if line_start else path


def cmd_search(args: argparse.Namespace) -> int:
    from cognivault.index.scope import Scope

    scope = Scope.parse(args.scope)  # a ScopeError reaches main as the user's mistake
    embedder = None if args.mode == "lexical" else "auto"  # keyword search never loads a model
    with _open_engine(args, writable=False, embedder=embedder) as engine:
        response = engine.search(args.query, k=args.k, mode=args.mode, scope=scope, per_note=args.per_note)
    if args.json:
        _print_json(response.to_dict())
        return 0
    for note in response.notes:
        print(f"note: {note}", file=sys.stderr)
    if not response.results:
        print("no results")
    bold = sys.stdout.isatty()
    for number, result in enumerate(response.results, start=1):
        snippet = result.snippet
        if bold:
            for start, end in reversed(result.highlights):
                snippet = f"{snippet[:start]}\x1b[1m{snippet[start:end]}\x1b[0m{snippet[end:]}"
        print(f"{number:2}. {result.breadcrumb}  [{result.score:.4f}]")
        print(f"    {_location(result.path, result.line_start, result.line_end, result.locator)}")
        print(f"    {snippet}")
    return 0


def cmd_related(args: argparse.Namespace) -> int:
    with _open_engine(args, writable=False) as engine:
        related = engine.related(args.note, k=args.k, include_linked=args.include_linked)
    if args.json:
        _print_json({"note": args.note, "related": [r.to_dict() for r in related]})
        return 0
    for number, note in enumerate(related, start=1):
        print(f"{number:2}. {note.title}  ({note.path}, {note.score:.3f}): {'; '.join(note.reasons)}")
    if not related:
        print("no related notes found")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from cognivault.evaluation import QuestionFileError, evaluate, load_questions

    try:
        questions = load_questions(Path(args.questions))
    except (OSError, QuestionFileError) as exc:
        raise UserError(f"cannot read questions: {exc}") from exc
    with _open_engine(args) as engine:
        if not args.no_index:
            engine.index(ProgressLine(sys.stderr.isatty() and not args.json))
        report = evaluate(engine, questions, args.modes, include_questions=args.per_question)
    if args.json:
        _print_json(report)
        return 0
    print(f"{report['questions']} questions, embedding model {report['embedding_model']}")
    for mode, summary in report["modes"].items():
        overall = summary["overall"]
        langs = ", ".join(f"{lang} {s['ndcg@10']:.3f}" for lang, s in summary["by_lang"].items())
        print(f"{mode:8} nDCG@10 {overall['ndcg@10']:.3f}  Recall@5 {overall['recall@5']:.3f}  "
              f"MRR {overall['mrr']:.3f}  ({langs})")
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from cognivault.doctor import diagnose, format_report

    vault = Path(args.vault).expanduser()
    settings = load_settings(vault) if vault.is_dir() else load_settings(Path("/nonexistent"))
    report = diagnose(vault, settings)
    if args.json:
        _print_json(report)
        return 0
    print(format_report(report))
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    try:
        from cognivault.mcp_server import serve_stdio
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] not in ("mcp", "mcp_types"):
            raise
        raise UserError("`cognivault mcp` needs the MCP SDK: pip install 'cognivault[mcp]'") from None
    return serve_stdio(vault_folder(args.vault), allow_writes=args.allow_writes, keyword_only=args.keyword_only)


# -- parser ------------------------------------------------------------------
EXAMPLES = """examples:
  cognivault index --vault ~/notes                      index (again: only changed files are read)
  cognivault search --vault ~/notes "embed a note" -k 5
  cognivault search --vault ~/notes "§3 Absatz 2" --mode lexical
  cognivault ask --vault ~/notes "How do I embed a note?"
  cognivault review --vault ~/notes                     due flashcards, one key per grade
  cognivault serve --vault ~/notes                      prints a dashboard link to click
  cognivault doctor                                     what works here, and how to fix the rest

Every command takes --vault (default: the current folder) and --json.
`cognivault COMMAND --help` shows a command's options."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cognivault", description=__doc__.splitlines()[0], epilog=EXAMPLES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True, metavar="command")

    def command(name: str, handler: Callable[[argparse.Namespace], int], help_text: str
                ) -> argparse.ArgumentParser:
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        sub_parser.add_argument("--vault", default=os.getcwd(), help="vault folder (default: current folder)")
        sub_parser.add_argument("--json", action="store_true", help="print one JSON document")
        sub_parser.add_argument("-v", "--verbose", action="store_true",
                                help="say more (per-file lines, details of each step)")
        sub_parser.set_defaults(handler=handler)
        return sub_parser

    index = command("index", cmd_index, "index the vault (incremental: only changed files are read)")
    index.add_argument("--provider", choices=EMBEDDING_PROVIDER_CHOICES,
                       help="embedding provider (none: no model, keyword search only)")

    command("status", cmd_status, "show how far indexing got, per stage and per file")

    search = command("search", cmd_search, "search the vault by keywords and meaning")
    search.add_argument("query", help="what to look for: words, a phrase or a question")
    search.add_argument("--mode", choices=["hybrid", "lexical", "dense"], default="hybrid",
                        help="hybrid (default): keywords and meaning fused; lexical: keywords only, no "
                             "model; dense: meaning only")
    search.add_argument("-k", type=int, default=10, help="number of results (default 10)")
    search.add_argument("--scope", action="append", help="folder:X, tag:Y, file:Z, property:key=value, "
                                                         "study:only|exclude (repeatable)")
    search.add_argument("--per-note", action="store_true", help="one result per note")

    related = command("related", cmd_related, "notes related to a note (meaning, links, tags)")
    related.add_argument("note", help="vault-relative path or note name")
    related.add_argument("-k", type=int, default=10, help="number of notes (default 10)")
    related.add_argument("--include-linked", action="store_true",
                         help="also list notes this note already links to")

    evaluation = command("eval", cmd_eval, "measure search quality on a graded question set")
    evaluation.add_argument("--questions", required=True, help="JSONL question file")
    evaluation.add_argument("--modes", nargs="+", choices=["lexical", "dense", "hybrid"],
                            default=["lexical", "dense", "hybrid"], help="search modes to measure (default: all)")
    evaluation.add_argument("--per-question", action="store_true", help="also report every question's ranks")
    evaluation.add_argument("--no-index", action="store_true", help="do not update the index first")

    command("doctor", cmd_doctor, "what is available here: models, OCR, speech, extras")
    mcp = command("mcp", cmd_mcp, "serve the vault to AI agents over the Model Context Protocol (stdio): search, "
                  "ask, related, read_note, due_cards, generate; notes as resources")
    mcp.add_argument("--allow-writes", action="store_true",
                     help="offer the generate tool, which writes study notes into the vault (default: read-only)")
    mcp.add_argument("--keyword-only", action="store_true", help="no embedding model: keyword search only")
    for module_name in FEATURE_COMMANDS:
        importlib.import_module(module_name).register(command)
    return parser


def _version() -> str:
    from cognivault import __version__

    return f"cognivault {__version__}"


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=os.environ.get("COGNIVAULT_LOG", "WARNING"),
                        format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    try:
        refuse_undecodable_text(args)
        code = int(args.handler(args))
        sys.stdout.flush()  # a closed pipe shows here, not as a traceback at exit
        return code
    except CogniVaultError as exc:
        print(f"cognivault: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # `cognivault search … | head`: the reader has all it wanted; no error line
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the final flush has nowhere to fail
        return 128 + signal.SIGPIPE
    except OSError as exc:  # a full disk, a read-only vault, a folder without permission: one line
        print(f"cognivault: {describe_os_error(exc, 'finish ' + args.command)}", file=sys.stderr)
        return 1
    except sqlite3.OperationalError as exc:  # the index database on a full or read-only disk
        print(f"cognivault: cannot finish {args.command}: the index database says {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    # `python -m cognivault.cli` runs this file as __main__; feature commands raise
    # cognivault.cli.UserError, so run the imported module's main to catch that class.
    from cognivault.cli import main as cli_main

    raise SystemExit(cli_main())
