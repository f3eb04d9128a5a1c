"""Columns between the index (code points) and the client (the negotiated position encoding).

The index stores 0-based columns in Unicode code points and 1-based lines
(see ``cognivault.vault.types``). LSP positions are 0-based lines and columns
counted in the unit the client and server agreed on at ``initialize``: UTF-16
code units unless the client offered ``utf-8`` or ``utf-32``. An umlaut is one
unit in UTF-16 and UTF-32 but two bytes in UTF-8; an emoji is two UTF-16 units
and four UTF-8 bytes; a CJK character is one UTF-16 unit and three UTF-8 bytes.

Every conversion in the language server goes through :class:`Codec`; nothing
else counts columns.
"""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types

UTF8 = "utf-8"
UTF16 = "utf-16"
UTF32 = "utf-32"


@dataclass(frozen=True, slots=True)
class Codec:
    """Converts columns of one line between code points and client units."""

    encoding: str = UTF16

    @classmethod
    def of(cls, encoding: object) -> Codec:
        value = getattr(encoding, "value", encoding)
        value = str(value or UTF16).lower()
        return cls(value if value in (UTF8, UTF16, UTF32) else UTF16)

    def to_client(self, line: str, column: int) -> int:
        """Code-point ``column`` of ``line`` in client units (clamped to the line)."""
        column = max(0, min(column, len(line)))
        if self.encoding == UTF32 or line.isascii():
            return column
        prefix = line[:column]
        if self.encoding == UTF8:
            return len(prefix.encode("utf-8", errors="surrogatepass"))
        return len(prefix.encode("utf-16-le", errors="surrogatepass")) // 2

    def from_client(self, line: str, column: int) -> int:
        """Client-unit ``column`` of ``line`` as a code-point offset (inside a character: its start)."""
        column = max(0, column)
        if self.encoding == UTF32 or line.isascii():
            return min(column, len(line))
        if self.encoding == UTF8:
            head = line.encode("utf-8", errors="surrogatepass")[:column]
            return len(head.decode("utf-8", errors="ignore"))  # a cut character is dropped: its start
        head = line.encode("utf-16-le", errors="surrogatepass")[:2 * column]
        return len(head.decode("utf-16-le", errors="ignore"))

    # -- helpers over a list of lines ---------------------------------------
    def position(self, lines: list[str], line: int, column: int) -> types.Position:
        """A 0-based ``line`` and code-point ``column`` as an LSP position."""
        text = lines[line] if 0 <= line < len(lines) else ""
        return types.Position(line=max(0, line), character=self.to_client(text, column))

    def range(self, lines: list[str], line: int, start: int, end: int,
              end_line: int | None = None) -> types.Range:
        """A range from (``line``, ``start``) to (``end_line`` or ``line``, ``end``), code points."""
        return types.Range(start=self.position(lines, line, start),
                           end=self.position(lines, line if end_line is None else end_line, end))

    def line_range(self, lines: list[str], line: int, end_line: int | None = None) -> types.Range:
        """Whole lines ``line`` .. ``end_line`` (0-based, inclusive), up to the end of the last one."""
        last = line if end_line is None else end_line
        text = lines[last] if 0 <= last < len(lines) else ""
        return types.Range(start=types.Position(line=max(0, line), character=0),
                           end=types.Position(line=max(0, last), character=self.to_client(text, len(text))))

    def offset(self, lines: list[str], position: types.Position) -> tuple[int, int]:
        """An LSP position as (0-based line, code-point column)."""
        text = lines[position.line] if 0 <= position.line < len(lines) else ""
        return position.line, self.from_client(text, position.character)


def split_lines(text: str) -> list[str]:
    """Lines without their terminators (``\\r\\n``, ``\\n`` or ``\\r``), as editors count them.

    A byte-order mark is dropped, as editors and the Markdown parser drop it, so that columns on
    the first line agree with the parser's.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
