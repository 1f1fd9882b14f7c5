// The board: drawing it (pieces, marks, coordinates), the status line, the line's move list,
// and picking up, dragging and dropping pieces on it.

import { FILES, $, state, currentFen, escapeHtml } from './state.js';
import { viewQuery } from './url.js';
import { tryMove } from './line.js';
import { renderViewer } from './viewer.js';

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

export function render() {
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
  const winner = board.winner === 'white' ? 'White' : 'Black';
  if (board.outcome === 'checkmate') text = `Checkmate: ${winner} wins`;
  else if (board.outcome && board.winner) text = `${winner} wins: ${board.outcome}`;
  else if (board.outcome) text = `Draw: ${board.outcome}`;
  else if (board.check) text += ' (check)';
  setStatus(text);
}

export function setStatus(text) {
  $('status').textContent = text;
}

export function setError(id, text) {
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

export function moveListHtml(line, startFen, current, prefix) {
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

export function onPointerDown(event) {
  if (event.button !== 0 || state.promotion) return;
  const square = squareAt(event);
  if (!square) return;
  event.preventDefault();
  const ch = placement(currentFen())[square];
  const turn = currentFen().split(' ')[1];
  const own = ch && (turn === 'w' ? ch === ch.toUpperCase() : ch === ch.toLowerCase());
  // Chess960 castling: the king picked up, then its own rook clicked.
  const castles = state.selected && state.board
    && state.board.legal.some((m) => m.uci.slice(0, 4) === state.selected + square);
  if (!own || castles) {
    if (state.selected) tryMove(state.selected, square);
    return;
  }
  state.selected = square;
  render();
  drag = { from: square, ch, x: event.clientX, y: event.clientY, ghost: null };
  $('board').setPointerCapture(event.pointerId);
}

export function onPointerMove(event) {
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

export function onPointerUp(event) {
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

// The browser took the pointer back: the drag is dropped.
export function onPointerCancel() {
  drag = null;
  render();
}
