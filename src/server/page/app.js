// The explorer page. It knows no chess rules: legal moves, SAN and positions come from the
// server (/move), statistics from the explorer API (/lichess, /player), games from /game/{id}.
// The URL holds the start position, the moves played and the filters, so a link reproduces
// the view.
//
// The entry module: it wires the page's controls to the other modules and loads the view.

import { $, state, api, number } from './state.js';
import { restore, setVariant } from './url.js';
import { show, playMove, closePromotion, setStart } from './line.js';
import { render, setStatus, onPointerDown, onPointerMove, onPointerUp, onPointerCancel } from './board.js';
import { openGame, renderViewer } from './viewer.js';
import { applyFilters, search, suggestPlayers } from './search.js';

// ---------------------------------------------------------------------------------------------
// Wiring

function wire() {
  const board = $('board');
  board.addEventListener('pointerdown', onPointerDown);
  board.addEventListener('pointermove', onPointerMove);
  board.addEventListener('pointerup', onPointerUp);
  board.addEventListener('pointercancel', onPointerCancel);
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
  $('variant-select').addEventListener('change', () => {
    // A variant's own start: its standard setup (Chess960's position 518), or a FEN typed next.
    // The view's pending answers and history are dropped: they are the other variant's.
    state.request += 1;
    setVariant($('variant-select').value);
    setStart('', 'fen-error');
  });
  $('fen-form').addEventListener('submit', (event) => {
    event.preventDefault();
    setStart($('fen-input').value.trim(), 'fen-error');
  });
  $('filter-form').addEventListener('submit', applyFilters);
  $('filter-form').player.addEventListener('input', suggestPlayers);
  $('filter-reset').addEventListener('click', (event) => {
    $('filter-form').reset();
    applyFilters(event);
  });
  $('search-kind').addEventListener('change', () => {
    $('search-input').placeholder = $('search-kind').value === 'material' ? 'KRPvKR' : 'Qg7 and kg8';
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
