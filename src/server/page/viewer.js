// The game viewer: opening a game from the lists on its position, and its move list.

import { $, state, api, currentFen } from './state.js';
import { show } from './line.js';
import { setError, moveListHtml } from './board.js';

// ---------------------------------------------------------------------------------------------
// Game viewer

export async function openGame(id) {
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

export function renderViewer() {
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
