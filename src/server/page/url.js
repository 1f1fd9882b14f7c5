// The URL: the view (start, moves, filters) written to the address bar and read back from it
// on load and on the browser's back/forward.

import { INITIAL, $, state, api, played, filterParams } from './state.js';
import { show } from './line.js';
import { render, setError } from './board.js';
import { explore } from './explorer.js';
import { showFilterSummary } from './search.js';

// ---------------------------------------------------------------------------------------------
// URL

// The view as query parameters (start, moves, filters; empty ones left out): the page's URL
// and the opening report's.
export function viewQuery() {
  const params = {
    variant: state.variant === 'standard' ? '' : state.variant,
    fen: state.start === INITIAL ? '' : state.start,
    play: played(),
    ...filterParams(),
  };
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) query.set(name, value);
  return query;
}

// The variants a link may name (lichess's names), those the selector offers.
const VARIANTS = ['standard', 'chess960', 'kingOfTheHill', 'threeCheck', 'racingKings', 'atomic', 'antichess'];

// The variant asked about, shown in its selector; the Polyglot book, standard chess's by its
// format, is offered in standard chess only.
export function setVariant(variant) {
  state.variant = variant;
  $('variant-select').value = variant;
  $('book-line').hidden = variant !== 'standard';
}

function urlParams() {
  const text = viewQuery().toString();
  return text ? `?${text}` : location.pathname;
}

export function saveUrl(push) {
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
export async function restore() {
  const query = new URLSearchParams(location.search);
  readFilters(query);
  const variant = VARIANTS.includes(query.get('variant')) ? query.get('variant') : 'standard';
  const sameVariant = variant === state.variant;
  setVariant(variant);
  const start = query.get('fen') || INITIAL;
  const moves = query.get('play') || '';
  const ucis = moves.split(',').filter(Boolean);
  const known = state.line.map((ply) => ply.uci);
  if (sameVariant && start === state.start && ucis.every((uci, i) => known[i] === uci) && state.board) {
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
    // The start's canonical FEN: the answer's own when no move follows it. Without a FEN, the
    // variant's own start (Racing Kings' is not the standard setup; Three-check's counts checks).
    const ownStart = query.get('fen') || variant !== 'standard';
    const [answer, first] = await Promise.all([
      api('move', { fen: query.get('fen'), play: moves }),
      ownStart && ucis.length ? api('move', { fen: query.get('fen') }) : null,
    ]);
    state.start = ownStart ? (first || answer).fen : INITIAL;
    state.line = answer.line;
    state.cursor = answer.line.length;
    state.board = answer;
    setError('fen-error', '');
  } catch (err) {
    await exploring;
    setError('fen-error', `The link's position: ${err.message}`);
    state.line = [];
    state.cursor = 0;
    state.board = await api('move', {});
    state.start = state.board.fen;
    render();
    await explore();
    return;
  }
  render();
  await exploring;
}
