"""``kiaule play <game> --web``: a person plays one seat in the browser against agents.

End to end in headless chromium (Selenium): a whole game of every game is played
by clicking legal moves and pressing keys; the moves the game received are the ones chosen; the
saved record replays to the page's result and loads in ``kiaule view``; the page's HTML and
every JSON the server sent never hold a card another seat hides (checked against the true state
at every decision of the person). Without a browser: the server's refusals, the record file
that is never overwritten, the command's one-line errors, and a clean stop.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.request
from typing import Any

import numpy as np
import pytest

from experiments import cli
from experiments.web_play import WebGame, default_record_path
from kiaule_env import GAMES
from kiaule_env.cards import card_symbol, card_text
from kiaule_env.core.records import GameRecord, replay
from tests.browser import needs_chromium


# ---------------------------------------------------------------------------- hidden cards
def hidden_cards(game: str, raw: Any, seat: int, held: set[int]) -> set[int]:
    """The cards ``seat`` cannot know now, from the true state (not from the page); ``held``:
    the cards ``seat`` has held so far (in Pig he saw them before passing them on)."""
    state, others = raw.game_state, [s for s in range(raw.engine.num_players) if s != seat]
    if game == "kozel":  # others' hands and face-down discards (K6), the stock but its indicator
        view = raw.engine.view(state, seat)
        known = {c for s in others for c in (*view.known[s], *view.maybe[s])}
        cards = {c for s in others for c in (*state.hands[s], *state.discards[s])}
        cards |= set(state.stock[state.stock_pos :]) - {state.indicator}
        return cards - known
    if game == "kiauliaganys":  # others' hands but what they took face up, the face-down deck
        cards = {c for s in others for c in state.hands[s] if c not in state.face_up[s]}
        return cards | set(state.face_down)
    if game == "pig":  # others' hands but the cards he passed (P2: seen by the giver only)
        return {c for s in others for c in state.hands[s]} - held
    if game == "elgeta":  # the cards never face up (E2: their set is public, their order is not;
        # the page does not list them, so any of them in it would tell where it lies)
        return {c for s, pile in enumerate(state.piles) for c in list(pile)[: state.unseen[s]]}
    return movable_cards(raw.engine, state, seat)


def movable_cards(engine: Any, state: Any, seat: int, redeals: int = 40) -> set[int]:
    """For a game without its own account above: the cards that redeals of what ``seat``
    cannot see (``resample_hidden``) put elsewhere (``card_locations``), through the contract."""
    rng = np.random.default_rng(0)
    where = {c: place for place, cards in engine.card_locations(state).items() for c in cards}
    moved: set[int] = set()
    for _ in range(redeals):
        other = engine.resample_hidden(state, seat, rng)
        for place, cards in engine.card_locations(other).items():
            moved |= {c for c in cards if where.get(c) != place}
    return moved


def leaked(texts: list[str], hidden: set[int]) -> list[str]:
    """The hidden cards written in ``texts`` (as symbols ``Q♣`` or as texts ``QC``)."""
    found = []
    for card in hidden:
        symbol = card_symbol(card)
        word = re.compile(rf"(?<![0-9A-Z]){re.escape(card_text(card))}(?![0-9A-Z])")
        if any(symbol in t or word.search(t) for t in texts):
            found.append(card_text(card))
    return found


def strings(data: Any) -> list[str]:
    """Every string inside a JSON value (keys included)."""
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for k, v in data.items() for s in (k, *strings(v))]
    if isinstance(data, list):
        return [s for v in data for s in strings(v)]
    return []


class SentLog:
    """Every state JSON the server sends, as sent (wraps the session's ``snapshot``)."""

    def __init__(self, web: WebGame):
        self.sent: list[str] = []
        self.lock = threading.Lock()
        inner = web.session.snapshot

        def snapshot(*args: Any, **kwargs: Any) -> dict[str, Any]:
            data = inner(*args, **kwargs)
            with self.lock:
                self.sent.append(json.dumps(data, ensure_ascii=False))
            return data

        web.session.snapshot = snapshot  # the handler reads it from the instance

    def take(self) -> list[str]:
        with self.lock:
            sent, self.sent = self.sent, []
        return sent


# ---------------------------------------------------------------------------- the browser games
def wait_for_turn(driver: Any, timeout: float = 30) -> str:
    """``"move"`` once enabled move buttons are shown, ``"over"`` once the result is."""
    from selenium.webdriver.support.ui import WebDriverWait

    def ready(d: Any) -> str | bool:
        return d.execute_script(
            "if (document.getElementById('end').dataset.over) return 'over';"
            "const b = document.querySelectorAll('#moves button.move');"
            "return b.length && !b[0].disabled ? 'move' : false;"
        )

    return WebDriverWait(driver, timeout, poll_frequency=0.02).until(ready)


def choose(driver: Any, index: int, rng: np.random.Generator) -> int:
    """Pick a shown move by mouse or by key (in turn); return its action."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    buttons = driver.find_elements(By.CSS_SELECTOR, "#moves button.move")
    actions = [int(b.get_attribute("data-action")) for b in buttons]
    body = driver.find_element(By.TAG_NAME, "body")
    way = index % 3
    if way == 1 and len(buttons) <= 9:  # its number key
        pick = int(rng.integers(len(buttons)))
        body.send_keys(str(pick + 1))
    elif way == 2:  # arrow down once, then Enter
        pick = 1 % len(buttons)
        body.send_keys(Keys.ARROW_DOWN, Keys.ENTER)
    else:  # the mouse
        pick = int(rng.integers(len(buttons)))
        buttons[pick].click()
    return actions[pick]


#: the person's seat, the opponents' kind, env keywords and seed of the games that want their
#: own; every other game of ``kiaule_env.GAMES`` is played from seat 0 against random agents
BROWSER_SETTINGS: dict[str, tuple[int, str, dict[str, Any], int]] = {
    "kozel": (1, "heuristic", {}, 11),
    "pig": (2, "heuristic", {}, 11),
    "kiauliaganys": (0, "random", {"num_players": 3}, 11),
    "elgeta": (0, "random", {}, 3),  # a short deal: 33 turns of the person
}
BROWSER_GAMES = [
    (game, seat, [f"{game}/{kind}"], kwargs, seed)
    for game in GAMES
    for seat, kind, kwargs, seed in [BROWSER_SETTINGS.get(game, (0, "random", {}, 11))]
]


@needs_chromium
@pytest.mark.parametrize(("game", "seat", "agents", "kwargs", "seed"), BROWSER_GAMES)
def test_a_whole_game_in_the_browser(chromium, tmp_path, game, seat, agents, kwargs, seed):
    from selenium.webdriver.common.by import By

    path = tmp_path / "game.json"
    web = WebGame(game, seat, agents, seed=seed, env_kwargs=kwargs, record_path=path)
    sent = SentLog(web)
    rng = np.random.default_rng(0)
    chosen: list[int] = []
    held: set[int] = set()
    raw = web.env
    with web:
        chromium.get(web.url)
        while wait_for_turn(chromium) == "move":
            # the game thread waits for the person here: the state is still
            if game == "pig":
                held |= set(raw.game_state.hands[seat])
            hidden = hidden_cards(game, raw, seat, held)
            page = chromium.page_source
            assert not leaked([page, *sent.take()], hidden), (page, hidden)
            chosen.append(choose(chromium, len(chosen), rng))
        assert web.wait(10)
        end = chromium.find_element(By.ID, "end").text
        result_text = chromium.find_element(By.ID, "result").text
        lineup = chromium.find_element(By.ID, "lineup").text
        assert f"player_{seat}: you" in lineup and f"{agents[0]}" in lineup
        page_log = chromium.find_element(By.ID, "log").get_attribute("textContent")
        assert page_log == "\n".join(web.session.log)  # sent piecewise, whole on the page
        hidden = hidden_cards(game, raw, seat, held)
        assert not leaked([chromium.page_source, *sent.take()], hidden)
    assert re.match(r"You (won|lost) \(|A draw", end), end
    assert chosen, "the person had no decision"
    record = GameRecord.load(path)
    mine = [action for agent, action, _ in record.moves if agent == f"player_{seat}"]
    assert mine == chosen  # the moves clicked or keyed are the moves played
    assert replay(lambda **kw: GAMES[game].raw_env(**kw), record) == record.result
    for key, value in record.result.items():  # the page shows the record's result
        assert f"{key.replace('_', ' ')}: {plain(value)}" in result_text
    from experiments.viewer import load_game

    assert load_game(path).record.moves == record.moves  # `kiaule view` reads it


def plain(value: Any) -> str:
    """A result value as the page writes it (lists joined, yes/no, none)."""
    if value is None:
        return "none"
    if isinstance(value, list):
        return ", ".join(plain(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{k} {plain(v)}" for k, v in value.items())
    return str(value)


# ---------------------------------------------------------------------------- without a browser
def get(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def post(url: str, body: Any) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


def next_turn(url: str, since: int) -> dict[str, Any]:
    state = get(f"{url}api/state?since={since}")
    while not state["moves"] and not state["over"]:
        state = get(f"{url}api/state?since={state['version']}")
    return state


def test_pig_step_waits_for_the_person_and_is_applied_at_once(tmp_path):
    """P2: the person's pass is collected, the agents' passes computed, one step applied."""
    with WebGame("pig", 0, ["pig/random"], seed=2, record_path=tmp_path / "p.json") as web:
        state = next_turn(web.url, -1)
        assert state["log"] == []
        threading.Event().wait(0.3)  # the agents have chosen; nothing is applied without him
        assert web.env.game_state.passes == 0
        move = state["moves"][0]
        assert post(f"{web.url}api/move", {"action": move["action"]})[0] == 200
        state = next_turn(web.url, state["version"])
        # the whole step at once, every seat's pass, the others' cards masked
        assert web.env.game_state.passes >= 1
        assert state["log_from"] == 0
        assert state["log"][:4] == [f"you: {move['text']}"] + [
            f"player_{s}: pass ▒" for s in (1, 2, 3)
        ]


def test_the_log_is_sent_from_where_the_page_is(tmp_path):
    with WebGame("kozel", 3, ["kozel/random"], seed=5, record_path=tmp_path / "k.json") as web:
        state = next_turn(web.url, -1)
        full = get(f"{web.url}api/state")["log"]
        assert len(full) == 3  # three seats played before the fourth
        rest = get(f"{web.url}api/state?log=2")
        assert rest["log_from"] == 2 and rest["log"] == full[2:]
        assert get(f"{web.url}api/state?log=99")["log"] == []
        assert state["log"] == full


def test_a_move_that_is_not_legal_now_is_refused_with_the_legal_ones(tmp_path):
    with WebGame("kozel", 0, ["kozel/random"], seed=1, record_path=tmp_path / "k.json") as web:
        state = next_turn(web.url, -1)
        legal = {m["action"] for m in state["moves"]}
        bad = next(a for a in range(GAMES["kozel"].raw_env().engine.num_actions) if a not in legal)
        for body in ({"action": bad}, {"action": "1"}, {"action": True}, [1], {}):
            status, answer = post(f"{web.url}api/move", body)
            assert status == 400, body
            assert "action" in answer["error"]
        status, answer = post(f"{web.url}api/move", {"action": bad})
        assert state["moves"][0]["text"] in answer["error"]
        assert get(f"{web.url}api/state")["version"] == state["version"]  # nothing moved


def test_the_server_stops_cleanly_and_an_unfinished_game_saves_nothing(tmp_path):
    path = tmp_path / "k.json"
    web = WebGame("kozel", 2, ["kozel/random"], seed=1, record_path=path).start()
    url = web.url
    assert url.startswith("http://127.0.0.1:")
    next_turn(url, -1)
    web.close()
    assert web.wait(5)
    assert not any(t.is_alive() for t in web._threads)
    with pytest.raises(urllib.error.URLError):
        get(f"{url}api/state")
    assert not path.exists()
    assert "nothing saved" in web.session.snapshot()["outcome"]


def test_a_taken_port_is_one_clear_error_and_an_unstarted_game_closes(tmp_path):
    with WebGame("pig", 0, ["pig/random"], record_path=tmp_path / "a.json") as web:
        port = web.server.server_address[1]
        with pytest.raises(OSError, match=f"--port {port}: cannot serve"):
            WebGame("pig", 0, ["pig/random"], record_path=tmp_path / "b.json", port=port)
    unstarted = WebGame("pig", 0, ["pig/random"], record_path=tmp_path / "c.json")
    unstarted.close()  # returns at once: the server was never started


def test_records_are_never_overwritten(tmp_path):
    taken = tmp_path / "mine.json"
    taken.write_text("a user's file")
    with pytest.raises(ValueError, match="never overwritten"):
        WebGame("kozel", 0, ["kozel/random"], record_path=taken)
    assert taken.read_text() == "a user's file"
    first = default_record_path("pig", tmp_path)
    first.write_text("{}")
    second = default_record_path("pig", tmp_path)
    assert second != first and not second.exists() and second.parent == tmp_path


@pytest.mark.parametrize(
    ("argv", "mentions"),
    [
        (["play", "kozel", "--web", "--seat", "7"], "--seat must be 0..3"),
        (["play", "kozel", "--web", "--agents", "pig/random"], "opponents must be kozel agents"),
        (["play", "kozel", "--record", "x.json"], "go with --web"),
        (["play", "kozel", "--web", "--record", "x.txt"], ".json"),
    ],
)
def test_bad_web_arguments_are_one_line_and_status_2(capsys, argv, mentions):
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert mentions in err


def test_the_command_serves_a_game_saves_its_record_and_exits(tmp_path):
    """``kiaule play kozel --web``: prints the address, plays, saves, stops with status 0."""
    import subprocess
    import sys

    path = tmp_path / "game.json"
    argv = ["play", "kozel", "--web", "--seat", "3", "--agents", "kozel/random"]
    argv += ["--seed", "4", "--record", str(path)]
    code = "import sys; from experiments.cli import main; sys.exit(main(sys.argv[1:]))"
    process = subprocess.Popen(
        [sys.executable, "-c", code, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = process.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", first).group(0)
        state = next_turn(url, -1)
        while not state["over"]:
            assert post(f"{url}api/move", {"action": state["moves"][-1]["action"]})[0] == 200
            state = next_turn(url, state["version"])
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert f"Saved {path}" in out
    record = GameRecord.load(path)
    assert record.seed == 4 and record.result == state["result"]
