// The explorer: asking /lichess or /player about the view, and drawing the answer (the move
// table, the top and recent games, the history chart).

import { INITIAL, HISTORY_DELAY_MS, $, state, api, played, filterParams, escapeHtml, number } from './state.js';
import { setError } from './board.js';

// ---------------------------------------------------------------------------------------------
// Explorer

// Asks the explorer about the moves `play` from the start (the line shown by default) and shows
// its answer. The month-by-month history, which reads every slice of the position, is asked
// for once the view has rested (a player's answer carries it: its games are replayed once).
export async function explore(play = played()) {
  const request = ++state.request;
  const f = state.filters;
  // The view's variant now: the history asked for later is this view's, whatever comes next.
  const common = {
    variant: state.variant, fen: state.start === INITIAL ? '' : state.start, play, since: f.since, until: f.until,
    speeds: f.speeds.join(','), ratings: f.ratings.join(','),
  };
  // The book link follows the view and the filters.
  const book = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...filterParams(), fen: common.fen, play, minGames: 2 })) {
    if (value !== '') book.set(name, value);
  }
  $('book-link').href = `book.bin?${book}`;
  $('book-link').hidden = state.variant !== 'standard';
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
    // No book of filters the explorer refuses (an ambiguous player name).
    $('book-link').hidden = true;
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

function renderExplorer(answer, playerMode) {
  const total = answer.white + answer.draws + answer.black;
  const games = playerMode ? total : answer.games;
  const opening = answer.opening;
  $('opening').innerHTML = opening
    ? `<span class="eco">${escapeHtml(opening.eco)}</span>${escapeHtml(opening.name)}` : '';
  $('rating-head').textContent = playerMode ? 'Opp.' : 'Avg';
  $('rating-head').title = playerMode ? 'Average opponent rating' : 'Average rating';
  // The evaluation and time columns, when the games carry any (annotations).
  const evals = Boolean(answer.eval) || answer.moves.some((m) => m.eval || m.loss);
  const times = answer.moves.some((m) => m.time);
  // Games reaching each move's position by any order: the explorer's answers count them, a
  // player's do not.
  const reached = answer.moves.some((m) => m.reached);
  $('eval-head').hidden = !evals;
  $('time-head').hidden = !times;
  $('reached-head').hidden = !reached;
  $('moves').classList.toggle('noted', evals);
  const rows = answer.moves.map((m) => {
    const count = playerMode ? m.white + m.draws + m.black : m.games;
    const share = games ? percent((100 * count) / games) : '';
    const rating = playerMode ? m.averageOpponentRating : m.averageRating;
    // The opening the move leads to, when the imported table names it (lichess's `opening`).
    const leads = m.opening ? ` (${m.opening.eco} ${m.opening.name})` : '';
    return `<tr tabindex="0" data-uci="${escapeHtml(m.uci)}" data-games="${count}" title="Play ${escapeHtml(m.san + leads)}">`
      + `<td>${escapeHtml(m.san)}</td><td class="num">${number(count)}<span class="share">${share}</span></td>`
      + `<td>${wdlBar(m.white, m.draws, m.black)}</td><td class="num">${rating ?? ''}</td>`
      + `<td class="num">${m.performance ?? ''}</td>`
      + (evals ? evalCell(m.eval, m.loss, `after ${m.san}`) : '') + (times ? timeCell(m) : '')
      + (reached ? reachedCell(m, count) : '') + '</tr>';
  }).join('');
  const columns = 5 + evals + times + reached;
  $('moves').tBodies[0].innerHTML = rows
    || `<tr><td colspan="${columns}" class="muted">No game continues from this position</td></tr>`;
  $('moves').tFoot.innerHTML = `<tr><td>Σ</td><td class="num" id="total-games" data-games="${games}">${number(games)}</td>`
    + `<td>${wdlBar(answer.white, answer.draws, answer.black)}</td>`
    + `<td class="num">${playerMode ? '' : answer.averageRating ?? ''}</td><td></td>`
    + (evals ? evalCell(answer.eval, null, 'of this position') : '') + (times ? '<td class="time"></td>' : '') + (reached ? '<td></td>' : '') + '</tr>';
  const sans = new Map(answer.moves.map((m) => [m.uci, m.san]));
  renderGames('top-games', 'top-title', playerMode ? [] : answer.topGames || [], sans);
  renderGames('recent-games', 'recent-title', answer.recentGames || [], sans);
  if (answer.history) renderHistory(answer.history, answer.historyYearOnly);
}

// An evaluation in pawns from White's view, as engines print it: +0.25, −1.30.
function pawns(cp) {
  const text = Math.abs(cp / 100).toFixed(2);
  return cp > 0.5 ? `+${text}` : cp < -0.5 ? `−${text}` : text;
}

// The mean evaluation (`eval`) of a position or after a move, over how many games it counts, and
// what the move gave up (`loss`), in the tooltip; mates counted apart.
function evalCell(e, loss, what) {
  if (!e) return '<td class="num eval"></td>';
  const mates = e.mates.white + e.mates.black;
  const shown = e.cp !== null ? pawns(e.cp) : (e.mates.white >= e.mates.black ? '#+' : '#−');
  let title = `Mean engine evaluation ${what}: ${e.cp !== null ? pawns(e.cp) : 'none numeric'} (White's view)`
    + ` over ${number(e.games)} game${e.games === 1 ? '' : 's'}`;
  if (mates) title += `; mates: ${number(e.mates.white)} for White, ${number(e.mates.black)} for Black`;
  if (loss) {
    title += `; the mover gave up ${loss.cp.toFixed(0)} centipawns on average, ${Math.round(100 * loss.mistakes)}%`
      + ` of ${number(loss.moves)} moves 100 or more`;
  }
  return `<td class="num eval" data-cp="${e.cp ?? ''}" data-games="${e.games}" title="${escapeHtml(title)}">`
    + `${shown}<span class="share">${number(e.games)}</span></td>`;
}

// The mean time the movers spent (`time`).
function timeCell(m) {
  const t = m.time;
  if (!t) return '<td class="num time"></td>';
  const whole = Math.round(t.seconds);
  const seconds = whole >= 60 ? `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}` : `${t.seconds.toFixed(1)}s`;
  const title = `Mean time spent on ${m.san}: ${t.seconds.toFixed(1)} s over ${number(t.moves)} move${t.moves === 1 ? '' : 's'}`;
  return `<td class="num time" data-seconds="${t.seconds}" title="${escapeHtml(title)}">${seconds}</td>`;
}

// The games reaching the position after the move by any move order (`reached`), marked when
// other move orders add games; the tooltip gives their results.
function reachedCell(m, count) {
  if (!m.reached) return '<td></td>';
  const r = m.reached;
  const reached = r.games;
  const title = `${number(reached)} games reach the position after ${m.san} by any move order`
    + ` (${number(r.white)} white wins, ${number(r.draws)} draws, ${number(r.black)} black wins)`;
  return `<td class="num reached${reached > count ? ' more' : ''}" data-reached="${reached}" title="${escapeHtml(title)}">`
    + `${number(reached)}</td>`;
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
