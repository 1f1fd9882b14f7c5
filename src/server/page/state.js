// Shared by every module: the constants, the one `state` object (mutated in place, never
// reassigned, so every module sees the same view), `$`, the timings the browser tests read,
// the server calls and the helpers that format text for the page.

export const INITIAL = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -';
export const FILES = 'abcdefgh';
// How long the view rests before its month-by-month history is asked for.
export const HISTORY_DELAY_MS = 250;
export const $ = (id) => document.getElementById(id);

export const state = {
  variant: 'standard', // the rules and the positions asked about: lichess's name of a variant
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

// The calls whose answers depend on the variant: they are told it, as lichess's API is (the
// view's variant when the call is made, unless the call names the one it was made for).
const BY_VARIANT = new Set(['move', 'lichess', 'player', 'material', 'pattern', 'games']);

export async function api(path, params) {
  const { variant = state.variant, ...rest } = params || {};
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(rest)) {
    if (value !== undefined && value !== null && value !== '') query.set(name, value);
  }
  if (variant !== 'standard' && BY_VARIANT.has(path)) query.set('variant', variant);
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

export const currentFen = () => (state.cursor === 0 ? state.start : state.line[state.cursor - 1].fen);
export const played = () => state.line.slice(0, state.cursor).map((ply) => ply.uci).join(',');

export function filterParams() {
  const f = state.filters;
  return {
    since: f.since, until: f.until, speeds: f.speeds.join(','), ratings: f.ratings.join(','),
    player: f.player, color: f.player ? f.color : '',
  };
}

// ---------------------------------------------------------------------------------------------
// Text

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

export const number = (n) => (n === null || n === undefined ? '' : Number(n).toLocaleString('en-US'));
