"""The viewer page in a real browser: Debian's chromium, headless, driven by Selenium.

Each test loads a generated page, steps through the game with key presses, checks the rendered
table against an independent replay of the record at several points (hands in the omniscient
and in one seat's view, the last move, the table text, the per-game extras, the outcome) and
keeps screenshots under the test's tmp dir (``screenshots/``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from experiments.viewer import write_viewer
from kiaule_env.cards import CARD_SYMBOLS, SUIT_SYMBOLS, SUITS
from kiaule_env.core.records import GameRecord
from tests.browser import chromium_driver, needs_chromium
from tests.viewer.support import GAMES, lines, steps

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def browser():
    """One headless chromium for the module (the shared set-up, :mod:`tests.browser`)."""
    with chromium_driver() as driver:
        yield driver


# ---------------------------------------------------------------------------- helpers
def reference(record: GameRecord) -> list[dict[str, Any]]:
    """Per frame, from the env: every hand (Elgeta: none), who acts, the table text, the view."""
    out = []
    for _, env in steps(record):
        raw = env.unwrapped
        views = [raw.view(a) for a in raw.possible_agents]
        out.append(
            {
                "hands": [[CARD_SYMBOLS[c] for c in v.hand] for v in views],
                "to_act": raw.agent_selection if raw.legal_moves(raw.agent_selection) else None,
                "table": env.render(),
                "view": views[0],
            }
        )
    return out


class Page:
    """The loaded viewer page: key presses and what it shows."""

    def __init__(self, driver: Any, path: Path, shots: Path, record: GameRecord):
        from selenium.webdriver.common.by import By

        self.driver, self.by, self.shots, self.record = driver, By, shots, record
        driver.get(path.resolve().as_uri())
        self.body = driver.find_element(By.TAG_NAME, "body")

    def press(self, key: str, times: int = 1) -> None:
        from selenium.webdriver.common.keys import Keys

        self.body.send_keys(*([getattr(Keys, key, key)] * times))

    def css(self, selector: str) -> list[Any]:
        return self.driver.find_elements(self.by.CSS_SELECTOR, selector)

    def text(self, selector: str) -> str:
        return self.css(selector)[0].get_attribute("textContent")

    @property
    def pos(self) -> int:
        return int(self.css("#status")[0].get_attribute("data-pos"))

    @property
    def mode(self) -> str:
        return self.css("#status")[0].get_attribute("data-mode")

    def hand(self, seat: int) -> list[str | None]:
        """The seat's cards as rendered: symbols, None for a card face down (one DOM read)."""
        return self.driver.execute_script(
            "return Array.from(document.querySelectorAll("
            "'.seat[data-seat=\"' + arguments[0] + '\"] .hand .card'))"
            ".map((c) => c.classList.contains('back') ? null : c.textContent);",
            seat,
        )

    def texts(self, selector: str) -> list[str]:
        """``textContent`` of every element matching ``selector`` (one DOM read)."""
        return self.driver.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0])).map((e) => e.textContent);",
            selector,
        )

    def acting_seats(self) -> list[int]:
        return [int(e.get_attribute("data-seat")) for e in self.css(".seat.to-act")]

    def row(self, label: str) -> str:
        return self.text(f'#center .row[data-label="{label}"] .text')

    def shot(self, name: str) -> Path:
        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.shots / f"{name}.png"
        assert self.driver.save_screenshot(str(path)), f"no screenshot {path}"
        assert path.stat().st_size > 10_000
        return path


def check_frame(page: Page, record: GameRecord, ref: list[dict[str, Any]], k: int) -> None:
    """The page shows frame ``k`` (omniscient): every hand, who acts, the last move, the table."""
    assert page.pos == k
    assert page.mode == "omni"
    frame = ref[k]
    for seat, hand in enumerate(frame["hands"]):
        assert page.hand(seat) == hand, f"frame {k}: hand of player_{seat}"
    want = [] if frame["to_act"] is None else [int(frame["to_act"].split("_")[1])]
    assert page.acting_seats() == want
    assert page.text("#table-text") == frame["table"]
    if k:
        agent, _, text = record.moves[k - 1]
        assert page.text("#moves li.last") == f"{agent}: {text}"
    else:
        assert page.css("#moves li.last") == []


def check_seat_view(page: Page, ref: list[dict[str, Any]], seat: int) -> None:
    """In ``seat``'s view his own hand is face up, every other hand face down, card for card."""
    page.press(str(seat))
    assert page.mode == str(seat)
    hands = ref[page.pos]["hands"]
    for s, hand in enumerate(hands):
        assert page.hand(s) == (hand if s == seat else [None] * len(hand)), f"player_{s}"
    assert page.text("#view-title").startswith(f"player_{seat}'s view")
    row = page.css('#view-fields tr[data-field="hand"] td')[1].get_attribute("textContent")
    assert row == (" ".join(hands[seat]) or "()")
    assert page.css(".seat.me")[0].get_attribute("data-seat") == str(seat)
    # the move list as he knew it: others' hidden moves masked, nothing of the future
    texts = page.texts("#moves li")
    record_moves = page.record.moves
    for i, (agent, _, text) in enumerate(record_moves):
        if i >= page.pos:
            assert texts[i] == f"{agent}: …"
        elif agent != f"player_{seat}" and text.startswith(("discard ", "pass ")):
            assert texts[i] == f"{agent}: {text.split()[0]} " + " ".join(
                "▒" for _ in text.split()[1:]
            )
        else:
            assert texts[i].startswith(f"{agent}: {text}")
    legal = page.text("#legal")
    acting = ref[page.pos]["to_act"]
    assert (legal != "") == (acting == f"player_{seat}")


def unit_bounds(units: list[Any], k: int) -> tuple[int, int]:
    """(first frame of the unit of frame k, first frame of the next unit or the end)."""
    start = k
    while start > 0 and units[start - 1] == units[k]:
        start -= 1
    end = k
    while end < len(units) - 1 and units[end] == units[k]:
        end += 1
    return start, end


def check_outcome(page: Page, record: GameRecord, line: dict[str, Any]) -> None:
    page.press("END")
    assert page.pos == len(record.moves)
    assert page.css("#outcome")[0].is_displayed()
    for key, value in record.result.items():
        shown = page.text(f'#outcome .result-field[data-field="{key}"]')
        # readable: words for yes / no / nothing, lists without brackets, no JSON
        if isinstance(value, bool):
            want = "yes" if value else "no"
        elif value is None or value == []:
            want = "—"
        elif isinstance(value, list) and all(isinstance(x, str) for x in value):
            want = " ".join(value)
        elif isinstance(value, list):
            want = ", ".join(str(x) for x in value)
        else:
            want = str(value)
        assert shown == f"{key.replace('_', ' ')}: {want}"
        assert not any(raw in shown for raw in ("[", "{", "null", "true", "false"))
    rewards = page.text("#outcome .rewards")
    for seat, (name, r) in enumerate(zip(line["seats"], line["rewards"], strict=True)):
        assert f"player_{seat} ({name}) {'+' if r > 0 else ''}{round(r, 3):g}" in rewards
    page.press("LEFT")
    assert not page.css("#outcome")[0].is_displayed()
    page.press("RIGHT")


# ---------------------------------------------------------------------------- tests
def test_kozel_in_the_browser(browser, records, tmp_path):
    line = lines(records["kozel"])[1]
    record = GameRecord(**line["record"])
    page_file = write_viewer(records["kozel"], tmp_path / "kozel.html", game=1)
    ref = reference(record)
    units = [sum(r["view"].tricks) for r in ref]
    page = Page(browser, page_file, tmp_path / "screenshots", record)
    check_frame(page, record, ref, 0)
    assert page.row("trump") == f"{SUIT_SYMBOLS[record.result['trump']]} ({record.result['trump']})"

    page.press("RIGHT", 6)
    check_frame(page, record, ref, 6)
    page.shot("kozel-omniscient")
    start, end = unit_bounds(units, 6)
    page.press("DOWN")  # the next trick
    check_frame(page, record, ref, end)
    page.press("UP")  # back to the start of the trick that frame 6 was in
    check_frame(page, record, ref, start)
    assert 0 < start < 6
    page.press("RIGHT", 6 - start)
    check_frame(page, record, ref, 6)
    page.press("LEFT", 2)
    check_frame(page, record, ref, 4)

    # a trick with a face-down discard by someone other than the viewer
    k = next(
        i for i, r in enumerate(ref) if any(kind == 2 and s != 1 for s, kind, _ in r["view"].trick)
    )
    page.press("HOME")
    page.press("RIGHT", k)
    check_frame(page, record, ref, k)
    check_seat_view(page, ref, 1)
    trick = ref[k]["view"].trick
    for s, kind, _ in trick:
        cards = page.css(f'#center .row[data-label^="player_{s} "] .card')
        backs = ["back" in c.get_attribute("class") for c in cards]
        assert all(backs) if kind == 2 and s != 1 else not any(backs)
    page.shot("kozel-seat-1")
    points = page.row("team points")
    assert points.endswith("(known to this player)")
    page.press("o")
    assert page.mode == "omni" and not page.row("team points").endswith("player)")

    check_outcome(page, record, line)
    tp = record.result["team_points"]
    assert page.row("team points") == f"team 0: {tp[0]} · team 1: {tp[1]}"
    page.shot("kozel-outcome")


def test_kiauliaganys_in_the_browser(browser, records, tmp_path):
    line = lines(records["kiauliaganys"])[2]
    record = GameRecord(**line["record"])
    page_file = write_viewer(records["kiauliaganys"], tmp_path / "kiauliaganys.html", game=2)
    ref = reference(record)
    units = [r["view"].turns for r in ref]
    page = Page(browser, page_file, tmp_path / "screenshots", record)

    def must_find(k: int) -> str:
        req = ref[k]["view"].required_suit
        return "any suit" if req < 0 else f"{SUIT_SYMBOLS[SUITS[req]]} ({SUITS[req]})"

    check_frame(page, record, ref, 0)
    assert page.row("must find").startswith(must_find(0) + ",")
    k = 0
    for _ in range(4):  # four turns ahead by ↓, checking each
        _, end = unit_bounds(units, k)
        page.press("DOWN")
        k = end
        check_frame(page, record, ref, k)
        assert page.row("must find").startswith(must_find(k) + ",")
        assert page.row("turn").startswith(f"{ref[k]['view'].turns + 1} (")
    page.press("RIGHT", 3)
    check_frame(page, record, ref, k + 3)
    assert page.row("must find").startswith(must_find(k + 3) + ",")
    page.shot("kiauliaganys-omniscient")
    check_seat_view(page, ref, 2)
    page.shot("kiauliaganys-seat-2")
    page.press("o")
    check_outcome(page, record, line)
    page.shot("kiauliaganys-outcome")
    print(f"screenshots in {tmp_path / 'screenshots'}")


# ---------------------------------------------------------------------------- the better replay
def _page(browser, records, tmp_path, game: str, index: int = 1) -> tuple[Page, GameRecord, dict]:
    line = lines(records[game])[index]
    record = GameRecord(**line["record"])
    page_file = write_viewer(records[game], tmp_path / f"{game}.html", game=index)
    return Page(browser, page_file, tmp_path / "screenshots", record), record, line


def _overflow(page: Page) -> list[str]:
    """The visible elements that reach outside the window's width (or a horizontal scroll)."""
    return page.driver.execute_script(
        """
        const w = document.documentElement.clientWidth;
        const out = [];
        if (document.documentElement.scrollWidth > w) out.push('page scrolls sideways');
        const sel = 'header, #controls > *, #status, #table, .seat, #center, #legal, #outcome, ' +
          'pre, aside section, #moves, #view-fields, #policy';
        document.querySelectorAll(sel).forEach((e) => {
          const r = e.getBoundingClientRect();
          if (r.width === 0 && r.height === 0) return;  // not shown
          if (r.left < 0 || r.right > w + 0.5) {
            out.push((e.id || e.className || e.tagName) + ' ' + r.left + '..' + r.right);
          }
        });
        return out;
        """
    )


@pytest.mark.parametrize("game", GAMES)
def test_a_900px_window_shows_everything(browser, records, tmp_path, game):
    page = _page(browser, records, tmp_path, game)[0]
    browser.set_window_size(900, 1000)
    try:
        assert browser.execute_script("return window.innerWidth") <= 900
        for where, key, times in (("start", "HOME", 1), ("middle", "RIGHT", 9), ("end", "END", 1)):
            page.press(key, times)
            assert _overflow(page) == [], f"{game} at the {where}"
            page.shot(f"{game}-900px-{where}")
        page.press("1")  # a seat's view too
        assert _overflow(page) == []
    finally:
        browser.set_window_size(1300, 1000)


def test_completed_tricks_show_as_cards_and_counters_are_right(browser, records, tmp_path):
    from kiaule_env.cards import parse_card

    page, record, _ = _page(browser, records, tmp_path, "kozel")
    ref = reference(record)
    units = [sum(r["view"].tricks) for r in ref]
    assert page.css('#center .row[data-label="last trick"]') == []  # nothing completed yet
    _, end = unit_bounds(units, 0)
    page.press("DOWN")
    assert page.pos == end
    plays = page.css('#center .row[data-label="last trick"] .play')
    assert len(plays) == end  # every move of the first trick
    for k in range(end):
        agent, _, text = record.moves[k]
        want = [CARD_SYMBOLS[parse_card(t)] for t in text.split()[1:]]
        shown = page.driver.execute_script(
            "return Array.from(document.querySelectorAll("
            '\'#center .row[data-label="last trick"] .play[data-move="\' + arguments[0] + '
            "'\"] .card')).map((c) => c.textContent);",
            k,
        )
        assert shown == want, f"move {k}: {text}"
        assert page.texts(f'#center .play[data-move="{k}"] .who') == [agent]
    page.shot("kozel-last-trick-cards")
    # in a seat's view another seat's face-down discard is a card back, not its face
    page.press("1")
    for k in range(end):
        agent, _, text = record.moves[k]
        backs = page.driver.execute_script(
            "return Array.from(document.querySelectorAll("
            "'#center .play[data-move=\"' + arguments[0] + '\"] .card'))"
            ".map((c) => c.classList.contains('back'));",
            k,
        )
        assert all(backs) if text.startswith("discard") and agent != "player_1" else not any(backs)
    page.press("o")
    # at the end: the tricks played, not one more
    page.press("END")
    played = sum(record.result["tricks"])
    status = page.text("#status")
    assert status.endswith(f"{played} tricks played · game over"), status
    assert f"trick {played + 1}" not in status


def test_kiauliaganys_turn_counter_matches_the_outcome(browser, records, tmp_path):
    page, record, _ = _page(browser, records, tmp_path, "kiauliaganys", 2)
    page.press("END")
    turns = record.result["turns"]
    assert page.row("turn") == f"{turns} played, game over"
    assert page.text('#outcome .result-field[data-field="turns"]') == f"turns: {turns}"
    assert "game over" in page.text("#status")


def test_the_side_panel_is_readable(browser, records, tmp_path):
    page, record, _ = _page(browser, records, tmp_path, "kiauliaganys", 2)
    page.press("RIGHT", 5)
    for mode in ("o", "2"):
        page.press(mode)
        rows = dict(
            zip(
                page.texts("#view-fields td:first-child"),
                page.texts("#view-fields td:last-child"),
                strict=True,
            )
        )
        assert rows["phase"] in ("match", "drag", "over")
        assert rows["to act"] == f"player_{ref_to_act(record, page.pos)}"
        assert rows["loser"] == "nobody"
        for name, value in rows.items():
            assert value != "-1" and not value.startswith(("{", "[")), f"{name}: {value}"
            assert "null" not in value and "true" not in value and "false" not in value
    meta = page.text("#meta")
    assert "{" not in meta and "[" not in meta


def ref_to_act(record: GameRecord, k: int) -> int:
    return int(record.moves[k][0].split("_")[1])


def test_autoplay_and_its_speed(browser, records, tmp_path):
    import time

    from selenium.webdriver.support.ui import Select

    page, record, _ = _page(browser, records, tmp_path, "kiauliaganys", 2)
    speed = Select(page.css("#speed")[0])

    def advance(value: str, seconds: float) -> int:
        page.press("HOME")
        speed.select_by_value(value)
        start = page.pos
        page.css("#play")[0].click()
        assert page.css("#status")[0].get_attribute("data-playing") == "yes"
        time.sleep(seconds)
        page.css("#play")[0].click()  # pause
        assert page.css("#status")[0].get_attribute("data-playing") == "no"
        return page.pos - start

    slow = advance("1", 2.5)
    fast = advance("10", 2.5)
    assert 1 <= slow <= 4, slow
    assert fast >= 10 and fast > 3 * slow, (slow, fast)
    paused = page.pos
    time.sleep(0.5)
    assert page.pos == paused  # pausing stops it
    # space toggles it, and it stops by itself at the end
    page.press("END")
    page.press("LEFT", 3)
    page.press(" ")
    time.sleep(1.2)
    assert page.pos == len(record.moves)
    assert page.css("#status")[0].get_attribute("data-playing") == "no"


def test_pig_exchange_is_one_step_with_probabilities(browser, records, tmp_path):
    page, record, line = _page(browser, records, tmp_path, "pig", 0)
    ref = reference(record)
    # a step starts where the exchange (or race step) changes; nothing inside one is shown
    units = [(r["view"].round_index, r["view"].passes, r["view"].race_steps) for r in ref]
    starts = [0] + [k for k in range(1, len(units)) if units[k] != units[k - 1]]
    assert starts[-1] == len(record.moves)
    first = starts[1]
    assert first == len(set(m[0] for m in record.moves[:first])) > 1  # all seats at once
    status = page.text("#status")
    assert "choose at once" in status and "to act" not in status
    assert page.acting_seats() == [int(m[0].split("_")[1]) for m in record.moves[:first]]
    visited = [page.pos]
    for _ in range(len(starts) - 1):
        page.press("RIGHT")
        visited.append(page.pos)
    assert visited == starts
    page.press("HOME")
    page.press("RIGHT")
    assert len(page.css("#moves li.last")) == first  # the whole exchange is the last step
    page.press("LEFT")
    assert page.pos == 0
    # probabilities: the heuristic seats give them; shown to the onlooker and to their seat
    heuristic = [s for s, name in enumerate(line["seats"]) if name == "pig/heuristic"]
    assert heuristic and line["record"]["policies"]
    assert page.css("#policy")[0].is_displayed()
    for s in heuristic:
        text = record.moves[s][2]
        policy = line["record"]["policies"][s]
        chosen = page.css(f'#policy .prob.chosen[data-move="{text}"]')
        assert len(chosen) == 1
        p = policy[str(record.moves[s][1])]
        assert chosen[0].find_element(page.by.CSS_SELECTOR, ".pct").text == f"{100 * p:.1f}%"
    page.shot("pig-exchange-probabilities")
    random_seat = next(s for s in range(4) if s not in heuristic)
    page.press(str(random_seat))
    assert not page.css("#policy")[0].is_displayed()  # another's policy would reveal his hand
    assert page.text("#legal").startswith(f"player_{random_seat} may:")
    assert page.text("#legal").count(" may:") == 1
    page.press(str(heuristic[0]))
    assert page.css("#policy")[0].is_displayed()
    page.press("o")
