"""Spreadsheets (XLSX) and CSV: the header row plus batches of 20 rows per chunk.

A chunk reads::

    [Sheet: Rates]                                  (XLSX only)
    Plant | Light (µmol/m²/s) | Rate
    Plant: Spinach | Light (µmol/m²/s): 200 | Rate: 12.5
    ...

The header line keeps the columns in view; each row repeats the column names
for its non-empty cells so a row found alone still says what its values mean.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from cognivault.config import IndexSettings
from cognivault.vault.types import ChunkDraft, Extraction, ExtractionFailed

from ._common import (
    MAX_TEXT_CHARS,
    Deadline,
    clip_cell,
    decode_text,
    guard_office_zip,
    looks_binary,
    read_bytes,
)

ROWS_PER_CHUNK = 20
MAX_COLUMNS = 200
MAX_SHEETS = 200


def format_value(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.10g}"
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0, 0):
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="seconds" if value.second else "minutes")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return clip_cell(str(value))


def _names(header: Sequence[str], width: int) -> list[str]:
    return [(header[i] if i < len(header) and header[i] else f"Column {i + 1}") for i in range(width)]


def format_row(header: Sequence[str], row: Sequence[str]) -> str:
    names = _names(header, len(row))
    return " | ".join(f"{names[i]}: {value}" for i, value in enumerate(row) if value)


def _trim(row: list[str]) -> list[str]:
    row = row[:MAX_COLUMNS]
    while row and not row[-1]:
        row.pop()
    return row


class _Batcher:
    """Turns (row number, line range, cells) into header + 20-row chunks."""

    def __init__(self, prefix: str, heading_path: tuple[str, ...], locator_prefix: str,
                 anchor_prefix: str) -> None:
        self.prefix = prefix
        self.heading_path = heading_path
        self.locator_prefix = locator_prefix
        self.anchor_prefix = anchor_prefix
        self.header: list[str] | None = None
        self.header_row = 0
        self.header_lines = (0, 0)
        self.batch: list[tuple[int, int, int, str]] = []
        self.chunks: list[ChunkDraft] = []
        self.chars = 0
        self.data_rows = 0

    def _head(self) -> str:
        lines = [self.prefix] if self.prefix else []
        if self.header is not None:
            lines.append(" | ".join(_names(self.header, len(self.header))))
        return "\n".join(lines)

    def add(self, number: int, cells: list[str], lines: tuple[int, int] = (0, 0)) -> None:
        if self.header is None:
            self.header, self.header_row, self.header_lines = cells, number, lines
            return
        text = format_row(self.header, cells)
        if not text:
            return
        self.batch.append((number, lines[0], lines[1], text))
        self.data_rows += 1
        self.chars += len(text)
        if len(self.batch) >= ROWS_PER_CHUNK:
            self.flush()

    def flush(self) -> None:
        if self.batch:
            first, last = self.batch[0][0], self.batch[-1][0]
            body = "\n".join(text for *_, text in self.batch)
            line_start, line_end = self.batch[0][1], self.batch[-1][2]
            rows = f"rows {first}-{last}" if first != last else f"row {first}"
            self.batch = []
        elif self.header is not None and not self.chunks:  # a table that is only a header
            body, rows = "", f"row {self.header_row}"
            line_start, line_end = self.header_lines
        else:
            return
        part = len(self.chunks)
        text = self._head() + ("\n" + body if body else "")
        locator = f"{self.locator_prefix} {rows}".strip()
        self.chunks.append(ChunkDraft(text=text, heading_path=self.heading_path,
                                      line_start=line_start, line_end=line_end,
                                      anchor=f"{self.anchor_prefix}{part}", locator=locator,
                                      structured=True))


# --- XLSX --------------------------------------------------------------------------------------


def extract_xlsx(path: Path, settings: IndexSettings, deadline: Deadline) -> Extraction:
    guard_office_zip(path, "XLSX")
    try:
        import openpyxl
    except ImportError as exc:  # pragma: no cover - core dependency
        raise ExtractionFailed(f"openpyxl is not installed ({exc})") from exc
    try:
        workbook = openpyxl.load_workbook(str(path), read_only=True, data_only=True, keep_links=False)
    except Exception as exc:  # noqa: BLE001 - openpyxl raises KeyError, InvalidFileException, lxml errors...
        raise ExtractionFailed(f"not a readable XLSX file ({type(exc).__name__}: {exc})") from exc
    chunks: list[ChunkDraft] = []
    metadata: dict[str, Any] = {"format": "xlsx", "sheets": []}
    total = 0
    try:
        sheets = workbook.worksheets
        if len(sheets) > MAX_SHEETS:
            raise ExtractionFailed(f"workbook has {len(sheets)} sheets, over the limit of {MAX_SHEETS}")
        for sheet in sheets:
            name = str(sheet.title)
            batcher = _Batcher(f"[Sheet: {name}]", (name,), name, f"{name}/")
            if hasattr(sheet, "reset_dimensions"):
                # A hostile <dimension ref="A1:XFD1048576"> would pad every row to 16,384 cells.
                sheet.reset_dimensions()
            try:
                for number, row in enumerate(sheet.iter_rows(values_only=True), 1):
                    if number % 500 == 0:
                        deadline.check(f"sheet {name!r} row {number}")
                    cells = _trim([format_value(value) for value in row[:MAX_COLUMNS]])
                    if not cells:
                        continue
                    batcher.add(number, cells)
                    if total + batcher.chars > MAX_TEXT_CHARS:
                        metadata["truncated"] = True
                        break
            except ExtractionFailed:
                raise
            except Exception as exc:  # noqa: BLE001
                raise ExtractionFailed(f"sheet {name!r} cannot be read ({type(exc).__name__}: {exc})") from exc
            batcher.flush()
            total += batcher.chars
            chunks.extend(batcher.chunks)
            metadata["sheets"].append({"name": name, "rows": batcher.data_rows})
            if metadata.get("truncated"):
                break
    finally:
        workbook.close()
    return Extraction(chunks=chunks, metadata=metadata)


# --- CSV ---------------------------------------------------------------------------------------

_DELIMITERS = ",;\t|"


def _dialect(text: str) -> type[csv.Dialect] | csv.Dialect:
    sample = text[:32_768]
    try:
        return csv.Sniffer().sniff(sample, delimiters=_DELIMITERS)
    except csv.Error:
        first = sample.split("\n", 1)[0]
        delimiter = max(_DELIMITERS, key=first.count)

        class Guessed(csv.excel):
            pass

        Guessed.delimiter = delimiter if first.count(delimiter) else ","
        return Guessed


def _records(reader: Iterable[list[str]],
             line_num: Callable[[], int]) -> Iterator[tuple[int, int, int, list[str]]]:
    previous = 0
    for number, row in enumerate(reader, 1):
        current = line_num()
        yield number, previous + 1, current, row
        previous = current


def extract_csv(path: Path, settings: IndexSettings, deadline: Deadline) -> Extraction:
    data = read_bytes(path)
    if looks_binary(data):
        raise ExtractionFailed("not a text CSV file (binary content)")
    text, encoding = decode_text(data)
    skip_first_line = False
    first_line = text.split("\n", 1)[0].strip()
    if first_line.lower().startswith("sep=") and len(first_line) == 5:  # Excel's delimiter hint
        class Hinted(csv.excel):
            pass

        Hinted.delimiter = first_line[4]
        dialect: type[csv.Dialect] | csv.Dialect = Hinted
        skip_first_line = True
    elif path.suffix.lower() == ".tsv":
        dialect = csv.excel_tab
    else:
        dialect = _dialect(text)
    stream = io.StringIO(text, newline="")
    if skip_first_line:
        stream.readline()
    reader = csv.reader(stream, dialect)
    batcher = _Batcher("", (), "", "rows/")
    metadata: dict[str, Any] = {"format": "csv", "encoding": encoding, "delimiter": getattr(dialect, "delimiter", ",")}
    offset = 1 if skip_first_line else 0
    try:
        for number, start, end, row in _records(reader, lambda: reader.line_num):
            if number % 1000 == 0:
                deadline.check(f"row {number}")
            cells = _trim([clip_cell(cell) for cell in row])
            if not cells:
                continue
            batcher.add(number, cells, (start + offset, end + offset))
            if batcher.chars > MAX_TEXT_CHARS:
                metadata["truncated"] = True
                break
    except csv.Error as exc:
        raise ExtractionFailed(f"malformed CSV near line {reader.line_num + offset}: {exc}") from exc
    batcher.flush()
    metadata["rows"] = batcher.data_rows
    return Extraction(chunks=batcher.chunks, metadata=metadata)
