// The filters form and its summary, and the material and pattern searches.

import { $, state, api, filterParams, escapeHtml, number } from './state.js';
import { saveUrl } from './url.js';
import { render, setError } from './board.js';
import { explore } from './explorer.js';

// ---------------------------------------------------------------------------------------------
// Filters and search

export function showFilterSummary() {
  const f = state.filters;
  const parts = [];
  if (f.since || f.until) parts.push(`${f.since || '…'} to ${f.until || '…'}`);
  if (f.speeds.length) parts.push(f.speeds.join(', '));
  if (f.ratings.length) parts.push(`ratings ${f.ratings.join(', ')}`);
  if (f.player) parts.push(`${f.player} as ${f.color}`);
  $('filter-summary').textContent = parts.length ? `(${parts.join('; ')})` : '(all games)';
}

export async function applyFilters(event) {
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

// Suggests players as their name is typed: the spellings' players from /players, most played
// first. An answer to an older prefix is dropped.
let suggesting = 0;
export async function suggestPlayers() {
  const prefix = $('filter-form').player.value.trim();
  const request = ++suggesting;
  if (prefix.length < 2) { $('player-names').innerHTML = ''; return; }
  let players = [];
  try {
    players = await api('players', { prefix, limit: 8 });
  } catch (_) {
    players = [];
  }
  if (request !== suggesting) return;
  $('player-names').innerHTML = players.map((p) => `<option value="${escapeHtml(p.name)}">`
    + `${escapeHtml(p.name)} · ${number(p.games)} games</option>`).join('');
}

export async function search(event) {
  event.preventDefault();
  const kind = $('search-kind').value;
  const text = $('search-input').value.trim();
  setError('search-error', '');
  $('search-results').innerHTML = '';
  $('search-summary').textContent = text ? 'Searching…' : '';
  if (!text) return;
  let found;
  try {
    // Counted under the filters the form shows, as the explorer's answers are.
    found = kind === 'material'
      ? await api('material', { ...filterParams(), material: text, limit: 20 })
      : await api('pattern', { ...filterParams(), q: text, limit: 20 });
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
