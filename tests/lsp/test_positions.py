"""Positions follow the negotiated encoding: umlauts, emoji and CJK before a link never shift ranges."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import client_capabilities, position_of, start_session, stop_session
from lsprotocol import types

from cognivault.lsp.positions import Codec

LINE = "Straße 😀 漢字 [[Photosynthesis#Light reactions]] end."


@pytest.mark.parametrize("encoding, column", [("utf-16", 13), ("utf-8", 20), ("utf-32", 12)])
def test_codec_columns(encoding: str, column: int) -> None:
    codec = Codec.of(encoding)
    start = LINE.index("[[")
    assert codec.to_client(LINE, start) == column
    assert codec.from_client(LINE, column) == start
    emoji = LINE.index("😀")
    if encoding != "utf-32":  # a column inside the emoji maps back to the emoji's start
        inside = codec.to_client(LINE, emoji) + 1
        assert codec.from_client(LINE, inside) == emoji
    assert codec.to_client(LINE, 10_000) == codec.to_client(LINE, len(LINE))


def test_codec_ascii_fast_path() -> None:
    assert Codec.of("utf-16").to_client("plain ascii", 5) == 5
    assert Codec.of(None).encoding == "utf-16"
    assert Codec.of("latin-1").encoding == "utf-16"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])  # utf-32: the codec test above
async def test_hover_and_definition_in_each_encoding(tmp_path: Path, encoding: str) -> None:
    offered = None if encoding == "utf-16" else [encoding, "utf-16"]
    session = await start_session(tmp_path, capabilities=client_capabilities(encodings=offered))
    try:
        assert session.result.capabilities.position_encoding == encoding
        text = session.text("Index.md")
        uri = session.uri("Index.md")
        link = "[[Photosynthesis#Light reactions]]"
        # The last character of the link, counted in this encoding
        end = position_of(text, link, offset=len(link) - 1, encoding=encoding)
        hover = await session.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=end))
        assert hover is not None and "Light reactions" in hover.contents.value
        assert hover.range.start == position_of(text, link, encoding=encoding)
        assert hover.range.end == position_of(text, link, offset=len(link), encoding=encoding)
        # One unit past the link: nothing
        after = types.Position(line=end.line, character=hover.range.end.character + 1)
        assert await session.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=after)) is None
        (location,) = await session.client.text_document_definition_async(types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=end))
        assert location.uri == session.uri("Photosynthesis.md")
        # Incremental edits are applied in the same units: type before the link, hover still hits it.
        session.open("Index.md")
        line = end.line
        session.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=line, character=0),
                                  end=types.Position(line=line, character=0)), text="Ünïcödé 🎉 ")]))
        edited = text.replace("Straße", "Ünïcödé 🎉 Straße", 1)
        moved = position_of(edited, link, offset=3, encoding=encoding)
        hover = await session.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=moved))
        assert hover is not None and hover.range.start == position_of(edited, link, encoding=encoding)
    finally:
        await stop_session(session)
