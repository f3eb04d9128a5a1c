"""CLI commands of the answer feature: ``ask``, ``eval-answers``, ``transcribe``.

``cognivault ask --vault V "question" [--ndjson]`` prints the NDJSON stream,
or (default) the answer as it streams followed by its confidence and
numbered sources. Without a configured chat provider, Ollama is used when it
answers on loopback, else the offline extractive answerer (a note on stderr
says which and why).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cognivault.models.providers import CHAT_PROVIDER_CHOICES

INPUT_ERRORS = {"empty_question", "question_too_long", "invalid_question", "invalid_request", "invalid_turn",
                "invalid_session", "too_many_attachments", "attachment_too_large", "attachment_type",
                "attachment_empty", "attachment_unreadable", "invalid_scope", "invalid_attachment",
                "model_host_refused"}


def register(command: Callable[..., argparse.ArgumentParser]) -> None:
    ask = command("ask", cmd_ask, "answer a question from the vault with cited sources")
    ask.add_argument("question", help="the question, in any language the vault is written in")
    ask.add_argument("--scope", action="append", help="folder:X, tag:Y, file:Z, property:key=value (repeatable)")
    ask.add_argument("--ndjson", action="store_true", help="print the stream of envelopes, one JSON per line")
    ask.add_argument("--session", help="continue a conversation (stored under <vault>/.cognivault/sessions)")
    ask.add_argument("--new-topic", action="store_true", help="do not treat the question as a follow-up")
    ask.add_argument("--truncate-to", type=int, help="with --session: keep only this many earlier turns")
    ask.add_argument("--chat-provider", choices=CHAT_PROVIDER_CHOICES, help="chat model provider (default: settings)")
    ask.add_argument("--model", help="chat model (Ollama name, or a GGUF file for llamacpp)")
    ask.add_argument("--attach", action="append", default=[], metavar="FILE",
                     help="a file to answer from as well (text, PDF, DOCX, image...; repeatable)")
    thinking = ask.add_mutually_exclusive_group()
    thinking.add_argument("--think", dest="think", action="store_true", default=None,
                          help="let the model plan first (default: when the model can)")
    thinking.add_argument("--no-think", dest="think", action="store_false", help="answer without planning")
    ask.add_argument("--no-tools", action="store_true", help="do not offer tools to the model")
    ask.add_argument("--no-cache", action="store_true", help="answer afresh even if this question was answered")
    ask.add_argument("--sources", type=int, default=6, help="passages in the evidence pack (1-12, default 6)")
    ask.add_argument("--keywords-only", action="store_true",
                     help="retrieve by keywords only (no embedding model is loaded: faster start)")

    evaluation = command("eval-answers", cmd_eval_answers,
                         "measure answers: facts stated (nuggets), citations, refusals, reliability of labels")
    evaluation.add_argument("--questions", required=True, help="JSONL: id, lang, question, relevant (note paths)")
    evaluation.add_argument("--nuggets", help="JSONL: id, nuggets (the facts a correct answer states)")
    evaluation.add_argument("--unanswerable", help="JSONL: questions the vault cannot answer")
    # dest differs from the shared --provider (the embedding provider of index/search)
    evaluation.add_argument("--provider", "--chat-provider", dest="chat_provider", choices=CHAT_PROVIDER_CHOICES,
                            default="extractive", help="chat provider to evaluate (default: extractive)")
    evaluation.add_argument("--model", help="chat model (Ollama name, or a GGUF file for llamacpp)")
    evaluation.add_argument("--limit", type=int, help="only the first N questions of each file")
    evaluation.add_argument("--per-question", action="store_true", help="also report every question's answer")
    evaluation.add_argument("--no-index", action="store_true", help="do not update the index first")
    evaluation.add_argument("--keywords-only", action="store_true", help="retrieve by keywords only")

    transcribe = command("transcribe", cmd_transcribe, "speech to text with faster-whisper (local model folder)")
    transcribe.add_argument("file", help="an audio file (wav, mp3, ogg, m4a, flac, webm...)")


# -- ask ------------------------------------------------------------------------------------------


def _render_source(number: int, source: dict[str, Any]) -> str:
    where = source["path"]
    if source.get("locator"):
        where += f" ({source['locator']})"
    elif source.get("line_start"):
        where += f":{source['line_start']}-{source['line_end']}"
    crumb = " > ".join(source.get("heading_path") or [])
    kind = "" if source.get("source") in (None, "vault", "tool") else f" [{source['source']}]"
    return f"  {number}. [{source['label']}] {where}" + (f"  ({crumb})" if crumb else "") + kind


async def _ask(args: argparse.Namespace, engine: Any) -> int:
    from cognivault.answer.pipeline import stream_answer
    from cognivault.answer.request import AskError, AskRequest, Attachment
    from cognivault.answer.sessions import SessionStore
    from cognivault.cli import UserError
    from cognivault.index.scope import Scope
    from cognivault.models.chat import ChatError, resolve_chat_provider
    from cognivault.study.activity import record_answer

    try:
        attachments = [Attachment.from_path(Path(p).expanduser()) for p in args.attach]  # noqa: ASYNC240 - CLI's own loop
    except AskError as exc:
        raise UserError(exc.message) from exc
    request = AskRequest(args.question, scope=Scope.parse(args.scope) if args.scope else None, session_id=args.session,
                         attachments=attachments, think=args.think, tools=not args.no_tools,
                         truncate_to=args.truncate_to, new_topic=args.new_topic, use_cache=not args.no_cache,
                         max_sources=args.sources)
    try:
        provider, note = await resolve_chat_provider(engine.settings, args.chat_provider, args.model,
                                                     embedder=engine.embedder)
    except ChatError as exc:
        raise UserError(exc.message) from exc
    if note and not args.ndjson and not args.json:
        print(f"note: {note}", file=sys.stderr)
    sessions = SessionStore.for_vault(engine.vault) if args.session else SessionStore(None)
    tty = sys.stdout.isatty()
    last: dict[str, Any] = {}
    confidence: dict[str, Any] = {}
    streamed = False
    try:
        async for envelope in stream_answer(engine, request, provider, sessions):
            kind, data = envelope["type"], envelope["data"]
            if args.ndjson:
                sys.stdout.write(json.dumps(envelope, ensure_ascii=False) + "\n")
                sys.stdout.flush()
            elif not args.json:
                if kind == "text":
                    streamed = True
                    sys.stdout.write(data["text"])
                    sys.stdout.flush()
                elif kind == "thinking" and args.verbose:
                    sys.stderr.write(("\x1b[2m" if sys.stderr.isatty() else "") + data["text"] +
                                     ("\x1b[0m" if sys.stderr.isatty() else ""))
            if kind == "confidence":
                confidence = data
            if kind in ("done", "error"):
                last = envelope
    finally:
        await provider.aclose()
    if not last:
        raise UserError("the answer stream ended without a result")
    if last["type"] == "error":
        code, message = last["data"]["code"], last["data"]["message"]
        if args.json:
            json.dump({"error": last["data"]}, sys.stdout, ensure_ascii=False, indent=2)
            sys.stdout.write("\n")
        elif not args.ndjson:
            print(f"{chr(10) if streamed else ''}cognivault: {message}", file=sys.stderr)
        return 2 if code in INPUT_ERRORS else 1
    done = last["data"]
    await asyncio.to_thread(record_answer, engine.vault, "cli", done)
    if args.json:
        json.dump({**done, "confidence_detail": confidence}, sys.stdout, ensure_ascii=False, indent=2,
                  default=str)
        sys.stdout.write("\n")
    elif not args.ndjson:
        bold, plain = ("\x1b[1m", "\x1b[0m") if tty else ("", "")
        print(f"\n\n{bold}Confidence:{plain} {confidence.get('label', done['confidence'])}"
              + (f" ({confidence['reason']})" if confidence.get("reason") else ""))
        if done["sources"]:
            print(f"{bold}Sources:{plain}")
            for number, source in enumerate(done["sources"], start=1):
                print(_render_source(number, source))
        for note_text in done.get("notes", []):
            print(f"note: {note_text}", file=sys.stderr)
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    from cognivault.cli import vault_folder
    from cognivault.engine import open_engine

    with open_engine(vault_folder(args.vault), writable=False,
                     embedder=None if args.keywords_only else "auto") as engine:
        try:
            return asyncio.run(_ask(args, engine))
        except KeyboardInterrupt:
            print("\ninterrupted", file=sys.stderr)
            return 130


# -- eval-answers -----------------------------------------------------------------------------------


def cmd_eval_answers(args: argparse.Namespace) -> int:
    from cognivault.answer.evaluation import AnswerQuestionError, evaluate_answers, load_jsonl, load_nuggets
    from cognivault.cli import UserError, _print_json, vault_folder
    from cognivault.engine import open_engine
    from cognivault.models.chat import ChatError, resolve_chat_provider

    try:
        questions = load_jsonl(Path(args.questions))
        unanswerable = load_jsonl(Path(args.unanswerable)) if args.unanswerable else []
        nuggets = load_nuggets(Path(args.nuggets)) if args.nuggets else None
    except (OSError, AnswerQuestionError) as exc:
        raise UserError(f"cannot read questions: {exc}") from exc
    if args.limit is not None:
        questions, unanswerable = questions[: args.limit], unanswerable[: args.limit]
    with open_engine(vault_folder(args.vault), writable=not args.no_index,
                     embedder=None if args.keywords_only else "auto") as engine:
        if not args.no_index:
            engine.index()

        async def run() -> dict[str, Any]:
            provider, note = await resolve_chat_provider(engine.settings, args.chat_provider, args.model,
                                                         embedder=engine.embedder)
            try:
                report = await evaluate_answers(engine, provider, questions, unanswerable, args.per_question,
                                                nuggets)
            finally:
                await provider.aclose()
            if note:
                report["note"] = note
            return report

        try:
            report = asyncio.run(run())
        except ChatError as exc:
            raise UserError(exc.message) from exc
    if args.json:
        _print_json(report)
        return 0
    print(f"provider {report['provider']} ({report['model']}), p50 {report['latency_ms']['p50']} ms, "
          f"p95 {report['latency_ms']['p95']} ms")
    if "answerable" in report:
        a = report["answerable"]
        print(f"answerable ({a['questions']}): cited {a['cited_share']:.1%}, relevant note cited "
              f"{a['relevant_cited_share']:.1%}, cited-note precision {a['cited_note_precision']:.1%}, "
              f"citation acceptance {a['citation_acceptance']:.1%}, confidence {a['confidence']}, "
              f"errors {a['errors']}")
    if "nuggets" in report:
        print(_nugget_lines(report["nuggets"]))
    if "unanswerable" in report:
        u = report["unanswerable"]
        print(f"unanswerable ({u['questions']}): honest {u['honest_share']:.1%} {u['honest_by_kind']}, "
              f"confidence {u['confidence']}, errors {u['errors']}")
    return 0


def _nugget_lines(nuggets: dict[str, Any]) -> str:
    """The nugget metrics and the reliability table as text for people."""
    lines = []
    for name, part in [("all", nuggets["overall"]), *nuggets["by_lang"].items()]:
        if not part.get("questions"):
            continue
        lines.append(f"nuggets {name} ({part['questions']}): all stated {part['all_nuggets_share']:.1%}, "
                     f"recall {part['nugget_recall']:.3f}, false refusals {part['false_refusals']}, "
                     f"mean answer {part['mean_answer_chars']:.0f} chars")
    lines.append("reliability (label -> answers, share with all nuggets):")
    for label, row in nuggets["reliability"].items():
        share = "-" if row["all_nuggets_share"] is None else f"{row['all_nuggets_share']:.1%}"
        lines.append(f"  {label:6} {row['answers']:3}  {share}")
    return "\n".join(lines)


# -- transcribe ----------------------------------------------------------------------------------------


def cmd_transcribe(args: argparse.Namespace) -> int:
    from cognivault.answer.voice import TranscribeError, transcribe_file
    from cognivault.cli import UserError, _print_json
    from cognivault.config import ConfigError, load_settings

    path = Path(args.file).expanduser()
    if not path.is_file():
        raise UserError(f"file not found: {path}")
    vault = Path(args.vault).expanduser()
    try:
        settings = load_settings(vault if vault.is_dir() else Path("/nonexistent"))
    except ConfigError as exc:
        raise UserError(str(exc)) from exc
    try:
        transcript = transcribe_file(path, settings.index)
    except TranscribeError as exc:
        raise UserError(exc.message) from exc
    if args.json:
        _print_json({"file": str(path), **transcript.to_dict()})
    else:
        print(transcript.text)
    return 0
