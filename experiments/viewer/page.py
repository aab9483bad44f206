"""The viewer page: one self-contained HTML file (inline CSS and JavaScript, no network).

The replay data of :func:`experiments.viewer.replay.build_replay` is embedded as JSON in a
``<script type="application/json" id="replay-data">`` element, its frames delta-encoded
(:func:`encode_frames`: a page of a 400-move game stays under 300 KB); the script rebuilds them
and renders the frame at the current position. Keys: ← → one move (Pig: one whole simultaneous
exchange, P2), ↑ ↓ one trick (or turn), Home / End, space autoplay (at the ``#speed`` chosen),
``o`` the omniscient view, ``0``–``9`` one seat's view.

In a seat's view the page shows only what that player knew: the other hands face down, the
others' hidden moves masked (Kozel discards, Pig passes), no future moves, and the legal moves
only when he is to act.

Elements the browser test reads: ``#status`` (``data-pos``: the frame, ``data-mode``:
``omni`` or the seat), ``.seat[data-seat]`` with ``.card`` chips (``.back``: face down),
``#center .row[data-label]``, ``#moves li`` (``.last``: the move that led here), ``#outcome``,
``#table-text`` (``render()``), ``#view-fields`` (the view data of the chosen seat), the last
trick's ``#center .play[data-move]`` cards, ``#play`` / ``#speed`` (``#status[data-playing]``)
and ``#policy .prob[data-move]`` (the move probabilities a record carries, shown where the
legal moves are).
"""

from __future__ import annotations

import difflib
import html
import itertools
import json
from typing import Any

_CSS = """
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.35 system-ui, sans-serif; background: #f3f1ea; color: #222; }
header { padding: 8px 14px; background: #29473a; color: #fff; display: flex; gap: 16px;
  align-items: baseline; flex-wrap: wrap; }
header h1 { font-size: 18px; margin: 0; }
header .meta { opacity: .85; font-size: 12px; }
main { display: grid; grid-template-columns: minmax(0, 1fr) 360px; gap: 12px; padding: 12px; }
@media (max-width: 1180px) { main { grid-template-columns: minmax(0, 1fr); } }
#controls { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; margin-bottom: 8px; }
#controls button, #controls select { font-size: 14px; padding: 3px 8px; }
#status { font-weight: 600; margin-left: 8px; }
.hint { color: #666; font-size: 12px; }
#table { background: radial-gradient(#3c7d52, #22583a); border-radius: 18px; padding: 10px;
  box-shadow: inset 0 0 30px #0006; display: grid; gap: 10px; min-height: 480px;
  grid-template-columns: minmax(0, 1fr) minmax(0, 1.4fr) minmax(0, 1fr);
  grid-template-rows: auto 1fr auto;
  grid-template-areas: ". top ." "left center right" ". bottom ."; }
.seat { background: #fffc; border-radius: 8px; padding: 5px 8px; border: 3px solid transparent;
  align-self: center; justify-self: center; min-width: 0; max-width: 100%; }
.pos-top, .pos-bottom { min-width: 150px; }
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
  border-radius: 10px; padding: 6px 10px; min-width: 0; }
#center .row { display: flex; gap: 6px; align-items: center; margin: 2px 0; flex-wrap: wrap; }
#center .label { color: #d8f0dd; font-size: 12px; min-width: 70px; }
#center .row > .text { flex: 1 1 140px; min-width: 0; }
#center .card { color: #222; }
#center .card.red { color: #c0141c; }
.played { display: flex; flex-wrap: wrap; gap: 8px; }
.play { display: flex; flex-direction: column; align-items: center; font-size: 11px; }
.play .who { color: #d8f0dd; }
.play .what { color: #e4efe6; max-width: 120px; text-align: center; }
#outcome { margin-top: 10px; padding: 8px 10px; background: #fff6d6; border: 2px solid #d9a400;
  border-radius: 8px; }
#outcome[hidden] { display: none; }
#outcome h2 { margin: 0 0 4px; font-size: 16px; }
pre#table-text { background: #fff; border: 1px solid #ccc; padding: 6px 8px; font-size: 12px;
  margin: 10px 0 0; white-space: pre-wrap; overflow-wrap: anywhere; }
aside { display: flex; flex-direction: column; gap: 10px; min-width: 0; }
aside section { background: #fff; border: 1px solid #ccc; border-radius: 6px; padding: 6px 8px;
  min-width: 0; }
aside h2 { font-size: 14px; margin: 0 0 4px; }
#moves { max-height: 330px; overflow-y: auto; margin: 0; padding-left: 38px; font-size: 13px;
  position: relative; }
#moves li { cursor: pointer; }
#moves li.unit-start { border-top: 1px solid #bbb; margin-top: 3px; padding-top: 2px; }
#moves li.done { color: #333; }
#moves li.future { color: #999; }
#moves li.last { background: #ffe680; color: #000; font-weight: 600; }
#policy[hidden] { display: none; }
#policy .prob { display: grid; grid-template-columns: minmax(0, 1fr) 110px 44px; gap: 6px;
  align-items: center; font-size: 12px; }
#policy .prob.chosen { font-weight: 700; }
#policy .bar { height: 10px; background: #e4e4e4; border-radius: 3px; overflow: hidden; }
#policy .bar span { display: block; height: 100%; background: #3c7d52; }
#policy .pct { text-align: right; }
#view-fields { font-size: 12px; border-collapse: collapse; width: 100%; table-layout: fixed; }
#view-fields td { border-top: 1px solid #eee; padding: 1px 4px; vertical-align: top;
  overflow-wrap: anywhere; }
#view-fields td:first-child { color: #555; width: 40%; }
#view-box { max-height: 380px; overflow-y: auto; }
"""

_JS = r"""
const DATA = JSON.parse(document.getElementById('replay-data').textContent);
// frames come delta-encoded (each one a patch of the one before): rebuild them, sharing
// what did not change
function patch(base, p) {
  if (Array.isArray(p)) return p[0];
  if (typeof base === 'string') {
    const [at, removed, text] = p['~'];
    return base.slice(0, at) + text + base.slice(at + removed);
  }
  const arr = Array.isArray(base);
  const out = arr ? base.slice() : Object.assign({}, base);
  if (arr && p['*']) p['*'].forEach(([at, removed, items]) => out.splice(at, removed, ...items));
  for (const k of Object.keys(p)) {
    if (k === '*') continue;
    const q = p[k];
    if (Array.isArray(q) && q.length === 0) delete out[k];
    else out[arr ? Number(k) : k] = patch(out[arr ? Number(k) : k], q);
  }
  return out;
}
(function decode() {
  const fs = [DATA.frames[0]];
  for (let i = 1; i < DATA.frames.length; i++) fs.push(patch(fs[i - 1], DATA.frames[i]));
  fs.forEach((f) => { if (Array.isArray(f.table)) f.table = f.table.join('\n'); });
  DATA.frames = fs;
})();
const N = DATA.frames.length - 1;
const SEATS = DATA.agents.length;
const SIM = !!DATA.simultaneous;
// the positions one can stand at: every move, or (simultaneous games) every whole step
const STOPS = [];
for (let i = 0; i <= N; i++) {
  if (!SIM || i === 0 || i === N || DATA.frames[i].unit !== DATA.frames[i - 1].unit) STOPS.push(i);
}
let pos = 0, mode = 'omni', timer = null;
const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
};
const RED = /[\u2665\u2666]|^RJ$/;
function card(sym) {
  if (sym === null || sym === '\u2592') return el('span', 'card back', '\u2592');
  return el('span', 'card' + (RED.test(sym) ? ' red' : ''), sym);
}
function hiddenTo(i) {
  return mode !== 'omni' && DATA.agents[mode] !== DATA.moves[i][0] &&
    DATA.hidden[String(i)] !== undefined;
}
function moveText(i) {
  // a move as the chosen viewer saw it: another seat's hidden move masked, the future unknown
  const m = DATA.moves[i];
  if (mode !== 'omni') {
    if (i >= pos) return m[0] + ': \u2026';
    if (hiddenTo(i)) return m[0] + ': ' + DATA.hidden[String(i)];
  }
  const note = DATA.notes && DATA.notes[i] ? ' (' + DATA.notes[i] + ')' : '';
  return m[0] + ': ' + m[2] + note;
}
function moveCards(i) {
  if (hiddenTo(i)) return DATA.hidden[String(i)].split(' ').filter((t) => t === '\u2592');
  return DATA.move_cards[i];
}
function fmtReward(r) { return (r > 0 ? '+' : '') + (Math.round(r * 1000) / 1000); }
function unitStart(i) {
  const u = DATA.frames[i].unit;
  while (i > 0 && DATA.frames[i - 1].unit === u) i--;
  return i;
}
function stopAfter(i) { return STOPS.find((s) => s >= i); }
function stopIndex() { return STOPS.indexOf(pos); }
function step(d) { go(STOPS[Math.max(0, Math.min(STOPS.length - 1, stopIndex() + d))]); }
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
const seatName = (n) => n === null || n < 0 ? 'nobody' : 'player_' + n;
function showValue(v, field) {
  // a value for people: seats by name, phases by word, yes / no, lists without brackets
  if (field && DATA.seat_fields.includes(field) && typeof v === 'number') return seatName(v);
  if (field === 'phase' && DATA.phase_names && typeof v === 'number') {
    return DATA.phase_names[v] || String(v);
  }
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (v === null || v === undefined) return '\u2014';
  if (Array.isArray(v)) {
    if (!v.length) return '\u2014';
    if (isCards(v)) return v.map((x) => x === null ? '-' : x).join(' ');
    if (v.every(isCards)) return v.map((x) => showValue(x)).join(' | ');
    if (v.every(isPlay)) {
      return v.map((x) => 'player_' + x.seat + (x.kind ? ' ' + x.kind : '') + ' ' +
        (x.cards.length ? x.cards.join(' ') : '\u2592')).join('; ');
    }
    return v.map((x) => showValue(x)).join(', ');
  }
  if (typeof v === 'object') {
    return Object.entries(v).map(([k, x]) => k.replace(/_/g, ' ') + ' ' + showValue(x, k))
      .join(' \u00b7 ');
  }
  return String(v);
}
function buildStatic() {
  document.title = DATA.title + ' replay: game ' + DATA.index;
  $('title').textContent = DATA.title + ' replay';
  const who = DATA.agents.map((a, s) => a + (DATA.seats ? ' = ' + DATA.seats[s] : '')).join(', ');
  const kw = Object.entries(DATA.env_kwargs).map(([k, v]) => k.replace(/_/g, ' ') + ' ' +
    showValue(v));
  $('meta').textContent = DATA.source + ' \u00b7 game ' + DATA.index + ' of ' + DATA.count +
    (DATA.key ? ' \u00b7 deal ' + DATA.key[0] : '') + ' \u00b7 seed ' + DATA.seed +
    (kw.length ? ' \u00b7 ' + kw.join(', ') : '') + ' \u00b7 ' + who;
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
    li.addEventListener('click', () => go(stopAfter(i + 1)));
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
  document.querySelectorAll('#controls button[data-act]').forEach((b) =>
    b.addEventListener('click', () => {
      const a = b.dataset.act;
      if (a === 'first') go(0); else if (a === 'last') go(N);
      else if (a === 'prev') step(-1); else if (a === 'next') step(1);
      else if (a === 'prevunit') prevUnit(); else if (a === 'nextunit') nextUnit();
      else if (a === 'play') togglePlay();
    }));
  $('speed').addEventListener('change', () => { if (timer !== null) { stop(); play(); } });
}
function delay() { return 1000 / Number($('speed').value); }
function play() {
  if (pos === N) go(0);
  timer = setInterval(() => { if (pos >= N) stop(); else step(1); }, delay());
  showPlaying();
}
function stop() { if (timer !== null) clearInterval(timer); timer = null; showPlaying(); }
function togglePlay() { if (timer === null) play(); else stop(); }
function showPlaying() {
  const b = $('play');
  b.textContent = timer === null ? '\u25B6 play' : '\u23F8 pause';
  $('status').dataset.playing = timer === null ? 'no' : 'yes';
}
function setMode(m) {
  mode = (m === 'omni' || m === null) ? 'omni' : Number(m);
  if (mode !== 'omni' && !(mode >= 0 && mode < SEATS)) mode = 'omni';
  $('mode').value = String(mode);
  render();
}
function go(i) {
  pos = stopAfter(Math.max(0, Math.min(N, i)));
  if (pos >= N && timer !== null) stop();
  render();
}
function stepMoves() {
  // the moves decided at this position: one, or a whole simultaneous step
  if (pos >= N) return [];
  const end = SIM ? (STOPS[stopIndex() + 1] || N) : pos + 1;
  const out = [];
  for (let i = pos; i < end; i++) out.push(i);
  return out;
}
function statusText(f) {
  const units = new Set(DATA.frames.slice(0, Math.max(pos, 1)).map((x) => x.unit)).size;
  if (pos === N) {
    // the units played, not the one that never starts after the last move
    const plural = units === 1 ? '' : 's';
    return 'move ' + pos + ' / ' + N + ' \u00b7 ' + units + ' ' + DATA.unit + plural +
      ' played \u00b7 game over';
  }
  const unitNo = new Set(DATA.frames.slice(0, pos + 1).map((x) => x.unit)).size;
  const acting = SIM ? stepMoves().map((i) => DATA.moves[i][0]) : [f.to_act];
  return 'move ' + pos + ' / ' + N + ' \u00b7 ' + DATA.unit + ' ' + unitNo + ' \u00b7 ' +
    (SIM ? acting.join(', ') + ' choose at once' : f.to_act + ' to act');
}
function render() {
  const f = DATA.frames[pos];
  const st = $('status');
  st.dataset.pos = pos;
  st.dataset.mode = String(mode);
  st.textContent = statusText(f);
  const acting = new Set(stepMoves().map((i) => DATA.moves[i][0]));
  // seats
  const seen = mode === 'omni' ? null : f.seen[Math.min(mode, f.seen.length - 1)];
  for (let s = 0; s < SEATS; s++) {
    const box = document.querySelector('.seat[data-seat="' + s + '"]');
    box.classList.toggle('to-act', acting.has(DATA.agents[s]));
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
  // centre: the last completed trick (or turn, exchange) as cards, then the game's rows
  const rows = (mode === 'omni' ? f.extras.omni : (f.extras.seats[mode] || f.extras.omni));
  const c = $('center');
  c.replaceChildren();
  const startHere = pos === N ? N : unitStart(pos);
  if (startHere > 0) c.appendChild(lastUnit(unitStart(startHere - 1), startHere));
  rows.forEach((r) => c.appendChild(rowEl(r)));
  // text, view, moves, outcome
  $('table-text').textContent = f.table;
  renderView(f);
  const lastStep = new Set();
  if (pos > 0) {
    const from = SIM ? STOPS[stopIndex() - 1] : pos - 1;
    for (let i = from; i < pos; i++) lastStep.add(i);
  }
  document.querySelectorAll('#moves li').forEach((li) => {
    const i = Number(li.dataset.i);
    li.className = (li.className.includes('unit-start') ? 'unit-start ' : '') +
      (lastStep.has(i) ? 'last' : i < pos ? 'done' : 'future');
    li.textContent = moveText(i);
  });
  scrollMoves();
  renderLegal();
  renderPolicy();
  const out = $('outcome');
  out.hidden = pos !== N;
  if (pos === N) renderOutcome();
}
function scrollMoves() {
  // keep the last move in sight inside the list only: the page itself never jumps
  const list = $('moves');
  const li = list.querySelector('li.last') || list.querySelector('li.future');
  if (!li) return;
  const top = li.offsetTop;
  if (top < list.scrollTop || top + li.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = Math.max(0, top - list.clientHeight / 2);
  }
}
function lastUnit(from, to) {
  const row = el('div', 'row');
  row.dataset.label = 'last ' + DATA.unit;
  row.appendChild(el('span', 'label', 'last ' + DATA.unit));
  const box = el('div', 'played');
  for (let i = from; i < to; i++) {
    const p = el('div', 'play');
    p.dataset.move = i;
    p.appendChild(el('span', 'who', DATA.moves[i][0]));
    const cards = moveCards(i);
    if (cards.length) {
      const h = el('span', 'hand');
      cards.forEach((x) => h.appendChild(card(x)));
      p.appendChild(h);
    }
    const words = moveText(i).slice(DATA.moves[i][0].length + 2);
    p.appendChild(el('span', 'what', cards.length ? words.split(' ')[0] : words));
    box.appendChild(p);
  }
  row.appendChild(box);
  return row;
}
function mayKnow(agent) { return mode === 'omni' || DATA.agents[mode] === agent; }
function renderLegal() {
  // the legal moves reveal the hand: shown to the onlooker and to the player to act only
  const parts = [];
  stepMoves().forEach((i) => {
    const a = DATA.moves[i][0];
    if (mayKnow(a)) parts.push(a + ' may: ' + DATA.frames[i].legal.join(' | '));
  });
  $('legal').textContent = parts.join(' \u00b7 ');
}
function renderPolicy() {
  const box = $('policy');
  const list = $('policy-list');
  list.replaceChildren();
  const shown = DATA.policies ? stepMoves().filter((i) => DATA.policies[i] &&
    mayKnow(DATA.moves[i][0])) : [];
  box.hidden = !shown.length;
  shown.forEach((i) => {
    list.appendChild(el('div', 'who', DATA.moves[i][0] + "'s probabilities"));
    DATA.policies[i].forEach(([text, p]) => {
      const r = el('div', 'prob' + (text === DATA.moves[i][2] ? ' chosen' : ''));
      r.dataset.move = text;
      r.appendChild(el('span', 'text', text));
      const bar = el('span', 'bar');
      const fill = el('span');
      fill.style.width = (100 * p).toFixed(1) + '%';
      bar.appendChild(fill);
      r.appendChild(bar);
      r.appendChild(el('span', 'pct', (100 * p).toFixed(1) + '%'));
      list.appendChild(r);
    });
  });
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
const label = (k) => k.replace(/_/g, ' ');
function renderView(f) {
  const tb = $('view-fields');
  tb.replaceChildren();
  const add = (key, name, v, field) => {
    const tr = el('tr');
    tr.dataset.field = key;
    tr.appendChild(el('td', '', name));
    tr.appendChild(el('td', '', showValue(v, field)));
    tb.appendChild(tr);
  };
  if (mode === 'omni') {
    $('view-title').textContent = 'Omniscient: the union of every seat\'s view';
    DATA.fields.forEach((k) => { if (k in f.public) add(k, label(k), f.public[k], k); });
    for (let s = 0; s < SEATS; s++) {
      DATA.fields.forEach((k) => {
        if (k === 'seat' || !(k in f.private[s])) return;
        add(DATA.agents[s] + '.' + k, DATA.agents[s] + ' ' + label(k), f.private[s][k], k);
      });
    }
  } else {
    $('view-title').textContent = DATA.agents[mode] + '\'s view (what the agent got)';
    for (const [k, v] of Object.entries(seatView(f, mode))) add(k, label(k), v, k);
  }
}
function resultValue(k, v) {
  if (typeof v === 'string' && /^player_\d+$/.test(v)) return v;
  return showValue(v, k);
}
function renderOutcome() {
  const o = $('outcome-body');
  o.replaceChildren();
  const res = DATA.result || {};
  for (const [k, v] of Object.entries(res)) {
    const d = el('div', 'result-field', label(k) + ': ' + resultValue(k, v));
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
  if (k === 'ArrowRight') step(1);
  else if (k === 'ArrowLeft') step(-1);
  else if (k === 'ArrowDown') nextUnit();
  else if (k === 'ArrowUp') prevUnit();
  else if (k === 'Home') go(0);
  else if (k === 'End') go(N);
  else if (k === ' ' || k === 'p') togglePlay();
  else if (k === 'o' || k === 'a') setMode('omni');
  else if (/^[0-9]$/.test(k) && Number(k) < SEATS) setMode(k);
  else return;
  e.preventDefault();
});
buildStatic();
showPlaying();
render();
"""

_BODY = """<header><h1 id="title"></h1><span class="meta" id="meta"></span></header>
<main>
<div>
<div id="controls">
<button data-act="first" title="Home: the start">|&#x25C0;</button>
<button data-act="prevunit" title="&#x2191;: previous {unit}">&#x25C0;&#x25C0; {unit}</button>
<button data-act="prev" title="&#x2190;: previous {step}">&#x25C0; {step}</button>
<button data-act="next" title="&#x2192;: next {step}">{step} &#x25B6;</button>
<button data-act="nextunit" title="&#x2193;: next {unit}">{unit} &#x25B6;&#x25B6;</button>
<button data-act="last" title="End: the end">&#x25B6;|</button>
<button data-act="play" id="play" title="space: play / pause"></button>
<select id="speed" title="autoplay speed: moves per second">
<option value="0.5">0.5/s</option><option value="1" selected>1/s</option>
<option value="2">2/s</option><option value="4">4/s</option><option value="10">10/s</option>
</select>
<select id="mode" title="o: omniscient, 0-9: a seat's view"></select>
<span id="status"></span>
</div>
<div class="hint">keys: &#x2190; &#x2192; {step} &#xB7; &#x2191; &#x2193; {unit} &#xB7;
space play / pause &#xB7; Home End &#xB7; o omniscient &#xB7;
0&#x2013;{last_seat} a seat's view</div>
<div id="table"><div id="center"></div></div>
<div id="legal" class="hint"></div>
<div id="outcome" hidden><h2>Outcome</h2><div id="outcome-body"></div></div>
<pre id="table-text"></pre>
</div>
<aside>
<section id="policy" hidden><h2>Move probabilities</h2><div id="policy-list"></div></section>
<section><h2>Moves</h2><ol id="moves" start="1"></ol></section>
<section id="view-box"><h2 id="view-title"></h2><table id="view-fields"></table></section>
</aside>
</main>
"""


def render_html(data: dict[str, Any]) -> str:
    """The self-contained viewer page for the replay data of ``build_replay``.

    The frames travel delta-encoded (:func:`encode_frames`): a long game repeats most of its
    table from one move to the next, and the page rebuilds them on load.
    """
    encoded = {**data, "frames": encode_frames(data["frames"])}
    payload = json.dumps(encoded, ensure_ascii=False, separators=(",", ":"))
    payload = payload.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    title = html.escape(f"{data['title']} replay: game {data['index']}")
    body = _BODY.format(
        unit=html.escape(data["unit"]),
        step="step" if data.get("simultaneous") else "move",
        last_seat=len(data["agents"]) - 1,
    )
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
    """The replay data embedded in a page written by :func:`render_html` (tests, tools), its
    frames decoded as :func:`~experiments.viewer.replay.build_replay` made them."""
    start_tag = '<script type="application/json" id="replay-data">'
    start = page.index(start_tag) + len(start_tag)
    end = page.index("</script>", start)
    data = json.loads(page[start:end])
    data["frames"] = decode_frames(data["frames"])
    return data


# ---------------------------------------------------------------------------- frame deltas
#: frame fields sent as lists of lines, so that a patch carries only the lines that changed
_TEXT_FIELDS = ("table",)


def diff(old: Any, new: Any) -> Any:
    """The patch that turns ``old`` into ``new``, or None when they are equal.

    A patch is ``[value]`` (replace), or, for two dicts or two lists of one length, an object
    of the keys (list indices as text) that changed, each with its patch; ``[]`` deletes a key.
    """
    if old == new:
        return None
    if isinstance(old, dict) and isinstance(new, dict):
        out: dict[str, Any] = {k: [] for k in old if k not in new}
        for k, v in new.items():
            if k not in old:
                out[k] = [v]
            elif (d := diff(old[k], v)) is not None:
                out[k] = d
        return out
    if isinstance(old, list) and isinstance(new, list):
        if len(old) == len(new):
            return {
                str(i): d
                for i, (a, b) in enumerate(zip(old, new, strict=True))
                if (d := diff(a, b)) is not None
            }
        return _splices(old, new)
    if isinstance(old, str) and isinstance(new, str):
        return _text_splice(old, new)
    return [new]


def _text_splice(old: str, new: str) -> Any:
    """``{"~": [at, removed, text]}``: ``new`` as ``old`` with its middle replaced, or
    ``[new]`` when that is not shorter. Only for texts the page's JavaScript indexes as Python
    does (no character outside the Basic Multilingual Plane)."""
    if max(map(ord, old + new), default=0) > 0xFFFF:
        return [new]
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end = 0
    while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    patch = {"~": [start, len(old) - start - end, new[start : len(new) - end]]}
    return patch if len(json.dumps(patch)) < len(json.dumps([new])) else [new]


def _splices(old: list[Any], new: list[Any]) -> Any:
    """``{"*": [[at, removed, items], …]}`` (applied in that order, the last place first;
    then the index keys, patches of items changed in place, at their new places) turning
    ``old`` into ``new`` (a pile losing its top card, a table text gaining a line), or
    ``[new]`` when that is not shorter."""
    keys_old = [json.dumps(x, sort_keys=True) for x in old]
    keys_new = [json.dumps(x, sort_keys=True) for x in new]
    matcher = difflib.SequenceMatcher(None, keys_old, keys_new, autojunk=False)
    ops: list[list[Any]] = []
    patch: dict[str, Any] = {"*": ops}
    for tag, i1, i2, j1, j2 in reversed(matcher.get_opcodes()):
        if tag == "replace" and i2 - i1 == j2 - j1:  # changed in place: patched by index
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                patch[str(j)] = diff(old[i], new[j])
        elif tag != "equal":
            ops.append([i1, i2 - i1, new[j1:j2]])
    if len(json.dumps(patch, ensure_ascii=False)) < len(json.dumps([new], ensure_ascii=False)):
        return patch
    return [new]


def apply_patch(base: Any, patch: Any) -> Any:
    """``base`` with ``patch`` (of :func:`diff`) applied; ``base`` is not changed."""
    if isinstance(patch, list):
        return patch[0]
    if isinstance(base, str):
        at, removed, text = patch["~"]
        return base[:at] + text + base[at + removed :]
    if isinstance(base, list):
        out_list = list(base)
        for at, removed, items in patch.get("*", []):
            out_list[at : at + removed] = items
        for k, p in patch.items():
            if k == "*":
                continue
            out_list[int(k)] = apply_patch(out_list[int(k)], p)
        return out_list
    out = dict(base)
    for k, p in patch.items():
        if p == []:
            out.pop(k, None)
        else:
            out[k] = apply_patch(base.get(k), p)
    return out


def encode_frames(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first frame whole, then each frame as a patch of the one before (texts by line)."""
    lined = [{k: (v.split("\n") if k in _TEXT_FIELDS else v) for k, v in f.items()} for f in frames]
    return lined[:1] + [diff(a, b) or {} for a, b in itertools.pairwise(lined)]


def decode_frames(encoded: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frames of :func:`encode_frames`."""
    frames: list[dict[str, Any]] = []
    for patch in encoded:
        frames.append(patch if not frames else apply_patch(frames[-1], patch))
    return [{k: ("\n".join(v) if k in _TEXT_FIELDS else v) for k, v in f.items()} for f in frames]
