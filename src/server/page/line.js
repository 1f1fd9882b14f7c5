// Moving through the line: showing a ply, playing a move (with its promotion dialog), and
// setting a new start; the /move answers are cached by position.

import { $, state, api, currentFen, played } from './state.js';
import { saveUrl } from './url.js';
import { render, setStatus, setError } from './board.js';
import { explore } from './explorer.js';

// ---------------------------------------------------------------------------------------------
// Moving through the line

// Shows ply `cursor` of the line.
export async function show(cursor, push) {
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

// By variant and FEN: the standard setup's FEN names both variants' starts.
const legalCache = new Map();
async function legal(fen) {
  const key = `${state.variant} ${fen}`;
  if (!legalCache.has(key)) {
    if (legalCache.size > 500) legalCache.clear();
    legalCache.set(key, await api('move', { fen }));
  }
  return legalCache.get(key);
}

// Plays `uci` from the position shown: follows the line when it is its next move, or replaces
// the rest of the line.
export async function playMove(uci) {
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
    legalCache.set(`${state.variant} ${answer.fen}`, answer);
    saveUrl(true);
    render();
    await exploring;
  }
  window.tabiyaTimings.moves.push(Math.round(performance.now() - started));
}

// Tries the move from `from` to `to`: refused when illegal, asks for the piece of a promotion.
export function tryMove(from, to) {
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
    // Antichess's pawns may become kings: the button shows only where such a move is legal.
    dialog.querySelector('[data-role="k"]').hidden = !candidates.some((m) => m.uci.endsWith('k'));
    dialog.hidden = false;
    dialog.querySelector('button').focus();
    return;
  }
  playMove(candidates[0].uci);
}

export function closePromotion() {
  state.promotion = null;
  $('promotion').hidden = true;
}

// A position typed or found by a search becomes the new start.
export async function setStart(fen, errorBox) {
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
