"""The study dashboard's layout in real headless Chromium: a new vault's empty states read as one
sentence in a box that fits them, a day's tooltip counts right, badge icons stay inside their circles."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from cognivault.config import load_settings
from cognivault.engine import Engine
from cognivault.study.progress import ProgressStore
from test_study_routes import ARTIFACTS, CHROMIUM, TOKEN, DevTools, RunningCompanion

# Each empty message: how many line boxes its text takes, and the height of the box around it.
EMPTY_STATE = """(() => {
  const lines = (el) => {  // text runs whose middles lie within 8 pixels share a line
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT), middles = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const range = document.createRange(); range.selectNodeContents(node);
      for (const r of range.getClientRects()) if (r.width > 0) middles.push(r.top + r.height / 2);
    }
    middles.sort((a, b) => a - b);
    return middles.filter((m, i) => i === 0 || m - middles[i - 1] > 8).length; };
  const map = document.getElementById("map-empty");
  return {map_lines: lines(map), map_box: document.getElementById("map-view").getBoundingClientRect().height,
          map_tools_shown: document.querySelector(".map-tools").getClientRects().length > 0,
          quiz_lines: lines(document.querySelector("#quiz-list .empty")),
          quiz_code: document.querySelector("#quiz-list .empty code")?.textContent ?? null,
          today: document.querySelector("#heatmap .cell.today").title};
})()"""
# Badge icons whose label is wider than the circle drawn around it.
OVERFLOWING_ICONS = """[...document.querySelectorAll(".badge .icon")].filter(icon => {
  const range = document.createRange(); range.selectNodeContents(icon);
  const text = range.getBoundingClientRect(), circle = icon.getBoundingClientRect();
  return text.width > circle.width * 0.86; }).map(icon => icon.textContent)"""


async def read_the_page(url: str, profile: Path, shot: Path) -> tuple[dict, list[str]]:
    async with DevTools(profile) as browser:
        await browser.send("Page.navigate", url=url)
        await browser.wait_for("document.body && document.body.dataset.loaded === 'true'")
        await browser.screenshot(shot)
        empty = await browser.evaluate(EMPTY_STATE)
        icons = await browser.evaluate(OVERFLOWING_ICONS)
    assert isinstance(empty, dict) and isinstance(icons, list)
    return empty, icons


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)")
def test_a_new_vaults_dashboard_shows_its_empty_states_compactly(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Cells.md").write_text("# Cells\n\nCells hold chloroplasts.\n", "utf-8")
    ProgressStore(vault).record("review", {"rating": 3, "card": "first"}, duration_s=60)  # a first review today
    settings = load_settings(vault, {"index": {"index_dir": str(tmp_path / "index")}}, environ={})
    with Engine(vault, settings, embedder=None) as engine:
        engine.index()
        with RunningCompanion(engine, settings) as running:
            ARTIFACTS.mkdir(exist_ok=True)
            url = f"http://127.0.0.1:{running.port}/dashboard?token={TOKEN}"
            empty, icons = asyncio.run(read_the_page(url, tmp_path / "profile", ARTIFACTS / "dashboard-empty.png"))
    assert empty["map_lines"] == 1, json.dumps(empty)  # was 3 lines spread over a 420-pixel box
    assert empty["map_box"] < 160, json.dumps(empty)
    assert not empty["map_tools_shown"], "zoom and fit buttons with no map to act on"
    assert empty["quiz_lines"] == 1 and empty["quiz_code"] == "cognivault generate quiz", json.dumps(empty)
    assert empty["today"].endswith(": 1 min, 1 activity"), json.dumps(empty)
    assert icons == [], f"badge icons wider than their circle: {icons}"
