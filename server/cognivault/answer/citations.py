"""Checking what the model cites and links, while it streams.

Only labels of this request's evidence pack survive; unknown labels and
repeats (the same label twice in one group, or right after itself) are
removed and logged. Accepted groups are written uniformly as ``[S1][S3]``.
The model never gets a link or path to the user unchecked: a wikilink
stays only when it names a note in the pack (else its text stays), a
Markdown link keeps its target only when that target is a pack note or a URL
quoted in the pack, a bare URL not found in the pack is replaced, and a file
path in the prose that is neither a source of this answer nor quoted in one
is shown as a plain name (``notes/Secret plan.md`` -> ``Secret plan``).

:class:`CitationFilter` is fed text as it streams and returns events:
``("metadata", label)`` the first time a label is accepted (so the client
learns about a source before the text that cites it) and ``("text", str)``.
Text that might still become a citation or link is held back until it is
complete (at most ``HOLD_LIMIT`` characters). :meth:`CitationFilter.quote`
takes vault text quoted verbatim by the passage answerer: it is the user's
own Markdown, not model output, so its links and code stay as written.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from cognivault.vault.extractors import ATTACHMENT_EXTENSIONS
from cognivault.vault.markdown import MAX_WIKILINK_CHARS, WIKILINK_RE

log = logging.getLogger(__name__)

HOLD_LIMIT = 1200
LINK_REMOVED = "(link removed)"

_CITE = re.compile(r"[\[(]\s*([Ss]\d{1,3}(?:\s*[,;]\s*[Ss]?\d{1,3})*)\s*[\])]")
_CITE_PARTIAL = re.compile(r"[\[(]\s*(?:[Ss](?:\d{1,3}(?:\s*[,;]\s*(?:[Ss]?\d{0,3})?)*)?)?\s*")
_WIKI_PARTIAL = re.compile(rf"\[(?:\[[^\[\]\n]{{0,{MAX_WIKILINK_CHARS}}}\]?)?")
_DESTINATION = r"(?:[^()\s]|\([^()\s]{0,200}\)){0,1000}"
_MDLINK = re.compile(r"\[([^\[\]\n]{0,300})\]\(\s*(" + _DESTINATION + r")(?:\s+\"[^\"\n]{0,200}\")?\s*\)")
# Anything else that a Markdown renderer could still read as a link: its target is never kept.
_MDLINK_LOOSE = re.compile(r"\[([^\[\]\n]{0,300})\]\(([^\n]{0,1000}?)\)")
_MDLINK_PARTIAL = re.compile(r"\[[^\[\]\n]{0,300}(?:\](?:\([^\n]{0,1000})?)?")
_TARGET = re.compile(r"\((?:[^()\n]|\([^()\n]{0,200}\)){0,1000}\)")
_TARGET_PARTIAL = re.compile(r"\([^\n]{0,1000}")
_URL = re.compile(r"(?:(?:https?|ftp|file)://|www\.)[^\s<>()\[\]\"'`]+", re.IGNORECASE)
_SPECIAL = re.compile(r"[\[(]|(?<![\w/@.])(?:(?:https?|ftp|file)://|www\.)", re.IGNORECASE)
_SCHEMES = ("https://", "http://", "ftp://", "file://", "www.")
_LABEL_NUMBER = re.compile(r"\d{1,3}")


# A vault file's path: notes, Obsidian's canvases and bases, plain files, and every attachment read
_FILE_SUFFIXES = sorted({"md", "markdown", "canvas", "base", "svg", "txt", *(s[1:] for s in ATTACHMENT_EXTENSIONS)})
_PATH = re.compile(r"(?<![\w/.~-])(?:[~\w.-]*/)*[\w.-]*\w\.(?:" + "|".join(_FILE_SUFFIXES) + r")(?![\w/])",
                   re.IGNORECASE)
_WORD_TAIL_LIMIT = 300


def _word_tail(buf: str) -> int:
    """Where the last (maybe unfinished) word of ``buf`` starts; ``len(buf)`` when it ends in a space."""
    cut = max(buf.rfind(" "), buf.rfind("\n"), buf.rfind("\t")) + 1
    return cut if len(buf) - cut <= _WORD_TAIL_LIMIT else len(buf)


def _tail_url_prefix(buf: str) -> int | None:
    """Index where ``buf`` ends with the start of a URL scheme (``ht``, ``https:/``...), else None."""
    for size in range(min(len(buf), 8), 0, -1):
        tail = buf[-size:].lower()
        start = len(buf) - size
        if start > 0 and (buf[start - 1].isalnum() or buf[start - 1] == "/"):
            continue
        if any(scheme.startswith(tail) for scheme in _SCHEMES) and tail[0] in "hfw":
            return start
    return None


@dataclass(slots=True)
class CitationReport:
    accepted: list[str] = field(default_factory=list)  # labels in order of first use
    claimed: int = 0  # label occurrences the model wrote, kept or not
    kept: int = 0  # label occurrences that passed the check
    dropped: list[dict[str, str]] = field(default_factory=list)  # {"label", "reason"}
    links_removed: int = 0


class CitationFilter:
    """Streaming check of citations and links against one request's pack.

    ``lookup(label)`` returns something truthy for a label of the pack;
    ``note_for_link(target)`` returns the pack note a wikilink/path names (or None);
    ``url_in_pack(text)`` tells whether a URL or path is quoted verbatim in the pack's passages.
    """

    def __init__(self, lookup: Callable[[str], object | None],
                 note_for_link: Callable[[str], str | None] | None = None,
                 url_in_pack: Callable[[str], bool] | None = None) -> None:
        self.lookup = lookup
        self.note_for_link = note_for_link or (lambda target: None)
        self.url_in_pack = url_in_pack or (lambda url: False)
        self.report = CitationReport()
        self._buf = ""
        self._last_group: set[str] = set()
        self._since_group = ""
        self._text: list[str] = []

    @property
    def text(self) -> str:
        """Everything emitted so far."""
        return "".join(self._text)

    # -- public -------------------------------------------------------------
    def feed(self, piece: str) -> list[tuple[str, str]]:
        self._buf += piece
        return self._drain(final=False)

    def flush(self) -> list[tuple[str, str]]:
        return self._drain(final=True)

    def quote(self, text: str) -> list[tuple[str, str]]:
        """Vault Markdown quoted verbatim: emitted as written, never read for citations or links."""
        events = self._drain(final=True)
        self._emit(events, text)
        return events

    # -- internals ----------------------------------------------------------
    def _emit(self, events: list[tuple[str, str]], text: str) -> None:
        if not text:
            return
        self._text.append(text)
        self._since_group += text
        if len(self._since_group) > 64:
            self._since_group = self._since_group[-64:]
        if events and events[-1][0] == "text":
            events[-1] = ("text", events[-1][1] + text)
        else:
            events.append(("text", text))

    def _emit_plain(self, events: list[tuple[str, str]], text: str) -> None:
        """Model prose: file paths in it stay only when they name a source of this answer."""
        self._emit(events, _PATH.sub(self._path, text) if "." in text else text)

    def _path(self, match: re.Match[str]) -> str:
        candidate = match.group(0)
        if self.note_for_link(candidate) is not None or self.url_in_pack(candidate):
            return candidate  # a source of this answer, or quoted verbatim in one
        self.report.links_removed += 1
        log.info("path %r shown as a name: not a source of this answer", candidate[:120])
        return candidate.rsplit("/", 1)[-1].rsplit(".", 1)[0]

    def _drain(self, final: bool) -> list[tuple[str, str]]:
        events: list[tuple[str, str]] = []
        buf = self._buf
        while buf:
            match = _SPECIAL.search(buf)
            hold_from = None if final else _tail_url_prefix(buf)
            if hold_from is None and not final and buf.endswith("!"):
                hold_from = len(buf) - 1  # may start an image embed ``![alt](...)``
            if match is None:
                # The last word may still grow into a path ("notes/a" + ".md"): hold it back.
                cut = len(buf) if final else min(_word_tail(buf), len(buf) if hold_from is None else hold_from)
                self._emit_plain(events, buf[:cut])
                buf = buf[cut:]
                break
            start = match.start()
            if start > 0 and buf[start] == "[" and buf[start - 1] == "!":
                start -= 1
            if hold_from is not None and hold_from < start:
                cut = min(_word_tail(buf), hold_from)
                self._emit_plain(events, buf[:cut])
                buf = buf[cut:]
                break
            self._emit_plain(events, buf[:start])
            buf = buf[start:]
            consumed = self._construct(buf, final, events)
            if consumed is None:  # may still become a citation or link: wait for more text
                break
            buf = buf[consumed:]
        self._buf = buf
        return events

    def _construct(self, buf: str, final: bool, events: list[tuple[str, str]]) -> int | None:
        """Handle the construct at the start of ``buf``; characters consumed, or None to wait."""
        head = buf[0]
        if head == "!":
            image = _MDLINK.match(buf, 1)
            if image:  # images are never shown from model output: only their description
                self.report.links_removed += 1
                self._emit(events, image.group(1))
                return image.end()
            if not final and len(buf) < HOLD_LIMIT and (len(buf) == 1 or self._partial(buf[1:])):
                return None
            self._emit(events, head)
            return 1
        if head == "(" and self._text and self._text[-1].endswith("]"):
            # "(...)" right after "]" would turn the text before into a link: check it as a link target.
            target = _TARGET.match(buf)
            if target:
                self._link_target(target.group(0)[1:-1], events)
                return target.end()
            if not final and len(buf) < HOLD_LIMIT and _TARGET_PARTIAL.fullmatch(buf):
                return None
        if head in "[(":
            match = _CITE.match(buf)
            if match and (head == "[" or buf[match.end() - 1] == ")") and \
                    (head == "(" or buf[match.end() - 1] == "]"):
                self._citation_group(match.group(1), events)
                return match.end()
            if head == "[":
                wiki = WIKILINK_RE.match(buf)
                if wiki:
                    self._wikilink(wiki["inside"], events)
                    return wiki.end()
                link = _MDLINK.match(buf)
                if link:
                    self._mdlink(link.group(1), link.group(2), events)
                    return link.end()
                loose = _MDLINK_LOOSE.match(buf)
                if loose and (final or not self._partial(buf) or "\n" in buf[: loose.end() + 1]):
                    self._mdlink(loose.group(1), "\x00", events)
                    return loose.end()
            if not final and len(buf) < HOLD_LIMIT and self._partial(buf):
                return None
            self._emit(events, head)
            return 1
        url = _URL.match(buf)
        if url:
            if url.end() == len(buf) and not final:
                return None  # the URL may continue in the next piece
            self._url(url.group(0), events)
            return url.end()
        if not final and len(buf) < 16:
            return None
        self._emit(events, buf[0])
        return 1

    @staticmethod
    def _partial(buf: str) -> bool:
        for pattern in (_CITE_PARTIAL, _WIKI_PARTIAL, _MDLINK_PARTIAL):
            match = pattern.match(buf)
            if match and match.end() == len(buf):
                return True
        return False

    def _citation_group(self, body: str, events: list[tuple[str, str]]) -> None:
        labels = [f"S{int(n)}" for n in _LABEL_NUMBER.findall(body)]
        adjacent = not self._since_group.strip(" \t")
        kept: list[str] = []
        for label in labels:
            self.report.claimed += 1
            if self.lookup(label) is None:
                self.report.dropped.append({"label": label, "reason": "not in this answer's sources"})
                log.info("citation %s dropped: not in the evidence pack", label)
                continue
            if label in kept or (adjacent and label in self._last_group):
                self.report.dropped.append({"label": label, "reason": "duplicate"})
                log.info("citation %s dropped: duplicate", label)
                continue
            kept.append(label)
        self.report.kept += len(kept)
        if not kept:
            return
        for label in kept:
            if label not in self.report.accepted:
                self.report.accepted.append(label)
                events.append(("metadata", label))
        self._last_group = set(kept) | (self._last_group if adjacent else set())
        self._emit(events, "".join(f"[{label}]" for label in kept))
        self._since_group = ""

    def _wikilink(self, inner: str, events: list[tuple[str, str]]) -> None:
        target, _, alias = inner.partition("|")
        note = self.note_for_link(target.split("#")[0].strip())
        if note is not None:
            self._emit(events, f"[[{inner}]]")
            return
        self.report.links_removed += 1
        log.info("wikilink [[%s]] shown as text: not a note of this answer's sources", inner)
        self._emit_plain(events, (alias or target).strip())

    def _mdlink(self, text: str, target: str, events: list[tuple[str, str]]) -> None:
        allowed = False
        if "\x00" in target:
            pass
        elif _URL.fullmatch(target):
            allowed = self.url_in_pack(target)
        elif target and not target.startswith(("javascript:", "data:", "vbscript:")):
            from urllib.parse import unquote

            allowed = self.note_for_link(unquote(target).split("#")[0]) is not None
        if allowed:
            self._emit(events, f"[{text}]({target})")
            return
        self.report.links_removed += 1
        log.info("link target %r removed: not found in this answer's sources", target[:120])
        self._emit_plain(events, text if text.strip() else LINK_REMOVED)

    def _link_target(self, target: str, events: list[tuple[str, str]]) -> None:
        target = target.strip()
        if _URL.fullmatch(target) and self.url_in_pack(target):
            self._emit(events, f"({target})")
            return
        self.report.links_removed += 1
        log.info("link target %r removed after a bracket", target[:120])
        self._emit(events, " ")

    def _url(self, url: str, events: list[tuple[str, str]]) -> None:
        trailing = ""
        while url and url[-1] in ".,;:!?":
            trailing = url[-1] + trailing
            url = url[:-1]
        if self.url_in_pack(url):
            self._emit(events, url + trailing)
            return
        self.report.links_removed += 1
        log.info("URL %r removed: not found in this answer's sources", url[:120])
        self._emit(events, LINK_REMOVED + trailing)
