"""The viewer page: one self-contained HTML file (inline CSS and JavaScript, no network).

The replay data of :func:`experiments.viewer.replay.build_replay` is embedded as JSON in a
``<script type="application/json" id="replay-data">`` element; the script renders the frame at
the current position. Keys: ← → one move, ↑ ↓ one trick (or turn), Home / End, ``o`` the
omniscient view, ``0``–``9`` one seat's view.

In a seat's view the page shows only what that player knew: the other hands face down, the
others' hidden moves masked (Kozel discards, Pig passes), no future moves, and the legal moves
only when he is to act.

Elements the browser test reads: ``#status`` (``data-pos``: the frame, ``data-mode``:
``omni`` or the seat), ``.seat[data-seat]`` with ``.card`` chips (``.back``: face down),
``#center .row[data-label]``, ``#moves li`` (``.last``: the move that led here), ``#outcome``,
``#table-text`` (``render()``) and ``#view-fields`` (the view data of the chosen seat).
"""

from __future__ import annotations

import html
import json
from typing import Any

_CSS = """
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.35 system-ui, sans-serif; background: #f3f1ea; color: #222; }
header { padding: 8px 14px; background: #29473a; color: #fff; display: flex; gap: 16px;
  align-items: baseline; flex-wrap: wrap; }
header h1 { font-size: 18px; margin: 0; }
header .meta { opacity: .85; font-size: 12px; }
main { display: grid; grid-template-columns: minmax(560px, 1fr) 380px; gap: 12px; padding: 12px; }
#controls { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; margin-bottom: 8px; }
#controls button { font-size: 14px; padding: 3px 8px; }
#status { font-weight: 600; margin-left: 8px; }
.hint { color: #666; font-size: 12px; }
#table { background: radial-gradient(#3c7d52, #22583a); border-radius: 18px; padding: 10px;
  box-shadow: inset 0 0 30px #0006; display: grid; gap: 10px; min-height: 520px;
  grid-template-columns: minmax(150px, 1fr) minmax(250px, 1.3fr) minmax(150px, 1fr);
  grid-template-rows: auto 1fr auto;
  grid-template-areas: ". top ." "left center right" ". bottom ."; }
.seat { background: #fffc; border-radius: 8px; padding: 5px 8px; border: 3px solid transparent;
  align-self: center; justify-self: center; min-width: 150px; }
.seat.to-act { border-color: #f5c400; box-shadow: 0 0 10px #f5c400; }
.seat.me { outline: 2px dashed #1b5fc1; }
.seat .name { font-weight: 600; }
.seat .agent { color: #555; font-size: 12px; }
.seat .note { color: #444; font-size: 12px; }
.seat .reward { float: right; font-weight: 600; margin-left: 10px; }
.pos-bottom { grid-area: bottom; }
.pos-top { grid-area: top; }
.pos-left { grid-area: left; }
.pos-right { grid-area: right; }
.hand { display: flex; flex-wrap: wrap; gap: 2px; margin-top: 3px; }
.card { display: inline-block; min-width: 28px; padding: 3px 3px; text-align: center;
  background: #fff; border: 1px solid #888; border-radius: 4px; font-weight: 600;
  font-size: 13px; }
.card.red { color: #c0141c; }
.card.back { background: repeating-linear-gradient(45deg, #2c4e9e, #2c4e9e 3px, #4a6fc4 3px,
  #4a6fc4 6px); color: transparent; border-color: #1c3470; }
.hand.many .card { min-width: 22px; font-size: 11px; padding: 2px 1px; }
#center { grid-area: center; align-self: center; background: #0003; color: #fff;
  border-radius: 10px; padding: 6px 10px; }
#center .row { display: flex; gap: 6px; align-items: center; margin: 2px 0; flex-wrap: wrap; }
#center .label { color: #d8f0dd; font-size: 12px; min-width: 70px; }
#center .row[data-label^="last "] .text { font-size: 12px; color: #e4efe6; }
#center .card { color: #222; }
#center .card.red { color: #c0141c; }
#outcome { margin-top: 10px; padding: 8px 10px; background: #fff6d6; border: 2px solid #d9a400;
  border-radius: 8px; }
#outcome[hidden] { display: none; }
#outcome h2 { margin: 0 0 4px; font-size: 16px; }
pre#table-text { background: #fff; border: 1px solid #ccc; padding: 6px 8px; font-size: 12px;
  margin: 10px 0 0; white-space: pre-wrap; }
aside { display: flex; flex-direction: column; gap: 10px; min-width: 0; }
aside section { background: #fff; border: 1px solid #ccc; border-radius: 6px; padding: 6px 8px; }
aside h2 { font-size: 14px; margin: 0 0 4px; }
#moves { max-height: 330px; overflow-y: auto; margin: 0; padding-left: 38px; font-size: 13px; }
#moves li { cursor: pointer; }
#moves li.unit-start { border-top: 1px solid #bbb; margin-top: 3px; padding-top: 2px; }
#moves li.done { color: #333; }
#moves li.future { color: #999; }
#moves li.last { background: #ffe680; color: #000; font-weight: 600; }
#view-fields { font-size: 12px; border-collapse: collapse; width: 100%; }
#view-fields td { border-top: 1px solid #eee; padding: 1px 4px; vertical-align: top;
  word-break: break-word; }
#view-fields td:first-child { color: #555; white-space: nowrap; }
#view-box { max-height: 380px; overflow-y: auto; }
"""

_JS = r"""
const DATA = JSON.parse(document.getElementById('replay-data').textContent);
const N = DATA.frames.length - 1;
const SEATS = DATA.agents.length;
let pos = 0, mode = 'omni';
const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
};
const RED = /[\u2665\u2666]|^RJ$/;
function card(sym) {
  if (sym === null || sym === '\u2592') { const b = el('span', 'card back', '\u2592'); return b; }
  return el('span', 'card' + (RED.test(sym) ? ' red' : ''), sym);
}
function moveText(i) {
  // a move as the chosen viewer saw it: another seat's hidden move masked, the future unknown
  const m = DATA.moves[i];
  if (mode !== 'omni') {
    if (i >= pos) return m[0] + ': \u2026';
    if (DATA.agents[mode] !== m[0] && DATA.hidden[String(i)] !== undefined) {
      return m[0] + ': ' + DATA.hidden[String(i)];
    }
  }
  const note = DATA.notes && DATA.notes[i] ? ' (' + DATA.notes[i] + ')' : '';
  return m[0] + ': ' + m[2] + note;
}
function fmtReward(r) { return (r > 0 ? '+' : '') + (Math.round(r * 1000) / 1000); }
function unitStart(i) {
  const u = DATA.frames[i].unit;
  while (i > 0 && DATA.frames[i - 1].unit === u) i--;
  return i;
}
function nextUnit() {
  const u = DATA.frames[pos].unit;
  let j = pos + 1;
  while (j < N && DATA.frames[j].unit === u) j++;
  go(Math.min(j, N));
}
function prevUnit() {
  const s = unitStart(pos);
  go(s < pos ? s : (s > 0 ? unitStart(s - 1) : 0));
}
function places(n) {
  if (n === 2) return ['bottom', 'top'];
  if (n === 3) return ['bottom', 'left', 'right'];
  return ['bottom', 'left', 'top', 'right'];
}
function seatView(f, s) {
  const merged = Object.assign({}, f.public, f.private[s]);
  const out = {};
  DATA.fields.forEach((k) => { if (k in merged) out[k] = merged[k]; });
  return out;
}
const isCards = (v) => Array.isArray(v) && v.every((x) => typeof x === 'string' || x === null);
const isPlay = (x) => x !== null && typeof x === 'object' && 'seat' in x && 'cards' in x;
function showValue(v) {
  if (Array.isArray(v)) {
    if (isCards(v)) return v.map((x) => x === null ? '-' : x).join(' ') || '()';
    if (v.length && v.every(isCards)) return v.map((x) => showValue(x)).join(' | ');
    if (v.length && v.every(isPlay)) {
      return v.map((x) => 'player_' + x.seat + (x.kind ? ' ' + x.kind : '') + ' ' +
        (x.cards.length ? x.cards.join(' ') : '\u2592')).join('; ');
    }
    return JSON.stringify(v);
  }
  if (v !== null && typeof v === 'object') return JSON.stringify(v);
  return String(v);
}
function buildStatic() {
  document.title = DATA.title + ' replay: game ' + DATA.index;
  $('title').textContent = DATA.title + ' replay';
  const who = DATA.agents.map((a, s) => a + (DATA.seats ? ' = ' + DATA.seats[s] : '')).join(', ');
  $('meta').textContent = DATA.source + ' · game ' + DATA.index + ' of ' + DATA.count +
    (DATA.key ? ' · key ' + JSON.stringify(DATA.key) : '') + ' · seed ' + DATA.seed +
    (Object.keys(DATA.env_kwargs).length ? ' · ' + JSON.stringify(DATA.env_kwargs) : '') +
    ' · ' + who;
  const sel = $('mode');
  sel.appendChild(new Option('omniscient (every hand)', 'omni'));
  DATA.agents.forEach((a, s) => sel.appendChild(
    new Option(a + "'s view" + (DATA.seats ? ' (' + DATA.seats[s] + ')' : ''), String(s))));
  sel.addEventListener('change', () => setMode(sel.value));
  const list = $('moves');
  DATA.moves.forEach((m, i) => {
    const li = el('li', '', '');
    li.dataset.i = i;
    if (i > 0 && DATA.frames[i].unit !== DATA.frames[i - 1].unit) li.classList.add('unit-start');
    li.addEventListener('click', () => go(i + 1));
    list.appendChild(li);
  });
  const t = $('table');
  const pl = places(SEATS);
  for (let s = 0; s < SEATS; s++) {
    const box = el('div', 'seat pos-' + pl[s]);
    box.dataset.seat = s;
    const head = el('div');
    head.appendChild(el('span', 'name', DATA.agents[s]));
    head.appendChild(el('span', 'reward'));
    box.appendChild(head);
    if (DATA.seats) box.appendChild(el('div', 'agent', DATA.seats[s]));
    box.appendChild(el('div', 'note'));
    box.appendChild(el('div', 'hand'));
    t.appendChild(box);
  }
  document.querySelectorAll('#controls button').forEach((b) => b.addEventListener('click', () => {
    const a = b.dataset.act;
    if (a === 'first') go(0); else if (a === 'last') go(N);
    else if (a === 'prev') go(pos - 1); else if (a === 'next') go(pos + 1);
    else if (a === 'prevunit') prevUnit(); else if (a === 'nextunit') nextUnit();
  }));
}
function setMode(m) {
  mode = (m === 'omni' || m === null) ? 'omni' : Number(m);
  if (mode !== 'omni' && !(mode >= 0 && mode < SEATS)) mode = 'omni';
  $('mode').value = String(mode);
  render();
}
function go(i) { pos = Math.max(0, Math.min(N, i)); render(); }
function render() {
  const f = DATA.frames[pos];
  const st = $('status');
  st.dataset.pos = pos;
  st.dataset.mode = String(mode);
  const unitNo = new Set(DATA.frames.slice(0, pos + 1).map((x) => x.unit)).size;
  st.textContent = 'move ' + pos + ' / ' + N + ' \u00b7 ' + DATA.unit + ' ' + unitNo +
    (f.to_act ? ' \u00b7 ' + f.to_act + ' to act' : ' \u00b7 game over');
  // seats
  const seen = mode === 'omni' ? null : f.seen[Math.min(mode, f.seen.length - 1)];
  for (let s = 0; s < SEATS; s++) {
    const box = document.querySelector('.seat[data-seat="' + s + '"]');
    box.classList.toggle('to-act', f.to_act === DATA.agents[s]);
    box.classList.toggle('me', mode === s);
    box.querySelector('.reward').textContent = fmtReward(f.rewards[s]);
    box.querySelector('.note').textContent = f.notes[s] || '';
    const hand = box.querySelector('.hand');
    hand.replaceChildren();
    const cards = seen ? seen[s] : f.hands[s];
    hand.classList.toggle('many', cards.length > 12);
    cards.forEach((c) => hand.appendChild(card(c)));
    if (!cards.length) hand.appendChild(el('span', 'note', '(no cards)'));
  }
  // centre
  const rows = (mode === 'omni' ? f.extras.omni : (f.extras.seats[mode] || f.extras.omni));
  const c = $('center');
  c.replaceChildren();
  const startHere = unitStart(pos);
  if (startHere > 0) {
    const prevStart = unitStart(startHere - 1);
    const last = [];
    for (let i = prevStart; i < startHere; i++) last.push(moveText(i).replace(': ', ' '));
    c.appendChild(rowEl({label: 'last ' + DATA.unit, text: last.join('; '), cards: []}));
  }
  rows.forEach((r) => c.appendChild(rowEl(r)));
  // text, view, moves, outcome
  $('table-text').textContent = f.table;
  renderView(f);
  document.querySelectorAll('#moves li').forEach((li) => {
    const i = Number(li.dataset.i);
    li.className = (li.className.includes('unit-start') ? 'unit-start ' : '') +
      (i === pos - 1 ? 'last' : i < pos ? 'done' : 'future');
    li.textContent = moveText(i);
  });
  const lastLi = document.querySelector('#moves li.last');
  if (lastLi) lastLi.scrollIntoView({block: 'nearest'});
  // the legal moves reveal the hand: shown to the onlooker and to the player to act only
  const mayShow = f.to_act && (mode === 'omni' || DATA.agents[mode] === f.to_act);
  $('legal').textContent = mayShow ? f.to_act + ' may: ' + f.legal.join(' | ') : '';
  const out = $('outcome');
  out.hidden = pos !== N;
  if (pos === N) renderOutcome();
}
function rowEl(r) {
  const row = el('div', 'row');
  row.dataset.label = r.label;
  row.appendChild(el('span', 'label', r.label));
  if (r.text) row.appendChild(el('span', 'text', r.text));
  if (r.cards && r.cards.length) {
    const h = el('span', 'hand');
    r.cards.forEach((x) => h.appendChild(card(x)));
    row.appendChild(h);
  }
  return row;
}
function renderView(f) {
  const tb = $('view-fields');
  tb.replaceChildren();
  const add = (k, v) => {
    const tr = el('tr');
    tr.dataset.field = k;
    tr.appendChild(el('td', '', k));
    tr.appendChild(el('td', '', v));
    tb.appendChild(tr);
  };
  if (mode === 'omni') {
    $('view-title').textContent = 'Omniscient: the union of every seat\'s view';
    DATA.fields.forEach((k) => { if (k in f.public) add(k, showValue(f.public[k])); });
    for (let s = 0; s < SEATS; s++) {
      DATA.fields.forEach((k) => {
        if (k === 'seat' || !(k in f.private[s])) return;
        add(DATA.agents[s] + '.' + k, showValue(f.private[s][k]));
      });
    }
  } else {
    $('view-title').textContent = DATA.agents[mode] + '\'s view (what the agent got)';
    for (const [k, v] of Object.entries(seatView(f, mode))) add(k, showValue(v));
  }
}
function renderOutcome() {
  const o = $('outcome-body');
  o.replaceChildren();
  const res = DATA.result || {};
  for (const [k, v] of Object.entries(res)) {
    const d = el('div', 'result-field', k + ': ' + showValue(v));
    d.dataset.field = k;
    o.appendChild(d);
  }
  const who = (a, s) => a + (DATA.seats ? ' (' + DATA.seats[s] + ')' : '');
  const text = DATA.agents.map((a, s) => who(a, s) + ' ' + fmtReward(DATA.rewards[s]));
  const r = el('div', 'rewards', 'rewards: ' + text.join(', '));
  o.appendChild(r);
}
document.addEventListener('keydown', (e) => {
  if (e.target && e.target.tagName === 'SELECT') e.target.blur();
  const k = e.key;
  if (k === 'ArrowRight') go(pos + 1);
  else if (k === 'ArrowLeft') go(pos - 1);
  else if (k === 'ArrowDown') nextUnit();
  else if (k === 'ArrowUp') prevUnit();
  else if (k === 'Home') go(0);
  else if (k === 'End') go(N);
  else if (k === 'o' || k === 'a') setMode('omni');
  else if (/^[0-9]$/.test(k) && Number(k) < SEATS) setMode(k);
  else return;
  e.preventDefault();
});
buildStatic();
render();
"""

_BODY = """<header><h1 id="title"></h1><span class="meta" id="meta"></span></header>
<main>
<div>
<div id="controls">
<button data-act="first" title="Home: the start">|&#x25C0;</button>
<button data-act="prevunit" title="&#x2191;: previous {unit}">&#x25C0;&#x25C0; {unit}</button>
<button data-act="prev" title="&#x2190;: previous move">&#x25C0; move</button>
<button data-act="next" title="&#x2192;: next move">move &#x25B6;</button>
<button data-act="nextunit" title="&#x2193;: next {unit}">{unit} &#x25B6;&#x25B6;</button>
<button data-act="last" title="End: the end">&#x25B6;|</button>
<select id="mode" title="o: omniscient, 0-9: a seat's view"></select>
<span id="status"></span>
</div>
<div class="hint">keys: &#x2190; &#x2192; move &#xB7; &#x2191; &#x2193; {unit} &#xB7;
Home End &#xB7; o omniscient &#xB7; 0&#x2013;{last_seat} a seat's view</div>
<div id="table"><div id="center"></div></div>
<div id="legal" class="hint"></div>
<div id="outcome" hidden><h2>Outcome</h2><div id="outcome-body"></div></div>
<pre id="table-text"></pre>
</div>
<aside>
<section><h2>Moves</h2><ol id="moves" start="1"></ol></section>
<section id="view-box"><h2 id="view-title"></h2><table id="view-fields"></table></section>
</aside>
</main>
"""


def render_html(data: dict[str, Any]) -> str:
    """The self-contained viewer page for the replay data of ``build_replay``."""
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    payload = payload.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    title = html.escape(f"{data['title']} replay: game {data['index']}")
    body = _BODY.format(unit=html.escape(data["unit"]), last_seat=len(data["agents"]) - 1)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{title}</title>\n"
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
        f"<style>{_CSS}</style>\n</head>\n<body>\n{body}"
        f'<script type="application/json" id="replay-data">{payload}</script>\n'
        f"<script>{_JS}</script>\n</body>\n</html>\n"
    )


def extract_data(page: str) -> dict[str, Any]:
    """The replay data embedded in a page written by :func:`render_html` (tests, tools)."""
    start_tag = '<script type="application/json" id="replay-data">'
    start = page.index(start_tag) + len(start_tag)
    end = page.index("</script>", start)
    return json.loads(page[start:end])
