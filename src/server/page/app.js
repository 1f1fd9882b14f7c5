// The explorer page. It knows no chess rules: legal moves, SAN and positions come from the
// server (/move), statistics from the explorer API (/lichess, /player), games from /game/{id}.
// The URL holds the start position, the moves played and the filters, so a link reproduces
// the view.
'use strict';

const INITIAL = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -';
const FILES = 'abcdefgh';
// How long the view rests before its month-by-month history is asked for.
const HISTORY_DELAY_MS = 250;
const $ = (id) => document.getElementById(id);

const state = {
  start: INITIAL,     // the start position (canonical FEN)
  line: [],           // [{uci, san, fen}] played from the start
  cursor: 0,          // plies of the line shown
  board: null,        // the /move answer for the position shown
  game: null,         // the game in the viewer: {id, moves, title}
  flipped: false,
  selected: null,     // the square of the piece picked up
  promotion: null,    // {from, to} waiting for a piece
  filters: { since: '', until: '', speeds: [], ratings: [], player: '', color: 'white' },
  request: 0,         // the latest explorer request; older answers are dropped
};

// Measured by the browser tests: when the first answer was on screen (ms after navigation
// start), and how long each move took from the click to its answer on screen.
window.tabiyaTimings = { firstAnswer: null, moves: [] };

// ---------------------------------------------------------------------------------------------
// Server

async function api(path, params) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params || {})) {
    if (value !== undefined && value !== null && value !== '') query.set(name, value);
  }
  const url = query.toString() ? `${path}?${query}` : path;
  const response = await fetch(url, { headers: { Accept: 'application/json' } });
  const text = await response.text();
  let body = null;
  try {
    // NDJSON (/player): the last line is the final answer.
    const lines = text.trim().split('\n');
    body = JSON.parse(lines[lines.length - 1]);
  } catch (_) {
    body = null;
  }
  if (!response.ok) throw new Error(body && body.error ? body.error : `${response.status} ${response.statusText}`);
  if (body === null) throw new Error(`unreadable answer from ${path}`);
  return body;
}

const currentFen = () => (state.cursor === 0 ? state.start : state.line[state.cursor - 1].fen);
const played = () => state.line.slice(0, state.cursor).map((ply) => ply.uci).join(',');

function filterParams() {
  const f = state.filters;
  return {
    since: f.since, until: f.until, speeds: f.speeds.join(','), ratings: f.ratings.join(','),
    player: f.player, color: f.player ? f.color : '',
  };
}

// ---------------------------------------------------------------------------------------------
// URL

// The view as query parameters (start, moves, filters; empty ones left out): the page's URL
// and the opening report's.
function viewQuery() {
  const params = { fen: state.start === INITIAL ? '' : state.start, play: played(), ...filterParams() };
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) query.set(name, value);
  return query;
}

function urlParams() {
  const text = viewQuery().toString();
  return text ? `?${text}` : location.pathname;
}

function saveUrl(push) {
  const url = urlParams();
  if (url === `${location.search}` || (url === location.pathname && !location.search)) return;
  if (push) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

function readFilters(query) {
  const list = (name) => (query.get(name) || '').split(',').filter(Boolean);
  state.filters = {
    since: query.get('since') || '', until: query.get('until') || '', speeds: list('speeds'),
    ratings: list('ratings'), player: query.get('player') || '', color: query.get('color') || 'white',
  };
  const form = $('filter-form');
  form.since.value = state.filters.since;
  form.until.value = state.filters.until;
  for (const box of form.querySelectorAll('input[type=checkbox]')) {
    box.checked = state.filters[box.name].includes(box.value);
  }
  form.player.value = state.filters.player;
  form.color.value = state.filters.color === 'black' ? 'black' : 'white';
  showFilterSummary();
}

// Restores the view the URL describes (on load and on the browser's back/forward).
async function restore() {
  const query = new URLSearchParams(location.search);
  readFilters(query);
  const start = query.get('fen') || INITIAL;
  const moves = query.get('play') || '';
  const ucis = moves.split(',').filter(Boolean);
  const known = state.line.map((ply) => ply.uci);
  if (start === state.start && ucis.every((uci, i) => known[i] === uci) && state.board) {
    state.start = start;
    await show(ucis.length, false);
    return;
  }
  // The explorer needs only the start and the moves: it is asked at once, beside /move.
  state.start = start;
  state.line = ucis.map((uci) => ({ uci, san: uci, fen: '' }));
  state.cursor = ucis.length;
  const exploring = explore();
  try {
    // The start's canonical FEN: the answer's own when no move follows it.
    const [answer, first] = await Promise.all([
      api('move', { fen: query.get('fen'), play: moves }),
      query.get('fen') && ucis.length ? api('move', { fen: query.get('fen') }) : null,
    ]);
    state.start = !query.get('fen') ? INITIAL : (first || answer).fen;
    state.line = answer.line;
    state.cursor = answer.line.length;
    state.board = answer;
    setError('fen-error', '');
  } catch (err) {
    await exploring;
    setError('fen-error', `The link's position: ${err.message}`);
    state.start = INITIAL;
    state.line = [];
    state.cursor = 0;
    state.board = await api('move', {});
    render();
    await explore();
    return;
  }
  render();
  await exploring;
}

// ---------------------------------------------------------------------------------------------
// Moving through the line

// Shows ply `cursor` of the line.
async function show(cursor, push) {
  state.cursor = Math.max(0, Math.min(cursor, state.line.length));
  state.selected = null;
  closePromotion();
  saveUrl(push);
  const exploring = explore();
  const fen = currentFen();
  const board = await legal(fen);
  // A later step may have moved on meanwhile: only the answer for the position shown is kept.
  if (fen === currentFen()) {
    state.board = board;
    render();
  }
  await exploring;
}

const legalCache = new Map();
async function legal(fen) {
  if (!legalCache.has(fen)) {
    if (legalCache.size > 500) legalCache.clear();
    legalCache.set(fen, await api('move', { fen }));
  }
  return legalCache.get(fen);
}

// Plays `uci` from the position shown: follows the line when it is its next move, or replaces
// the rest of the line.
async function playMove(uci) {
  const started = performance.now();
  state.selected = null;
  closePromotion();
  const next = state.line[state.cursor];
  if (next && next.uci === uci) {
    await show(state.cursor + 1, true);
  } else {
    // The explorer is asked at once, beside /move: it needs only the moves.
    const exploring = explore([played(), uci].filter(Boolean).join(','));
    const from = { start: state.start, line: state.line, cursor: state.cursor };
    let answer;
    try {
      answer = await api('move', { fen: currentFen(), uci });
    } catch (err) {
      render();
      setStatus(err.message);
      await explore();
      return;
    }
    // The view moved on meanwhile (a step, a restore): this move no longer applies.
    if (from.start !== state.start || from.line !== state.line || from.cursor !== state.cursor) return;
    state.line = state.line.slice(0, state.cursor).concat(answer.line);
    state.cursor += 1;
    state.board = answer;
    legalCache.set(answer.fen, answer);
    saveUrl(true);
    render();
    await exploring;
  }
  window.tabiyaTimings.moves.push(Math.round(performance.now() - started));
}

// Tries the move from `from` to `to`: refused when illegal, asks for the piece of a promotion.
function tryMove(from, to) {
  const candidates = (state.board ? state.board.legal : []).filter((m) => m.uci.slice(0, 4) === from + to);
  if (candidates.length === 0) {
    state.selected = null;
    render();
    setStatus(`${from}–${to} is not a legal move here`);
    return;
  }
  if (candidates.length > 1) {
    state.promotion = { from, to };
    state.selected = null;
    render();
    const dialog = $('promotion');
    dialog.hidden = false;
    dialog.querySelector('button').focus();
    return;
  }
  playMove(candidates[0].uci);
}

function closePromotion() {
  state.promotion = null;
  $('promotion').hidden = true;
}

// A position typed or found by a search becomes the new start.
async function setStart(fen, errorBox) {
  try {
    const answer = await api('move', { fen });
    state.start = answer.fen;
    state.line = [];
    state.cursor = 0;
    state.board = answer;
    state.game = null;
    setError(errorBox, '');
    saveUrl(true);
    render();
    await explore();
  } catch (err) {
    setError(errorBox, err.message);
  }
}

// ---------------------------------------------------------------------------------------------
// Board

const PIECES = {
  p: '<circle cx="50" cy="31" r="12"/><path d="M41 45h18c0 8 4 17 9 23H32c5-6 9-15 9-23z"/>'
    + '<path d="M26 84c0-9 5-14 11-16h26c6 2 11 7 11 16z"/>',
  r: '<path d="M27 20h9v7h8v-7h12v7h8v-7h9v18l-6 6H33l-6-6z"/><path d="M34 44h32l3 26H31z"/>'
    + '<path d="M24 86v-9l6-7h40l6 7v9z"/>',
  n: '<path d="M30 86h46c2-24-2-46-15-58-3-3-7-5-10-6l-3-9-6 9c-8 3-14 10-18 18l-7 12c-2 4 1 8 5 7l7-2'
    + 'c3-1 6-3 9-5 3 2 4 5 2 8-7 8-11 15-10 26z"/><circle class="detail" cx="41" cy="36" r="2.8"/>',
  b: '<path d="M50 12a6 6 0 0 1 4 10c10 6 16 16 16 27 0 8-4 13-8 16H38c-4-3-8-8-8-16 0-11 6-21 16-27a6 6 0 0 1 4-10z"/>'
    + '<path d="M36 66h28v8H36z"/><path d="M24 87c4-7 12-9 26-9s22 2 26 9z"/>'
    + '<path class="detail" d="M56 33 45 49" fill="none"/>',
  q: '<path d="M26 72 16 32l16 20 2-30 10 26 6-30 6 30 10-26 2 30 16-20-10 40z"/>'
    + '<circle cx="16" cy="30" r="5"/><circle cx="34" cy="20" r="5"/><circle cx="50" cy="15" r="5"/>'
    + '<circle cx="66" cy="20" r="5"/><circle cx="84" cy="30" r="5"/><path d="M24 87c2-8 10-13 26-13s24 5 26 13z"/>',
  k: '<path d="M46 6h8v7h7v8h-7v10h-8V21h-7v-8h7z"/>'
    + '<path d="M27 72c-10-15-8-35 9-37 7-1 11 3 14 8 3-5 7-9 14-8 17 2 19 22 9 37z"/>'
    + '<path d="M24 87c2-8 10-13 26-13s24 5 26 13z"/>',
};

function pieceSymbols() {
  let defs = '';
  for (const [role, shape] of Object.entries(PIECES)) {
    defs += `<symbol id="w${role}" viewBox="0 0 100 100"><g fill="#fff" stroke="#1b1b1b" stroke-width="3.5"`
      + ` stroke-linejoin="round" class="white-piece">${shape}</g></symbol>`;
    defs += `<symbol id="b${role}" viewBox="0 0 100 100"><g fill="#262626" stroke="#000" stroke-width="3.5"`
      + ` stroke-linejoin="round" class="black-piece">${shape}</g></symbol>`;
  }
  return `<defs><style>.black-piece .detail{stroke:#e6e6e6;fill:#e6e6e6}.white-piece .detail{fill:#1b1b1b}</style>${defs}</defs>`;
}

// The pieces of a FEN's placement, by square name.
function placement(fen) {
  const pieces = {};
  const rows = fen.split(' ')[0].split('/');
  rows.forEach((row, index) => {
    let file = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) file += Number(ch);
      else {
        pieces[FILES[file] + (8 - index)] = ch;
        file += 1;
      }
    }
  });
  return pieces;
}

function squareXY(square) {
  const file = FILES.indexOf(square[0]);
  const rank = Number(square[1]) - 1;
  return state.flipped ? [7 - file, rank] : [file, 7 - rank];
}

function pieceUse(square, ch) {
  const [x, y] = squareXY(square);
  const color = ch === ch.toUpperCase() ? 'w' : 'b';
  const role = ch.toLowerCase();
  if (!'pnbrqk'.includes(role)) return '';
  return `<use class="piece" data-square="${square}" href="#${color}${role}" x="${x}" y="${y}" width="1" height="1"/>`;
}

function render() {
  const fen = currentFen();
  const pieces = placement(fen);
  const last = state.cursor > 0 ? state.line[state.cursor - 1].uci : '';
  const turn = fen.split(' ')[1] === 'b' ? 'b' : 'w';
  const dests = state.selected && state.board
    ? state.board.legal.filter((m) => m.uci.startsWith(state.selected)).map((m) => m.uci.slice(2, 4)) : [];
  let squares = '';
  let highlights = '';
  let coords = '';
  for (let rank = 1; rank <= 8; rank += 1) {
    for (let file = 0; file < 8; file += 1) {
      const square = FILES[file] + rank;
      const [x, y] = squareXY(square);
      const light = (file + rank) % 2 === 1;
      squares += `<rect class="${light ? 'sq-light' : 'sq-dark'}" data-square="${square}" x="${x}" y="${y}" width="1" height="1"/>`;
      // Marks are drawn over the square, so light and dark squares stay apart under them.
      let mark = '';
      if (square === state.selected) mark = 'sq-selected';
      else if (last && (last.slice(0, 2) === square || last.slice(2, 4) === square)) mark = 'sq-last';
      if (state.board && state.board.check && pieces[square] === (turn === 'w' ? 'K' : 'k')) mark = 'sq-check';
      if (mark) highlights += `<rect class="${mark}" x="${x}" y="${y}" width="1" height="1" pointer-events="none"/>`;
      const ink = light ? '#5c3f22' : '#fff8ec';
      if (y === 7) coords += `<text class="coord" x="${x + 0.96}" y="${y + 0.95}" text-anchor="end" fill="${ink}" font-size="0.17">${FILES[file]}</text>`;
      if (x === 0) coords += `<text class="coord" x="${x + 0.04}" y="${y + 0.2}" fill="${ink}" font-size="0.17">${rank}</text>`;
    }
  }
  const marks = dests.map((square) => {
    const [x, y] = squareXY(square);
    return pieces[square]
      ? `<circle class="dest" cx="${x + 0.5}" cy="${y + 0.5}" r="0.46" fill="none" stroke="rgba(20,85,30,.5)" stroke-width="0.08"/>`
      : `<circle class="dest" cx="${x + 0.5}" cy="${y + 0.5}" r="0.15"/>`;
  }).join('');
  const uses = Object.entries(pieces).map(([square, ch]) => pieceUse(square, ch)).join('');
  const label = `Board: ${turn === 'w' ? 'White' : 'Black'} to move`;
  $('board').innerHTML = `<svg viewBox="0 0 8 8" role="img" aria-label="${label}" data-fen="${escapeHtml(fen)}">`
    + `${pieceSymbols()}${squares}${highlights}${coords}${uses}${marks}</svg>`;
  // A piece being dragged stays in the hand.
  if (drag && drag.ghost) $('board').appendChild(drag.ghost);
  renderStatus();
  renderLine();
  $('fen-input').value = fen;
  renderViewer();
  $('report-link').href = `report/opening?${viewQuery()}`;
}

function renderStatus() {
  const board = state.board;
  if (!board) return;
  const side = board.turn === 'white' ? 'White' : 'Black';
  let text = `${side} to move`;
  if (board.outcome === 'checkmate') text = `Checkmate: ${board.turn === 'white' ? 'Black' : 'White'} wins`;
  else if (board.outcome) text = `Draw: ${board.outcome}`;
  else if (board.check) text += ' (check)';
  setStatus(text);
}

function setStatus(text) {
  $('status').textContent = text;
}

function setError(id, text) {
  $(id).textContent = text;
}

// The number of the move at ply `index` (0-based) of the line, from the start's side to move.
function moveNumber(index, startFen) {
  const black = startFen.split(' ')[1] === 'b';
  const fullmove = 1 + Math.floor((index + (black ? 1 : 0)) / 2);
  const whiteMove = (index + (black ? 1 : 0)) % 2 === 0;
  if (whiteMove) return `${fullmove}.`;
  return index === 0 ? `${fullmove}…` : '';
}

function moveListHtml(line, startFen, current, prefix) {
  return line.map((ply, index) => {
    const number = moveNumber(index, startFen);
    const cls = index + 1 === current ? ' class="current" aria-current="step"' : '';
    return `<li>${number ? `<span class="number">${number}</span>` : ''}`
      + `<button type="button" data-${prefix}="${index + 1}"${cls}>${escapeHtml(ply.san)}</button></li>`;
  }).join('');
}

function renderLine() {
  $('line').innerHTML = moveListHtml(state.line, state.start, state.cursor, 'ply');
  $('back').disabled = state.cursor === 0;
  $('first').disabled = state.cursor === 0;
  $('forward').disabled = state.cursor >= state.line.length;
  $('last').disabled = state.cursor >= state.line.length;
}

// ---------------------------------------------------------------------------------------------
// Dragging and clicking on the board

function squareAt(event) {
  const rect = $('board').getBoundingClientRect();
  const x = Math.floor(((event.clientX - rect.left) / rect.width) * 8);
  const y = Math.floor(((event.clientY - rect.top) / rect.height) * 8);
  if (x < 0 || x > 7 || y < 0 || y > 7) return null;
  const file = state.flipped ? 7 - x : x;
  const rank = state.flipped ? y : 7 - y;
  return FILES[file] + (rank + 1);
}

let drag = null;

function onPointerDown(event) {
  if (event.button !== 0 || state.promotion) return;
  const square = squareAt(event);
  if (!square) return;
  event.preventDefault();
  const ch = placement(currentFen())[square];
  const turn = currentFen().split(' ')[1];
  const own = ch && (turn === 'w' ? ch === ch.toUpperCase() : ch === ch.toLowerCase());
  if (!own) {
    if (state.selected) tryMove(state.selected, square);
    return;
  }
  state.selected = square;
  render();
  drag = { from: square, ch, x: event.clientX, y: event.clientY, ghost: null };
  $('board').setPointerCapture(event.pointerId);
}

function onPointerMove(event) {
  if (!drag) return;
  if (!drag.ghost && Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < 4) return;
  const rect = $('board').getBoundingClientRect();
  const size = rect.width / 8;
  if (!drag.ghost) {
    drag.ghost = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    drag.ghost.setAttribute('class', 'dragging');
    drag.ghost.setAttribute('viewBox', '0 0 1 1');
    drag.ghost.style.cssText = `position:absolute;left:0;top:0;width:${size}px;height:${size}px;pointer-events:none;z-index:5`;
    const color = drag.ch === drag.ch.toUpperCase() ? 'w' : 'b';
    drag.ghost.innerHTML = `<use href="#${color}${drag.ch.toLowerCase()}" width="1" height="1"/>`;
    $('board').appendChild(drag.ghost);
    const origin = $('board').querySelector(`use.piece[data-square="${drag.from}"]`);
    if (origin) origin.style.opacity = '0.3';
  }
  drag.ghost.style.transform = `translate(${event.clientX - rect.left - size / 2}px, ${event.clientY - rect.top - size / 2}px)`;
}

function onPointerUp(event) {
  if (!drag) return;
  const { from, ghost } = drag;
  drag = null;
  if (!ghost) return; // a click: the piece stays selected
  const to = squareAt(event);
  if (!to || to === from) {
    render();
    return;
  }
  tryMove(from, to);
}

// ---------------------------------------------------------------------------------------------
// Explorer

// Asks the explorer about the moves `play` from the start (the line shown by default) and shows
// its answer. The month-by-month history, which reads every slice of the position, is asked
// for once the view has rested (a player's answer carries it: its games are replayed once).
async function explore(play = played()) {
  const request = ++state.request;
  const f = state.filters;
  const common = {
    fen: state.start === INITIAL ? '' : state.start, play, since: f.since, until: f.until,
    speeds: f.speeds.join(','), ratings: f.ratings.join(','),
  };
  let answer;
  try {
    if (f.player) {
      answer = await api('player', {
        ...common, player: f.player, color: f.color, moves: 60, recentGames: 8, history: 'true',
      });
    } else {
      answer = await api('lichess', { ...common, moves: 60, topGames: 4, recentGames: 4 });
      // Asked once the view has rested a moment, so that a quick run of moves does not queue
      // history reads on the server ahead of the next table.
      setTimeout(() => {
        if (request !== state.request) return;
        api('lichess', { ...common, moves: 0, topGames: 0, recentGames: 0, history: 'true' })
          .then((found) => { if (request === state.request) renderHistory(found.history || [], found.historyYearOnly); })
          .catch(() => { if (request === state.request) renderHistory([]); });
      }, HISTORY_DELAY_MS);
    }
  } catch (err) {
    if (request !== state.request) return;
    setError('explorer-error', err.message);
    // Nothing of the previous position stays clickable.
    $('moves').tBodies[0].innerHTML = '';
    $('moves').tFoot.innerHTML = '';
    renderGames('top-games', 'top-title', [], new Map());
    renderGames('recent-games', 'recent-title', [], new Map());
    renderHistory([]);
    return;
  }
  if (request !== state.request) return;
  setError('explorer-error', '');
  renderExplorer(answer, Boolean(f.player));
  // What the table shows, for scripts and tests waiting for an answer.
  Object.assign($('moves').dataset, { start: common.fen, play: common.play, filters: new URLSearchParams(filterParams()).toString() });
  if (window.tabiyaTimings.firstAnswer === null) window.tabiyaTimings.firstAnswer = Math.round(performance.now());
}

function wdlBar(white, draws, black) {
  const total = white + draws + black;
  if (!total) return '<div class="wdl" aria-label="no results"></div>';
  const pct = (n) => (100 * n) / total;
  const label = (n) => (pct(n) >= 12 ? `${Math.round(pct(n))}%` : '');
  return `<div class="wdl" title="White ${white}, draws ${draws}, Black ${black}"`
    + ` aria-label="White wins ${Math.round(pct(white))}%, draws ${Math.round(pct(draws))}%, Black wins ${Math.round(pct(black))}%">`
    + `<span class="w" style="width:${pct(white)}%">${label(white)}</span>`
    + `<span class="d" style="width:${pct(draws)}%">${label(draws)}</span>`
    + `<span class="b" style="width:${pct(black)}%">${label(black)}</span></div>`;
}

// A share as the table shows it: whole percents from 10 %, one decimal below, "<0.1%" for less.
function percent(share) {
  if (share >= 10) return `${Math.round(share)}%`;
  return share >= 0.1 ? `${share.toFixed(1)}%` : '<0.1%';
}

const number = (n) => (n === null || n === undefined ? '' : Number(n).toLocaleString('en-US'));

function renderExplorer(answer, playerMode) {
  const total = answer.white + answer.draws + answer.black;
  const games = playerMode ? total : answer.games;
  const opening = answer.opening;
  $('opening').innerHTML = opening
    ? `<span class="eco">${escapeHtml(opening.eco)}</span>${escapeHtml(opening.name)}` : '';
  $('rating-head').textContent = playerMode ? 'Opp.' : 'Avg';
  $('rating-head').title = playerMode ? 'Average opponent rating' : 'Average rating';
  const rows = answer.moves.map((m) => {
    const count = playerMode ? m.white + m.draws + m.black : m.games;
    const share = games ? percent((100 * count) / games) : '';
    const rating = playerMode ? m.averageOpponentRating : m.averageRating;
    return `<tr tabindex="0" data-uci="${escapeHtml(m.uci)}" data-games="${count}" title="Play ${escapeHtml(m.san)}">`
      + `<td>${escapeHtml(m.san)}</td><td class="num">${number(count)}<span class="share">${share}</span></td>`
      + `<td>${wdlBar(m.white, m.draws, m.black)}</td><td class="num">${rating ?? ''}</td>`
      + `<td class="num">${m.performance ?? ''}</td></tr>`;
  }).join('');
  $('moves').tBodies[0].innerHTML = rows
    || '<tr><td colspan="5" class="muted">No game continues from this position</td></tr>';
  $('moves').tFoot.innerHTML = `<tr><td>Σ</td><td class="num" id="total-games" data-games="${games}">${number(games)}</td>`
    + `<td>${wdlBar(answer.white, answer.draws, answer.black)}</td>`
    + `<td class="num">${playerMode ? '' : answer.averageRating ?? ''}</td><td></td></tr>`;
  const sans = new Map(answer.moves.map((m) => [m.uci, m.san]));
  renderGames('top-games', 'top-title', playerMode ? [] : answer.topGames || [], sans);
  renderGames('recent-games', 'recent-title', answer.recentGames || [], sans);
  if (answer.history) renderHistory(answer.history, answer.historyYearOnly);
}

function gameLabel(game, sans) {
  const who = (p) => `${escapeHtml(p.name || '?')}${p.rating ? ` (${p.rating})` : ''}`;
  const result = game.winner === 'white' ? '1-0' : game.winner === 'black' ? '0-1' : (game.result === '1/2-1/2' ? '½-½' : game.result || '*');
  const when = game.month || game.year || '';
  const meta = [game.uci ? `played ${sans.get(game.uci) || game.uci}` : '', game.event, when].filter(Boolean).map(escapeHtml).join(' · ');
  return `<span class="result">${escapeHtml(result)}</span><span>${who(game.white)} – ${who(game.black)}</span>`
    + `<span class="meta">${meta}</span>`;
}

function renderGames(listId, titleId, games, sans) {
  $(titleId).hidden = games.length === 0;
  $(listId).innerHTML = games.map((game) => `<li><button type="button" data-game="${escapeHtml(game.id)}">`
    + `${gameLabel(game, sans)}</button></li>`).join('');
}

// Draws `history` (months) and `historyYearOnly` (games dated by year alone): by month for up
// to three years of months and no year-only games, else by year.
function renderHistory(months, yearOnly = []) {
  const figure = $('history');
  if (months.length === 0 && yearOnly.length === 0) {
    figure.hidden = true;
    return;
  }
  const byYear = months.length > 36 || yearOnly.length > 0;
  const byLabel = new Map();
  for (const m of months.concat(yearOnly)) {
    const label = byYear ? m.month.slice(0, 4) : m.month;
    const bucket = byLabel.get(label) || { label, white: 0, draws: 0, black: 0 };
    bucket.white += m.white; bucket.draws += m.draws; bucket.black += m.black;
    byLabel.set(label, bucket);
  }
  // Years run without gaps from the first to the last.
  let list = [...byLabel.values()].sort((a, b) => a.label.localeCompare(b.label));
  if (byYear) {
    const first = Number(list[0].label);
    const last = Number(list[list.length - 1].label);
    list = Array.from({ length: last - first + 1 }, (_, i) => byLabel.get(String(first + i).padStart(4, '0'))
      || { label: String(first + i).padStart(4, '0'), white: 0, draws: 0, black: 0 });
  }
  const width = 600;
  const height = 170;
  const top = 22;
  const bottom = 28;
  const buckets = list;
  const max = Math.max(1, ...buckets.map((b) => b.white + b.draws + b.black));
  const step = width / buckets.length;
  const scale = (n) => ((height - top - bottom) * n) / max;
  let bars = '';
  buckets.forEach((b, i) => {
    bars += `<g><title>${b.label}: ${b.white + b.draws + b.black} games</title>`;
    let y = height - bottom;
    const x = i * step + step * 0.1;
    const w = Math.max(step * 0.8, 0.5);
    for (const [count, fill] of [[b.white, '#e4e4e4'], [b.draws, '#9a9a9a'], [b.black, '#333']]) {
      const h = scale(count);
      y -= h;
      if (h > 0) bars += `<rect x="${x.toFixed(2)}" y="${y.toFixed(2)}" width="${w.toFixed(2)}" height="${h.toFixed(2)}" fill="${fill}"/>`;
    }
    // The outline keeps White's share visible against the page.
    const all = scale(b.white + b.draws + b.black);
    if (all > 0) bars += `<rect x="${x.toFixed(2)}" y="${(height - bottom - all).toFixed(2)}" width="${w.toFixed(2)}" height="${all.toFixed(2)}" fill="none" stroke="#555" stroke-width="${Math.min(1, w / 4).toFixed(2)}"/>`;
    bars += '</g>';
  });
  const first = buckets[0].label;
  const lastLabel = buckets[buckets.length - 1].label;
  const svg = `<svg class="chart" viewBox="0 0 ${width} ${height}" role="img"`
    + ` aria-label="Games by ${byYear ? 'year' : 'month'} from ${first} to ${lastLabel}, at most ${max}">`
    + `<line x1="0" y1="${height - bottom}" x2="${width}" y2="${height - bottom}" stroke="#777"/>${bars}`
    + `<text x="0" y="${height - 4}" font-size="20" fill="#444">${first}</text>`
    + `<text x="${width}" y="${height - 4}" font-size="20" fill="#444" text-anchor="end">${lastLabel}</text>`
    + `<text x="2" y="${top + 4}" font-size="20" fill="#444">${number(max)}</text></svg>`;
  $('history-unit').textContent = byYear ? 'year' : 'month';
  $('history-chart').innerHTML = svg;
  figure.hidden = false;
}

// ---------------------------------------------------------------------------------------------
// Game viewer

async function openGame(id) {
  let game;
  try {
    game = await api(`game/${encodeURIComponent(id)}`);
  } catch (err) {
    setError('explorer-error', err.message);
    return;
  }
  const here = currentFen();
  const reached = here === game.start ? 0 : game.moves.findIndex((ply) => ply.fen === here) + 1;
  state.game = {
    id: game.id, moves: game.moves, start: game.start,
    title: `${game.white.name || '?'} – ${game.black.name || '?'}, ${game.result}`,
    meta: [game.event, game.site, game.date, game.round ? `round ${game.round}` : ''].filter((t) => t && t !== '?').join(' · '),
  };
  state.start = game.start;
  state.line = game.moves;
  await show(reached, true);
  $('viewer').scrollIntoView({ block: 'nearest' });
}

// Whether the line shown is the viewer's game.
function onGameLine() {
  const game = state.game;
  return Boolean(game) && state.start === game.start && state.line.length === game.moves.length
    && state.line.every((ply, i) => ply.uci === game.moves[i].uci);
}

function renderViewer() {
  const game = state.game;
  $('viewer').hidden = !game;
  if (!game) return;
  $('viewer-title').textContent = game.title;
  $('viewer-meta').textContent = onGameLine() ? game.meta : `${game.meta} · you left the game's moves`;
  $('viewer-moves').innerHTML = moveListHtml(game.moves, game.start, onGameLine() ? state.cursor : -1, 'game-ply');
  const link = $('viewer-pgn');
  link.href = `masters/pgn/${encodeURIComponent(game.id)}`;
  link.setAttribute('download', `tabiya-game-${game.id}.pgn`);
}

// ---------------------------------------------------------------------------------------------
// Filters and search

function showFilterSummary() {
  const f = state.filters;
  const parts = [];
  if (f.since || f.until) parts.push(`${f.since || '…'} to ${f.until || '…'}`);
  if (f.speeds.length) parts.push(f.speeds.join(', '));
  if (f.ratings.length) parts.push(`ratings ${f.ratings.join(', ')}`);
  if (f.player) parts.push(`${f.player} as ${f.color}`);
  $('filter-summary').textContent = parts.length ? `(${parts.join('; ')})` : '(all games)';
}

async function applyFilters(event) {
  event.preventDefault();
  const form = $('filter-form');
  const checked = (name) => [...form.querySelectorAll(`input[name=${name}]:checked`)].map((box) => box.value);
  state.filters = {
    since: form.since.value, until: form.until.value, speeds: checked('speeds'), ratings: checked('ratings'),
    player: form.player.value.trim(), color: form.color.value,
  };
  showFilterSummary();
  saveUrl(true);
  render();
  await explore();
}

async function search(event) {
  event.preventDefault();
  const kind = $('search-kind').value;
  const text = $('search-input').value.trim();
  setError('search-error', '');
  $('search-results').innerHTML = '';
  $('search-summary').textContent = text ? 'Searching…' : '';
  if (!text) return;
  let found;
  try {
    found = kind === 'material'
      ? await api('material', { material: text, limit: 20 })
      : await api('pattern', { q: text, limit: 20 });
  } catch (err) {
    $('search-summary').textContent = '';
    setError('search-error', err.message);
    return;
  }
  $('search-summary').textContent = `${number(found.positions)} positions, ${number(found.occurrences)} occurrences`
    + (found.hits.length < found.positions ? `; the ${found.hits.length} most frequent:` : ':');
  $('search-results').innerHTML = found.hits.map((hit) => `<li><button type="button" data-fen="${escapeHtml(hit.fen)}">`
    + `${escapeHtml(hit.fen)}</button> <span class="muted">${number(hit.games)} games</span></li>`).join('');
}

// ---------------------------------------------------------------------------------------------
// Wiring

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

function wire() {
  const board = $('board');
  board.addEventListener('pointerdown', onPointerDown);
  board.addEventListener('pointermove', onPointerMove);
  board.addEventListener('pointerup', onPointerUp);
  board.addEventListener('pointercancel', () => { drag = null; render(); });
  $('promotion').addEventListener('click', (event) => {
    const button = event.target.closest('button');
    if (!button || !state.promotion) return;
    const { from, to } = state.promotion;
    closePromotion();
    $('forward').focus();
    if (button.dataset.role) tryMoveUci(from + to + button.dataset.role);
    else render();
  });
  $('first').addEventListener('click', () => show(0, false));
  $('back').addEventListener('click', () => show(state.cursor - 1, false));
  $('forward').addEventListener('click', () => show(state.cursor + 1, false));
  $('last').addEventListener('click', () => show(state.line.length, false));
  $('flip').addEventListener('click', () => { state.flipped = !state.flipped; render(); });
  $('line').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-ply]');
    if (button) show(Number(button.dataset.ply), false);
  });
  $('viewer-moves').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-game-ply]');
    if (!button || !state.game) return;
    state.start = state.game.start;
    state.line = state.game.moves;
    show(Number(button.dataset.gamePly), false);
  });
  $('viewer-close').addEventListener('click', () => { state.game = null; renderViewer();
    const game = document.querySelector('#top-games button, #recent-games button');
    if (game) game.focus();
  });
  const moves = $('moves');
  moves.addEventListener('click', (event) => {
    const row = event.target.closest('tr[data-uci]');
    if (row) playMove(row.dataset.uci);
  });
  moves.addEventListener('keydown', (event) => {
    const row = event.target.closest('tr[data-uci]');
    if (row && (event.key === 'Enter' || event.key === ' ')) {
      event.preventDefault();
      // Focus stays in the table: on the new position's first move.
      playMove(row.dataset.uci).then(() => {
        const first = $('moves').querySelector('tbody tr[data-uci]');
        if (first) first.focus();
      });
    }
  });
  for (const id of ['top-games', 'recent-games']) {
    $(id).addEventListener('click', (event) => {
      const button = event.target.closest('button[data-game]');
      if (button) openGame(button.dataset.game);
    });
  }
  $('move-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const text = $('move-input').value.trim();
    const plain = (san) => san.replace(/[+#!?]/g, '');
    const found = (state.board ? state.board.legal : []).find((m) => m.uci === text || plain(m.san) === plain(text));
    if (!found) {
      setStatus(`${text} is not a legal move here`);
      return;
    }
    $('move-input').value = '';
    playMove(found.uci);
  });
  $('fen-form').addEventListener('submit', (event) => {
    event.preventDefault();
    setStart($('fen-input').value.trim(), 'fen-error');
  });
  $('filter-form').addEventListener('submit', applyFilters);
  $('filter-reset').addEventListener('click', (event) => {
    $('filter-form').reset();
    applyFilters(event);
  });
  $('search-kind').addEventListener('change', () => {
    $('search-input').placeholder = $('search-kind').value === 'material' ? 'KRPvKR' : 'Q_g7 & k_g8';
  });
  $('search-form').addEventListener('submit', search);
  $('search-results').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-fen]');
    if (button) setStart(button.dataset.fen, 'search-error');
  });
  document.addEventListener('keydown', (event) => {
    if (event.target.closest('input, select, textarea') || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'Escape' && state.promotion) { closePromotion(); render(); return; }
    const step = { ArrowLeft: state.cursor - 1, ArrowRight: state.cursor + 1, Home: 0, End: state.line.length }[event.key];
    if (step !== undefined) {
      event.preventDefault();
      show(step, false);
    } else if (event.key === 'f') {
      state.flipped = !state.flipped;
      render();
    }
  });
  window.addEventListener('popstate', restore);
}

// A promotion chosen in the dialog: checked against the legal moves like any other.
function tryMoveUci(uci) {
  if (state.board && state.board.legal.some((m) => m.uci === uci)) playMove(uci);
  else { render(); setStatus(`${uci} is not a legal move here`); }
}

async function init() {
  wire();
  api('stats').then((totals) => {
    $('db-info').textContent = `${number(totals.games)} games · ${number(totals.distinctPositions ?? totals.positionOccurrences)} positions`;
  }).catch(() => {});
  await restore();
}

init();
