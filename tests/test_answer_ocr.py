"""Text read from an image is quoted only where it reads as prose: the OCR of a screenshot (menu entries, buttons,
version numbers) stays searchable but is no answer, while a scanned page or a photo of notes is."""

from __future__ import annotations

from pathlib import Path

import pytest

from cognivault.answer.evidence import Evidence
from cognivault.answer.extractive import units_of
from cognivault.config import IndexSettings
from cognivault.vault.extractors import extract_attachment
from test_extractors import needs_tesseract, text_image

# as tesseract reads a screenshot of an app's file explorer and graph view
SCREENSHOT = ("File explorer\n\n® D\nObsidian Starter Pack\n\na v Howto\n\nCreate notes\n\nImport data from Roam\n"
              "Rename notes\nv Plugins\nAudio recorder\nBacklinks\nGraph view\nSlides\nv Release notes\nv0.0.1\n"
              "v0.2.0\n\nted image Import data from 8.png n g © Plugins/Audio Roam = Why Markdown Pasted image")
PAGES = {
    "en": ["Photosynthesis takes place in the chloroplasts of", "the leaf. Light energy splits water and releases",
           "oxygen, while the Calvin cycle fixes carbon dioxide", "into sugar. Stomata close when the plant is short",
           "of water, which slows the whole process down."],
    "de": ["Die Zinsen der Zentralbank steuern die Nachfrage", "nach Krediten. Steigt der Leitzins, sparen die",
           "Haushalte mehr und die Unternehmen investieren", "weniger, sodass die Inflation langsam sinkt. Die",
           "Wirkung zeigt sich oft erst nach einem Jahr."],
}
MENU = ["File   Edit   View", "Export to PNG", "v1.4.13   Settings", "Canvas   Graph view", "© Help  x  +"]


def _read(text: str, locator: str = "image") -> Evidence:
    return Evidence(label="S1", chunk_id="0123456789abcdef", path="Attachments/shot.png", title="shot",
                    heading_path=[], line_start=0, line_end=0, locator=locator, text=text, snippet=text[:80],
                    score=1.0)


def test_a_screenshots_ocr_is_not_quoted_though_the_same_words_in_a_note_are() -> None:
    assert units_of(_read(SCREENSHOT), 0) == []
    assert units_of(_read(SCREENSHOT, locator="Graph view.md#L1"), 0)


def test_garbled_lines_of_a_page_read_from_an_image_are_not_quoted() -> None:
    page = "\n".join(PAGES["en"])
    units = units_of(_read(f"{page}\n\nthe jAemettin- FPR PER Nt, ee ee Se Pl RN DR"), 0)
    assert any(unit.text.startswith("Photosynthesis takes place") for unit in units)
    assert not any("FPR" in unit.text for unit in units)


@needs_tesseract
@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_scanned_page_is_quoted_and_a_screenshot_is_not(tmp_path: Path, lang: str) -> None:
    def read(name: str, lines: list[str]) -> Evidence:
        path = tmp_path / f"{name}.png"
        text_image(lines, size=(1400, 500), font_size=40).save(path)
        return _read("\n".join(chunk.text for chunk in extract_attachment(path, IndexSettings()).chunks))

    page = units_of(read("page", PAGES[lang]), 0)
    assert any(unit.text.startswith(PAGES[lang][0].split()[0]) for unit in page)
    assert units_of(read("menu", MENU), 0) == []
