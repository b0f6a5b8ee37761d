// The one page of `nerdr web`: hand-written HTML, its style and script inline under the nonce of
// the Content-Security-Policy it is served with. Everything an agent wrote (names, dialog text,
// options, screen lines, messages) reaches the document only as text (`textContent`), never as
// markup: the script builds every element itself. The only values put into the HTML here are the
// server's own nonce and CSRF token (base64url, escaped anyway).

/** `&<>"'` as entities, for anything placed in HTML text or a quoted attribute. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1b1b; --bg: #f6f6f4; --card: #fff; --mute: #666; --line: #ddd; --blocked: #c62828; --done: #2e7d32; --queued: #1565c0; --stalled: #ef6c00; --limited: #283593; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8e8e8; --bg: #141414; --card: #1f1f1f; --mute: #9a9a9a; --line: #333; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { position: sticky; top: 0; display: flex; align-items: center; gap: .5rem; padding: .6rem 1rem; background: var(--card); border-bottom: 1px solid var(--line); z-index: 1; }
header h1 { font-size: 1.1rem; margin: 0; flex: 1; }
#live { font-size: .85rem; color: var(--mute); }
#live.on::before { content: "● "; color: var(--done); }
#live.off::before { content: "● "; color: var(--blocked); }
main { max-width: 48rem; margin: 0 auto; padding: .75rem; }
.notice { background: #fff3e0; color: #4e2a00; border: 1px solid var(--stalled); border-radius: .5rem; padding: .6rem .8rem; margin-bottom: .75rem; }
.notice strong { display: block; }
.notice button { float: right; }
.row { background: var(--card); border: 1px solid var(--line); border-left: .35rem solid var(--mute); border-radius: .5rem; padding: .7rem .8rem; margin-bottom: .75rem; }
.row.blocked { border-left-color: var(--blocked); } .row.done { border-left-color: var(--done); }
.row.queued { border-left-color: var(--queued); } .row.stalled { border-left-color: var(--stalled); } .row.limited { border-left-color: var(--limited); }
.row.target { outline: .15rem solid var(--queued); }
.top { display: flex; flex-wrap: wrap; gap: .25rem .6rem; align-items: baseline; }
.name { font-weight: 600; overflow-wrap: anywhere; }
.meta { color: var(--mute); font-size: .85rem; }
.summary { margin: .35rem 0; overflow-wrap: anywhere; }
pre { margin: .4rem 0; padding: .5rem; background: var(--bg); border-radius: .35rem; white-space: pre-wrap; overflow-wrap: anywhere; font: .85rem/1.35 ui-monospace, Menlo, monospace; max-height: 16rem; overflow: auto; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .5rem; }
button { font: inherit; min-height: 2.75rem; padding: .4rem .9rem; border-radius: .4rem; border: 1px solid var(--line); background: var(--bg); color: var(--fg); cursor: pointer; }
button.approve, button.always { background: var(--done); color: #fff; border-color: var(--done); }
button.deny { background: var(--blocked); color: #fff; border-color: var(--blocked); }
button:disabled { opacity: .5; }
input[type=text] { font: inherit; min-height: 2.75rem; flex: 1 1 12rem; padding: .4rem; border-radius: .4rem; border: 1px solid var(--line); background: var(--bg); color: var(--fg); }
.empty { text-align: center; color: var(--mute); padding: 3rem 1rem; }
`;

// The page's script: plain ES2020, no framework. Kept free of innerHTML and its kin (a unit test
// checks): every text goes in through textContent.
const SCRIPT = `
'use strict';
const csrf = document.querySelector('meta[name="nerdr-csrf"]').content;
const list = document.getElementById('rows');
const notices = document.getElementById('notices');
const live = document.getElementById('live');
let rows = [];
let away = null;
let shown = '';

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function waited(since) {
  const s = Math.max(0, Math.round((Date.now() - since) / 1000));
  return s < 60 ? s + ' s' : s < 3600 ? Math.round(s / 60) + ' min' : Math.round(s / 360) / 10 + ' h';
}
const KIND = { blocked: 'needs you', done: 'finished', limited: 'at its usage limit', stalled: 'queue stalled', queued: 'queued message' };

function notice(title, lines) {
  const n = el('div', 'notice');
  n.setAttribute('role', 'alert');
  const x = el('button', '', '×');
  x.setAttribute('aria-label', 'dismiss');
  x.addEventListener('click', () => n.remove());
  n.append(x, el('strong', '', title));
  for (const l of lines) if (l) n.append(el('div', '', l));
  notices.prepend(n);
  while (notices.children.length > 5) notices.lastChild.remove();
}

async function act(path, body, row, card) {
  for (const b of card.querySelectorAll('button, input')) b.disabled = true;
  let r, text = '', j = {};
  try {
    r = await fetch(path, { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json', 'X-Nerdr-CSRF': csrf }, body: JSON.stringify(body) });
    text = await r.text();
    try { j = JSON.parse(text); } catch { j = {}; }
  } catch (e) {
    notice(row.name + ': not sent', ['nerdr web did not answer: ' + e.message]);
  }
  if (r && !r.ok) {
    const e = j.error || {};
    if (e.code === 'prompt_changed') {
      const now = e.current;
      notice(row.name + ': the prompt changed', [e.message, now ? 'now: ' + now.summary : 'no dialog waits there now', now && now.dialog ? now.dialog.text : '', 'nothing was typed']);
    } else if (j.error) {
      notice(row.name + ': ' + (e.message || 'refused'), [e.fix]);
    } else notice(row.name + ': refused (' + r.status + ')', [text.trim()]);
  }
  for (const b of card.querySelectorAll('button, input')) b.disabled = false;
}

// a fleet host's row is acted on by that host's own nerdr (the server runs it over ssh)
function withHost(body, row) {
  if (row.host) body.host = row.host;
  return body;
}
function choiceOf(opt, options) {
  const plain = opt.kind === 'approve' || opt.kind === 'always' || opt.kind === 'deny';
  return plain && options.filter((o) => o.kind === opt.kind).length === 1 ? opt.kind : opt.n;
}

function card(row) {
  const c = el('section', 'row ' + row.kind);
  c.id = 'row-' + row.id; // the anchor a notification links to (docs/on-events.md)
  c.dataset.row = row.id;
  if (location.hash === '#' + c.id) c.classList.add('target');
  c.dataset.window = row.window;
  const top = el('div', 'top');
  top.append(el('span', 'name', row.name), el('span', 'meta', row.agent + ' · ' + row.window + (row.host ? ' · ' + row.host : '')), el('span', 'meta', (KIND[row.kind] || row.kind) + ' · ' + waited(row.since)));
  c.append(top);
  if (row.summary) c.append(el('div', 'summary', row.summary));
  const actions = el('div', 'actions');
  if (row.kind === 'blocked' && row.dialog) {
    c.append(el('pre', 'dialog', row.dialog.text));
    if (row.answerable) {
      for (const opt of row.dialog.options) {
        if (opt.kind === 'text') {
          const input = el('input');
          input.type = 'text';
          input.placeholder = opt.label;
          const b = el('button', 'text', opt.n + '. send');
          b.addEventListener('click', () => act('/answer', withHost({ target: row.window, prompt: row.id, choice: opt.n, text: input.value }, row), row, c));
          actions.append(input, b);
          continue;
        }
        const b = el('button', opt.kind, opt.n + '. ' + opt.label);
        b.dataset.choice = String(choiceOf(opt, row.dialog.options));
        b.addEventListener('click', () => act('/answer', withHost({ target: row.window, prompt: row.id, choice: choiceOf(opt, row.dialog.options) }, row), row, c));
        actions.append(b);
      }
    } else c.append(el('div', 'meta', 'nerdr cannot type this agent\\'s answer: answer it in its window'));
  } else if (row.lines && row.lines.length) c.append(el('pre', 'lines', row.lines.join('\\n')));
  if (row.message && row.kind === 'queued') {
    c.append(el('pre', 'message', row.message.text));
    const b = el('button', 'cancel', 'Cancel message');
    b.addEventListener('click', () => act('/cancel', withHost({ id: row.message.id }, row), row, c));
    actions.append(b);
  }
  const s = el('button', 'snooze', 'Snooze 15 min');
  s.addEventListener('click', () => act('/snooze', withHost({ id: row.id, forMs: 15 * 60 * 1000 }, row), row, c));
  actions.append(s);
  c.append(actions);
  return c;
}

function render() {
  const focused = document.activeElement && document.activeElement.tagName === 'INPUT';
  if (focused) return; // never take text from under the user's fingers; the next change shows it
  const out = rows.map(card);
  if (!out.length) out.push(el('div', 'empty', away ? 'the supervisor does not answer' : 'nothing waits for you'));
  list.replaceChildren(...out);
  // a link to a row (#row-ID) scrolls to it once it is there
  if (location.hash !== shown) {
    const t = location.hash.startsWith('#row-') && document.getElementById(location.hash.slice(1));
    if (t) {
      t.scrollIntoView({ block: 'start' });
      shown = location.hash;
    }
  }
  document.title = (rows.length ? '(' + rows.length + ') ' : '') + 'nerdr inbox';
}

function setLive(on, text) {
  live.className = on ? 'on' : 'off';
  live.textContent = text;
}

const es = new EventSource('/events');
es.addEventListener('open', () => setLive(true, 'live'));
es.addEventListener('error', () => setLive(false, 'reconnecting…'));
es.addEventListener('inbox', (e) => {
  rows = JSON.parse(e.data).rows;
  away = null;
  setLive(true, 'live');
  render();
});
es.addEventListener('away', (e) => {
  away = JSON.parse(e.data);
  rows = [];
  setLive(false, 'supervisor away: ' + away.message);
  render();
});
window.addEventListener('hashchange', render);
setInterval(render, 30000);
`;

/** The page, with this load's nonce and CSRF token. */
export function page(nonce: string, csrf: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="nerdr-csrf" content="${escapeHtml(csrf)}">
<title>nerdr inbox</title>
<style nonce="${escapeHtml(nonce)}">${STYLE}</style>
</head>
<body>
<header><h1>nerdr inbox</h1><span id="live" class="off">connecting…</span></header>
<main>
<div id="notices" aria-live="polite"></div>
<div id="rows"></div>
</main>
<script nonce="${escapeHtml(nonce)}">${SCRIPT}</script>
</body>
</html>
`;
}

/** The script alone, for the test that keeps it free of HTML sinks. */
export const PAGE_SCRIPT = SCRIPT;
