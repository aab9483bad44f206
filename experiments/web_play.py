"""Play against the agents in the browser (``kiaule play kozel --web``).

A local page served by the standard library's HTTP server, bound to ``127.0.0.1`` on a free
port. The game runs in a background thread on the one play loop
(:func:`kiaule_env.core.play.play_episode`) with the same agent set-up as terminal play
(:mod:`experiments.play`); the person's seat is a player whose ``act`` waits for the page's
answer. The page polls ``GET /api/state`` and answers with ``POST /api/move``.

Hidden information stays hidden: the server sends only strings made for the person's seat, the
table as that seat sees it (the env's ``render_view``, or the table from above plus his hand)
and the other seats' moves as his seat may know them (:func:`~kiaule_env.core.engine.text_seen_by`:
a Kozel discard is face down, K6; a passed Pig card is seen only by its giver, P2). Pig's steps
are simultaneous (P2): the person's pass is collected, the agents' passes are computed, and the
step is applied at once; every move of the step is shown once it is applied.

At the end the page shows the result and the game is saved as a game record
(:mod:`kiaule_env.core.records`) that ``kiaule view`` replays. The record file is created, never
overwritten: an explicit path that exists is refused before the game starts; the default
``runs/play/<game>-<time>.json`` takes the next free name.
"""

from __future__ import annotations

import datetime
import json
import secrets
import threading
import time
from collections.abc import Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from experiments.seating import QuitGame, opponent_agents, table_renderer
from kiaule_env import GAMES
from kiaule_env.core.engine import text_seen_by
from kiaule_env.core.play import Decision, play_episode
from kiaule_env.core.records import GameRecord

#: where records go when no path is given
DEFAULT_RECORD_DIR = Path("runs") / "play"
#: how long ``GET /api/state?since=N`` waits for something new before answering
POLL_WAIT_S = 10.0


def default_record_path(game: str, folder: Path = DEFAULT_RECORD_DIR) -> Path:
    """``<folder>/<game>-<UTC time>.json``, or with ``-2``, ``-3``, … when that name is taken."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S")
    path = folder / f"{game}-{stamp}.json"
    n = 2
    while path.exists():
        path = folder / f"{game}-{stamp}-{n}.json"
        n += 1
    return path


def check_record_path(path: Path) -> None:
    """``ValueError`` if ``path`` exists (records are never overwritten) or is not ``.json``."""
    if path.exists():
        raise ValueError(f"--record {path} exists; records are never overwritten, give a new file")
    if path.suffix != ".json":
        raise ValueError(f"--record {path}: a game record is a .json file")


def save_new(record: GameRecord, path: Path) -> None:
    """Write ``record`` to ``path``, which must not exist (exclusive creation, no overwrite)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as handle:
        handle.write(record.to_json())


class Session:
    """What the page may see, made only of strings for the person's seat, and his answer.

    The game thread writes (``ask``, ``log_step``, ``finish``); the server's threads read
    (``snapshot``) and answer (``answer``). Every change bumps ``version`` so a poll can wait
    for news.
    """

    def __init__(self, game: str, agent: str, lineup: dict[str, str]):
        self.game, self.agent, self.lineup = game, agent, lineup
        self.version = 0
        self.table = ""
        self.log: list[str] = []
        self.moves: list[tuple[int, str]] = []
        self.over = False
        self.result: dict[str, Any] | None = None
        self.reward: float | None = None
        self.record_path: str | None = None
        self.error: str | None = None
        self._answer: int | None = None
        self._quit = False
        self._changed = threading.Condition()

    # ------------------------------------------------------------ game thread side
    def ask(self, table: str, legal: dict[int, str]) -> int:
        """Show ``legal`` to the page and wait for one of them (``QuitGame`` on close)."""
        with self._changed:
            self.table, self.moves, self._answer = table, list(legal.items()), None
            self._bump()
            while self._answer is None:
                if self._quit:
                    raise QuitGame
                self._changed.wait(0.5)
            action, self._answer = self._answer, None
            return action

    def log_step(self, lines: Sequence[str], table: str) -> None:
        """Add the moves of an applied step (as the seat may know them) and the new table."""
        with self._changed:
            self.log.extend(lines)
            self.table = table
            self._bump()

    def finish(self, table: str, result: Any, reward: float, record_path: Path) -> None:
        with self._changed:
            self.table, self.over, self.result = table, True, result
            self.reward, self.record_path = reward, str(record_path)
            self._bump()

    def fail(self, message: str) -> None:
        with self._changed:
            self.error, self.over = message, True
            self._bump()

    def _bump(self) -> None:
        self.version += 1
        self._changed.notify_all()

    # ------------------------------------------------------------ server side
    def snapshot(self, since: int = -1, wait: float = 0.0, log_from: int = 0) -> dict[str, Any]:
        """The page's state; waits up to ``wait`` seconds for a version newer than ``since``.

        The log is sent from entry ``log_from`` on (a page that has the first entries asks for
        the rest only, so a long Elgeta game does not resend thousands of lines each poll).
        """
        with self._changed:
            if self.version <= since and not self._quit:
                self._changed.wait_for(lambda: self.version > since or self._quit, wait)
            start = min(max(log_from, 0), len(self.log))
            return {
                "version": self.version,
                "game": self.game,
                "you": self.agent,
                "lineup": self.lineup,
                "table": self.table,
                "log_from": start,
                "log": self.log[start:],
                "moves": [{"action": a, "text": t} for a, t in self.moves],
                "over": self.over,
                "result": self.result,
                "reward": self.reward,
                "outcome": self._outcome(),
                "record": self.record_path,
                "error": self.error,
            }

    def _outcome(self) -> str | None:
        """One sentence for the person: won, lost or drawn by his total reward."""
        if self.error:
            return f"The game stopped: {self.error}"
        if not self.over or self.reward is None:
            return None
        if self.reward > 0:
            return f"You won ({self.reward:+g})."
        if self.reward < 0:
            return f"You lost ({self.reward:+g})."
        return "A draw (+0)."

    def answer(self, action: Any) -> None:
        """The page's choice; ``ValueError`` if it is not one of the legal moves shown now."""
        with self._changed:
            legal = dict(self.moves)
            if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
                shown = ", ".join(f"{a} ({t})" for a, t in self.moves) or "none (not your turn)"
                raise ValueError(f"action {action!r} is not a legal move now; legal: {shown}")
            # the moves go at once, so that no page shows them again for a second answer
            self._answer, self.moves = action, []
            self._bump()

    def quit(self) -> None:
        with self._changed:
            self._quit = True
            self._changed.notify_all()


class WebSeat:
    """The person's seat: every decision goes to the page and waits for its answer."""

    name = "human"

    def __init__(self, session: Session, table: Any):
        self.session, self.table = session, table

    def reset(self) -> None:
        pass

    def act(self, decision: Decision) -> int:
        return self.session.ask(self.table(decision.agent), dict(decision.legal_moves))


class StepLog:
    """A step observer that logs every applied step's moves as the person's seat may know them
    (``text_seen_by``), and refreshes his table after each step."""

    def __init__(self, session: Session, seat: int, table: Any, agent: str):
        self.session, self.seat, self.table, self.agent = session, seat, table, agent
        self._pending: list[str] = []

    def start(self, env: Any) -> None:
        self.session.log_step([], self.table(self.agent))

    def before(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...]) -> None:
        engine, state = env.engine, env.game_state
        self._pending = []
        for seat, action in zip(seats, actions, strict=True):
            text = text_seen_by(engine, engine.action_text(state, seat, action), seat, self.seat)
            who = "you" if seat == self.seat else f"player_{seat}"
            self._pending.append(f"{who}: {text}")

    def after(self, env: Any, seats: Any, actions: Any, info: Any) -> None:
        self.session.log_step(self._pending, self.table(self.agent))


class WebGame:
    """One game between a person at ``seat`` (in the browser) and agents; see the module doc.

    ``start()`` binds the server and starts the game; ``url`` is the page; ``wait()`` blocks
    until the game is over (the record is saved by then); ``close()`` stops the server and the
    game thread. Usable as a context manager. ``ValueError`` for a bad seat, agent, option or
    record path, before anything starts.
    """

    def __init__(
        self,
        game: str,
        seat: int,
        agents: Sequence[str],
        seed: int | None = None,
        env_kwargs: dict[str, Any] | None = None,
        record_path: str | Path | None = None,
        port: int = 0,
    ):
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}; known: {', '.join(GAMES)}")
        self.entry = GAMES[game]
        self.env_kwargs = dict(env_kwargs or {})
        self.env = self.entry.native_env(render_mode="ansi", **self.env_kwargs)
        names = self.env.possible_agents
        if not 0 <= seat < len(names):
            raise ValueError(f"--seat must be 0..{len(names) - 1}")
        # a seed always, so that the record replays the same deal
        self.seed = secrets.randbelow(2**31) if seed is None else int(seed)
        seats: dict[int, Any] = opponent_agents(game, seat, len(names), agents, self.seed)
        if record_path is None:
            self.record_path = default_record_path(game)
        else:
            self.record_path = Path(record_path)
            check_record_path(self.record_path)
        self.seat, self.agent = seat, names[seat]
        lineup = {names[s]: a.name for s, a in sorted(seats.items())}
        lineup[self.agent] = "you"
        self.session = Session(game, self.agent, dict(sorted(lineup.items())))
        self.table = table_renderer(self.env)
        seats[seat] = WebSeat(self.session, self.table)
        self.lineup = [seats[s] for s in range(len(names))]
        try:
            self.server = ThreadingHTTPServer(("127.0.0.1", port), _handler(self.session))
        except OSError as exc:  # the port is taken or not allowed
            raise OSError(f"--port {port}: cannot serve on 127.0.0.1 ({exc.strerror})") from None
        self.server.daemon_threads = True
        self.record: GameRecord | None = None
        self._threads: list[threading.Thread] = []
        self._done = threading.Event()

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/"

    def start(self) -> WebGame:
        for target in (self.server.serve_forever, self._play):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def _play(self) -> None:
        """The game thread: play, save the record, tell the page."""
        observer = StepLog(self.session, self.seat, self.table, self.agent)
        try:
            episode = play_episode(self.env, self.lineup, self.seed, record=True, observer=observer)
            self.record = GameRecord(
                env_id=self.entry.env_id,
                env_kwargs=self.env_kwargs,
                seed=self.seed,
                options={},
                moves=episode.moves,
                result=episode.result,
            )
            save_new(self.record, self.record_path)
            reward = episode.rewards[self.seat]
            self.session.finish(self.table(self.agent), episode.result, reward, self.record_path)
        except QuitGame:
            self.session.fail("closed before the end; nothing saved")
        except (ValueError, OSError) as exc:  # an agent's error, or the record cannot be written
            self.session.fail(str(exc))
        finally:
            self._done.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the end of the game; True if it is over."""
        return self._done.wait(timeout)

    def close(self) -> None:
        """Stop the game (if still waiting for the person) and the server; join the threads."""
        self.session.quit()
        if self._threads:  # shutdown waits for serve_forever: only once it was started
            self.server.shutdown()
        self.server.server_close()
        for thread in self._threads:
            thread.join(timeout=5)

    def __enter__(self) -> WebGame:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _handler(session: Session) -> type[BaseHTTPRequestHandler]:
    """The request handler class bound to ``session``."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path, _, query = self.path.partition("?")
            if path in ("/", "/index.html"):
                self._send(HTTPStatus.OK, PAGE.encode(), "text/html; charset=utf-8")
            elif path == "/api/state":
                since, log_from = _number(query, "since"), max(_number(query, "log"), 0)
                wait = POLL_WAIT_S if since >= 0 else 0.0
                self._json(HTTPStatus.OK, session.snapshot(since, wait, log_from))
            else:
                self._json(HTTPStatus.NOT_FOUND, {"error": f"no page {path}"})

        def do_POST(self) -> None:
            if self.path != "/api/move":
                self._json(HTTPStatus.NOT_FOUND, {"error": f"no page {self.path}"})
                return
            try:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"null")
                if not isinstance(body, dict) or "action" not in body:
                    raise ValueError('send {"action": <one of the legal actions>}')
                session.answer(body["action"])
            except ValueError as exc:  # bad JSON included
                self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
                return
            self._json(HTTPStatus.OK, {"ok": True})

        def _json(self, status: HTTPStatus, data: Any) -> None:
            self._send(status, json.dumps(data).encode(), "application/json")

        def _send(self, status: HTTPStatus, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the terminal shows only the command's own lines."""

    return Handler


def _number(query: str, name: str) -> int:
    """The integer ``name=N`` of a query string, or -1."""
    for part in query.split("&"):
        key, _, value = part.partition("=")
        if key == name and value.lstrip("-").isdigit():
            return int(value)
    return -1


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>kiaule play</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1em; background: #f4f1ea; color: #222; }
#wrap { display: flex; gap: 1em; flex-wrap: wrap; }
pre#table { background: #0b5d3b; color: #fff; padding: .8em; border-radius: 6px;
  font-size: 15px; min-width: 32em; white-space: pre-wrap; }
#side { flex: 1; min-width: 18em; }
#moves button { display: block; margin: .25em 0; padding: .4em .8em; font-size: 15px;
  cursor: pointer; min-width: 12em; text-align: left; }
#moves button.focus { outline: 3px solid #d98b00; }
#log { max-height: 22em; overflow-y: auto; background: #fff; padding: .5em;
  border: 1px solid #ccc; font-family: monospace; white-space: pre-wrap; }
#end { font-size: 1.2em; font-weight: bold; }
.hint { color: #666; font-size: .9em; }
</style></head>
<body>
<h2 id="title">kiaule</h2>
<p id="lineup" class="hint"></p>
<div id="wrap">
 <pre id="table">connecting…</pre>
 <div id="side">
  <div id="status"></div>
  <div id="moves"></div>
  <p class="hint">Click a move, or press its number (1–9), or ↑/↓ then Enter.</p>
  <div id="end"></div><pre id="result"></pre>
  <h3>Play so far</h3><div id="log"></div>
 </div>
</div>
<script>
"use strict";
let version = -1, focus = 0, buttons = [], lines = [];
function el(id) { return document.getElementById(id); }
function show(s) {
  el("title").textContent = "kiaule " + s.game + " — you are " + s.you;
  el("lineup").textContent = Object.entries(s.lineup).map(([a, n]) => a + ": " + n).join(" · ");
  el("table").textContent = s.table;
  const log = el("log");
  lines = lines.slice(0, s.log_from).concat(s.log);
  log.textContent = lines.join("\\n");
  log.scrollTop = log.scrollHeight;
  const moves = el("moves");
  moves.textContent = "";
  buttons = s.moves.map((m, i) => {
    const b = document.createElement("button");
    b.textContent = (i < 9 ? (i + 1) + ". " : "") + m.text;
    b.dataset.action = m.action;
    b.className = "move";
    b.onclick = () => send(m.action);
    moves.appendChild(b);
    return b;
  });
  focus = 0; mark();
  el("status").textContent = s.over ? "" :
    (s.moves.length ? "Your move:" : "The agents are playing…");
  if (s.over) {
    el("end").textContent = s.outcome || "Game over";
    el("end").dataset.over = "1";
    if (s.result) el("result").textContent = Object.entries(s.result)
      .map(([k, v]) => k.replaceAll("_", " ") + ": " + plain(v)).join("\\n") +
      (s.record ? "\\n\\nSaved record: " + s.record + "\\nReplay: kiaule view " + s.record : "");
  }
}
function plain(v) {  // a result value in words: lists joined, yes/no, none
  if (v === null) return "none";
  if (Array.isArray(v)) return v.map(plain).join(", ");
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "object") return Object.entries(v).map(([k, x]) => k + " " + plain(x))
    .join(", ");
  return String(v);
}
function mark() { buttons.forEach((b, i) => b.classList.toggle("focus", i === focus)); }
async function send(action) {
  buttons.forEach(b => b.disabled = true);
  const r = await fetch("/api/move", {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify({action: action})});
  if (!r.ok) { el("status").textContent = (await r.json()).error; }
}
document.addEventListener("keydown", e => {
  if (!buttons.length || buttons[0].disabled) return;
  if (e.key >= "1" && e.key <= "9" && +e.key <= buttons.length) {
    send(+buttons[+e.key - 1].dataset.action);
  } else if (e.key === "ArrowDown") { focus = (focus + 1) % buttons.length; mark(); }
  else if (e.key === "ArrowUp") {
    focus = (focus + buttons.length - 1) % buttons.length; mark();
  } else if (e.key === "Enter") { send(+buttons[focus].dataset.action); }
  else return;
  e.preventDefault();
});
async function poll() {
  for (;;) {
    try {
      const r = await fetch("/api/state?since=" + version + "&log=" + lines.length);
      const s = await r.json();
      if (s.version !== version) { version = s.version; show(s); }
      if (s.over) return;
    } catch (err) {
      el("status").textContent = "The server has stopped.";
      return;
    }
  }
}
poll();
</script></body></html>
"""


def serve(
    game: str,
    seat: int,
    agents: Sequence[str],
    seed: int | None = None,
    env_kwargs: dict[str, Any] | None = None,
    record_path: str | Path | None = None,
    port: int = 0,
    open_browser: bool = False,
    say: Any = print,
) -> GameRecord | None:
    """``kiaule play --web``: serve the page until the game is over (or Ctrl-C); return the
    saved record (None if the game was not finished)."""
    with WebGame(game, seat, agents, seed, env_kwargs, record_path, port) as web:
        say(f"Play {game} as {web.agent} at {web.url} (Ctrl-C stops)")
        if open_browser:
            import webbrowser

            webbrowser.open(web.url)
        try:
            while not web.wait(0.5):
                pass
        except KeyboardInterrupt:
            say("Stopped; nothing saved.")
            return None
        time.sleep(1.0)  # let the page fetch the final state before the server stops
    if web.record is not None:
        say(f"Result: {web.record.result}")
        say(f"Saved {web.record_path} (replay: kiaule view {web.record_path})")
    elif web.session.error:
        raise ValueError(web.session.error)
    return web.record
