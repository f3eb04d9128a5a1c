"""The study hub's commands: ``generate``, ``review``, ``quiz``, ``export anki``, ``progress``.

Registered through ``cognivault.cli.FEATURE_COMMANDS``; every command takes
``--vault`` and ``--json`` like the core ones.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cognivault.cli import UserError, _print_json, vault_folder
from cognivault.models.providers import CHAT_PROVIDER_CHOICES
from cognivault.study.kinds import KINDS

if TYPE_CHECKING:
    from cognivault.engine import Engine
    from cognivault.models.chat import ChatProvider
    from cognivault.study.common import GenerationResult
    from cognivault.study.progress import ProgressStore
    from cognivault.study.quiz import QuizQuestion
    from cognivault.study.review import ReviewDeck
    from cognivault.study.sources import StudyRequest


# -- helpers -----------------------------------------------------------------------
def _vault(args: argparse.Namespace) -> Path:
    return vault_folder(args.vault).resolve()


def _progress_store(vault: Path) -> ProgressStore:
    from cognivault.study.progress import ProgressStore

    return ProgressStore(vault)


def _engine_for_generation(args: argparse.Namespace) -> Engine:
    """An engine whose index is current (indexing first when this process may write it)."""
    from cognivault.engine import open_engine_or_keywords
    from cognivault.index.store import IndexBusy

    vault = vault_folder(args.vault)
    try:
        engine = open_engine_or_keywords(vault, writable=True)
    except IndexBusy:
        return open_engine_or_keywords(vault, writable=False)
    if engine.store.writable:
        try:
            engine.index()
        except IndexBusy:
            pass
    return engine


async def _provider(engine: Any, name: str | None, model: str | None) -> tuple[ChatProvider | None, str | None]:
    from cognivault.models.chat import ChatError, resolve_chat_provider

    if name == "extractive":
        return None, None
    try:
        provider, note = await resolve_chat_provider(engine.settings, name, model)
    except ChatError as exc:
        raise UserError(exc.message) from exc
    if getattr(provider, "name", "") == "extractive":
        await provider.aclose()
        return None, note
    return provider, note


def _request(args: argparse.Namespace) -> StudyRequest:
    from cognivault.index.scope import Scope, ScopeError
    from cognivault.study.sources import StudyRequest

    try:
        scope = Scope.parse(args.scope)
    except ScopeError as exc:
        raise UserError(str(exc)) from exc
    lines = None
    if args.lines:
        first, _, last = args.lines.partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            raise UserError("--lines takes FIRST-LAST, e.g. 10-24")
        lines = (int(first), int(last or first))
    return StudyRequest(note=args.note, scope=scope, topic=args.topic, selection=args.selection, lines=lines,
                        count=args.count, deck=args.deck)


# -- generate ----------------------------------------------------------------------
def cmd_generate(args: argparse.Namespace) -> int:
    from cognivault.study.generate import run_generation
    from cognivault.study.sources import GenerationError
    from cognivault.study.terminal import counted

    request = _request(args)
    if args.kind == "lesson" and not (args.workshop and args.lesson):
        raise UserError("generate lesson needs --workshop OUTLINE_NOTE and --lesson N")
    if args.kind != "lesson" and not (request.note or request.topic or not request.scope.is_empty()):
        raise UserError("say what to study from: --note PATH, --scope folder:X / tag:Y / file:Z, or --topic TEXT")
    quiet = args.json or not sys.stderr.isatty()

    def progress(stage: str, message: str) -> None:
        if not quiet:
            sys.stderr.write(f"{stage}: {message}\n")

    with _engine_for_generation(args) as engine:
        async def run() -> GenerationResult:
            provider, note = await _provider(engine, args.chat_provider, args.model)
            if note and not quiet:
                sys.stderr.write(f"note: {note}\n")
            try:
                return await run_generation(args.kind, engine, request, provider, progress=progress,
                                            store=_progress_store(engine.vault), workshop=args.workshop,
                                            lesson=args.lesson)
            finally:
                if provider is not None:
                    await provider.aclose()

        try:
            result = asyncio.run(run())
        except GenerationError as exc:
            raise UserError(str(exc)) from exc
    if args.json:
        _print_json(result.to_dict())
        return 0
    for warning in result.warnings:
        print(f"note: {warning}", file=sys.stderr)
    if result.dropped:
        print(f"note: {counted(result.dropped, 'malformed item')} from the model "
              f"{'was' if result.dropped == 1 else 'were'} dropped", file=sys.stderr)
    print(result.path)
    return 0


# -- review ------------------------------------------------------------------------
def cmd_review(args: argparse.Namespace) -> int:
    from cognivault.study.review import CardNotFound, ReviewConflict, ReviewDeck, run_terminal_review
    from cognivault.study.terminal import counted, interval_label

    vault = _vault(args)
    deck = ReviewDeck(vault, progress=_progress_store(vault))
    paths = [deck.note_path(args.note)] if args.note else None
    if args.card:
        if args.grade is None:
            raise UserError("--card needs --grade 1-4")
        try:
            outcome = deck.grade(args.card, args.grade, path=paths[0] if paths else None)
        except (CardNotFound, ReviewConflict, ValueError) as exc:
            raise UserError(str(exc)) from exc
        if args.json:
            _print_json(outcome.to_dict())
        else:
            print(f"{outcome.card_id}: next review {outcome.due} (in {interval_label(outcome.interval)})")
        return 0
    due = deck.due(deck=args.deck, limit=args.limit, paths=paths, include_new=not args.no_new)
    if args.list or args.json:
        if args.json:
            _print_json({"due": [c.to_dict() for c in due], "stats": deck.stats()})
        else:
            for card in due:
                print(f"{card.id}  {card.path}:{card.line}  {'new' if card.is_new else card.due}  "
                      f"{card.front.splitlines()[0][:60] if card.front else ''}")
            print(f"{counted(len(due), 'card')} due")
        return 0
    if not due:
        print(_nothing_due(deck, args.deck, paths, include_new=not args.no_new))
        return 0
    run_terminal_review(deck, due, sys.stdin, sys.stdout)
    return 0


def _nothing_due(deck: ReviewDeck, only_deck: str | None, paths: list[str] | None, include_new: bool) -> str:
    """What to tell a student with no card to review now: there are none yet, or when the next ones come."""
    from cognivault.study.terminal import counted

    cards = deck.cards(only_deck, paths)
    where = f"in {paths[0]}" if paths else f"in the deck {only_deck}" if only_deck else "in this vault"
    if not cards:
        return (f"No flashcards {where} yet. Make some with `cognivault generate flashcards --note NOTE`, "
                f"or tag a note #{deck.options.flashcard_tags[0]} and write cards as `Question::Answer` lines.")
    lines = ["Nothing is due now."]
    upcoming = deck.next_due(deck=only_deck, paths=paths)
    if upcoming is not None:
        day, count = upcoming
        lines.append(f"Next review: {counted(count, 'card')} on {day}.")
    waiting = sum(1 for card in cards if card.is_new)
    if waiting and not include_new:
        lines.append(f"{counted(waiting, 'new card')} {'waits' if waiting == 1 else 'wait'}: "
                     "review without --no-new to start them.")
    return "\n".join(lines)


# -- quiz attempt --------------------------------------------------------------------
def _quiz_path(vault: Path, raw: str) -> Path:
    candidate = (vault / raw).resolve() if not Path(raw).is_absolute() else Path(raw).resolve()
    if not candidate.is_relative_to(vault) or not candidate.is_file():
        raise UserError(f"quiz note not found in the vault: {raw}")
    return candidate


def _ask_answer(question: QuizQuestion) -> str | None:
    """One answer typed for ``question``: asked again until it names an option (empty skips it); None when
    the input ends."""
    from cognivault.study.quiz import LETTERS, answer_index

    while True:
        sys.stdout.write("Your answer > ")
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            return None
        if not line.strip() or answer_index(line.strip(), question) is not None:
            return line.strip()
        sys.stdout.write(f"  Answer with a letter A–{LETTERS[len(question.options) - 1]} or an option's text "
                         "(empty skips the question).\n")


def cmd_quiz_attempt(args: argparse.Namespace) -> int:
    from cognivault.study.quiz import LETTERS, NotAQuiz, quiz_to_take, take_attempt
    from cognivault.study.terminal import counted

    vault = _vault(args)
    path = _quiz_path(vault, args.note)
    try:
        quiz = quiz_to_take(path.read_text("utf-8"), args.note)
    except NotAQuiz as exc:
        raise UserError(str(exc)) from None
    started = time.monotonic()
    if args.answers is not None:
        answers: list[Any] = [a.strip() for a in args.answers.split(",")]
    else:
        answers = []
        for number, question in enumerate(quiz.questions, start=1):
            sys.stdout.write(f"\n{number}. {question.question}\n")
            for index, option in enumerate(question.options):
                sys.stdout.write(f"   {LETTERS[index]}) {option}\n")
            line = _ask_answer(question)
            if line is None:
                unanswered = len(quiz.questions) - len(answers)
                sys.stdout.write(f"\n(input ended: {counted(unanswered, 'question')} left unanswered, "
                                 "scored as wrong)\n")
                break
            answers.append(line)
    result = take_attempt(_progress_store(vault), path.relative_to(vault).as_posix(), quiz, answers,
                          duration_s=time.monotonic() - started)
    if args.json:
        _print_json(result)
        return 0
    for detail in result["details"]:
        mark = "✓" if detail["ok"] else "✗"
        sys.stdout.write(f"{mark} {detail['number']}: you {detail['given'] or '-'}, answer {detail['correct']}"
                         + ("" if detail["ok"] else f" — {detail['explanation']}") + "\n")
    sys.stdout.write(f"Score: {result['correct']}/{result['total']} ({round(100 * result['score'])}%)\n")
    return 0


# -- export anki ---------------------------------------------------------------------
def cmd_export(args: argparse.Namespace) -> int:
    from cognivault.atomic import atomic_write_text
    from cognivault.study.anki import cloze_path, export_anki
    from cognivault.study.review import ReviewDeck

    vault = _vault(args)
    deck = ReviewDeck(vault)
    files = export_anki(deck, args.deck, [deck.note_path(args.note)] if args.note else None, args.deck_name)
    if not files:
        raise UserError("no flashcards found (notes need a #flashcards tag)")
    if not args.out or args.out == "-":
        if len(files) > 1:
            raise UserError("question and cloze cards need a file each (Anki imports one note type per file): "
                            "give --out FILE")
        sys.stdout.write(files[0].text)
        return 0
    out = Path(args.out).expanduser()
    written: list[dict[str, Any]] = []
    for file in files:
        target = cloze_path(out) if file.notetype == "Cloze" else out
        atomic_write_text(target, file.text)
        written.append({"path": str(target), "notetype": file.notetype, "notes": file.notes})
    if args.json:
        _print_json({"files": written, "notes": sum(f["notes"] for f in written)})
    else:
        for item in written:
            print(f"{item['notes']} {item['notetype']} notes written to {item['path']}")
    return 0


# -- progress ------------------------------------------------------------------------
HEATMAP_SHADES = "·░▒▓█"  # by heat level: a day without study is a dot, so the row stays visible
HEATMAP_LEGEND = "· none  ░ under 10 min  ▒ under 30 min  ▓ under 1 h  █ 1 h or more"
NO_ACTIVITY_YET = ("No study activity yet. Start with `cognivault generate flashcards --note NOTE`, then "
                   "`cognivault review`; asking (`cognivault ask`) and taking quizzes count too.")


def _duration(seconds: float) -> str:
    minutes = int(round(seconds / 60))
    if seconds > 0 and minutes == 0:
        return "under 1 min"
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def cmd_progress(args: argparse.Namespace) -> int:
    from cognivault.study.badges import BadgeBook
    from cognivault.study.terminal import counted

    vault = _vault(args)
    store = _progress_store(vault)
    summary = store.summary(days=args.days)
    badges = BadgeBook(store).evaluate()
    if args.json:
        _print_json({**summary, "badges": badges})
        return 0
    for message in summary["messages"]:
        print(f"note: {message}", file=sys.stderr)
    if not summary["counts"]:
        print(NO_ACTIVITY_YET)
    else:
        print(f"Study time: {_duration(summary['total_seconds'])} in total, "
              f"{_duration(summary['today_seconds'])} today")
        print(f"Streak: {counted(summary['current_streak'], 'day')} now, "
              f"longest {counted(summary['longest_streak'], 'day')}")
        heatmap = summary["heatmap"]
        print(f"Last {counted(len(heatmap), 'day')}: {''.join(HEATMAP_SHADES[cell['level']] for cell in heatmap)}")
        print(f"  {HEATMAP_LEGEND}")
    unlocked = [b for b in badges if b["unlocked"]]
    print(f"Badges: {len(unlocked)}/{len(badges)}")
    for badge in badges:
        print(f"  [{'x' if badge['unlocked'] else ' '}] {badge['name']}: {badge['criterion']}")
    if summary["recent_quizzes"]:
        print("Recent quizzes:")
    for quiz in summary["recent_quizzes"][:5]:
        print(f"  {quiz['title'] or quiz['quiz']}: {quiz['correct']}/{quiz['total']}")
    return 0


# -- registration -----------------------------------------------------------------------
def register(command: Callable[..., argparse.ArgumentParser]) -> None:
    generate = command("generate", cmd_generate, "write flashcards, a quiz, a mind map or a workshop into the "
                                                  "study folder")
    generate.add_argument("kind", choices=KINDS,
                          help="what to write into the vault's study folder")
    generate.add_argument("--note", help="a note (vault path or name) to study")
    generate.add_argument("--scope", action="append", help="folder:X, tag:Y, file:Z, property:k=v (repeatable)")
    generate.add_argument("--topic", help="a free topic (searched in the vault, or within --scope)")
    generate.add_argument("--lines", help="with --note: only lines FIRST-LAST")
    generate.add_argument("--selection", help="with --note: only the passage holding this text")
    generate.add_argument("--count", type=int, help="cards / questions / main branches / lessons")
    generate.add_argument("--deck", help="flashcards: deck name (default: from the title)")
    generate.add_argument("--chat-provider", choices=CHAT_PROVIDER_CHOICES,
                          help="chat provider (default: settings; auto falls back to extractive)")
    generate.add_argument("--model", help="model id for the provider")
    generate.add_argument("--workshop", help="lesson: the workshop outline note (vault path)")
    generate.add_argument("--lesson", type=int, help="lesson: its number")

    review = command("review", cmd_review, "review due flashcards in the terminal (FSRS scheduling)")
    review.add_argument("--deck", help="only this deck (and its sub-decks)")
    review.add_argument("--note", help="only cards of this note (vault path or name)")
    review.add_argument("--limit", type=int, help="at most this many cards")
    review.add_argument("--no-new", action="store_true", help="only cards already reviewed before")
    review.add_argument("--list", action="store_true", help="list due cards instead of reviewing")
    review.add_argument("--card", help="grade this card id without the interactive session")
    review.add_argument("--grade", help="with --card: 1 again, 2 hard, 3 good, 4 easy")

    quiz = command("quiz", cmd_quiz_attempt, "take a generated quiz and record the score")
    quiz.add_argument("note", help="the quiz note (vault path)")
    quiz.add_argument("--answers", help="comma-separated answers (A,B,... or True/False) instead of asking")

    export = command("export", cmd_export, "export flashcards (anki: text files Anki imports)")
    export.description = ("Write the flashcards as tab-separated text files for Anki's File > Import, with "
                          "header lines that preset the separator, HTML off, the note type, the deck and the "
                          "tags. Anki imports one note type per file, so question cards go to --out FILE as "
                          "Basic notes and cloze cards next to it (cards.txt: cards.cloze.txt) as Cloze notes whose "
                          "deletions are {{c1::term}}; import both files.")
    export.add_argument("format", choices=["anki"], help="anki: tab-separated text files Anki imports")
    export.add_argument("--out", help="Basic notes to this file, Cloze notes to <name>.cloze.txt next to it "
                                      "(default: standard output, when the cards are all of one kind)")
    export.add_argument("--deck", help="only this deck")
    export.add_argument("--note", help="only this note (vault path or name)")
    export.add_argument("--deck-name", help="Anki deck name (default: CogniVault::<deck>)")

    progress = command("progress", cmd_progress, "study time, streaks, heatmap and badges")
    progress.add_argument("--days", type=int, default=90, help="heatmap length in days (default 90)")
