// Tether console: submits action forms without leaving the page, and keeps
// an agent page current from its Server-Sent Events. No build step, no
// dependencies; the pages work without it, only less live.
(() => {
  'use strict';

  const $ = (id) => document.getElementById(id);

  // Action forms answer JSON: the server's typed error, or what was done.
  // Listening on the document also serves the forms the live feed brings
  // (decision cards), whose button may name its own action (Deny).
  document.addEventListener('submit', async (ev) => {
    const form = ev.target.closest('form[data-act]');
    if (!form) return;
    ev.preventDefault();
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
    const body = new FormData(form, ev.submitter);
    const action = (ev.submitter && ev.submitter.getAttribute('formaction')) || form.action;
    const out = form.querySelector('.result') || $('result');
    show(out, 'pending', 'sending…');
    try {
      const resp = await fetch(action, {
        method: 'POST',
        body: new URLSearchParams(body),
        headers: { Accept: 'application/json', 'X-CSRF-Token': body.get('csrf') || '' },
        credentials: 'same-origin',
      });
      const data = await resp.json();
      if (!resp.ok) {
        show(out, 'error', `${data.error} (${data.code})`);
        return;
      }
      show(out, 'ok', done(data));
      if (data.url) window.location.assign(data.url);
      if (form.dataset.act === 'message') form.querySelector('textarea').value = '';
    } catch (e) {
      show(out, 'error', String(e));
    }
  });

  function show(el, cls, text) {
    if (!el) return;
    el.className = `result ${cls}`;
    el.textContent = text;
  }

  function done(d) {
    switch (d.done) {
      case 'followup': case 'steer': case 'inject':
        return `${d.done} accepted as ${d.message_id} (log #${d.seq})`;
      case 'model': return `model switch to ${d.model} requested`;
      case 'cancel': return 'cancel requested';
      case 'dispose': return 'disposed';
      case 'approve': case 'deny': return `${d.done} recorded for ${d.call_id} (log #${d.seq})`;
      case 'answer': return `answer recorded for ${d.call_id} (log #${d.seq})`;
      case 'fork': return `forked as ${d.id}`;
      case 'rewind':
        return d.seq < 0 ? `already at the end of turn ${d.turn}: nothing recorded`
          : `rewound to the end of turn ${d.turn} (log #${d.seq})`;
      default: return d.done;
    }
  }

  // The replay scrubber is a plain GET form; moving it goes there at once.
  const scrub = $('scrub-at');
  const scrubPos = () => { $('scrub-pos').textContent = `seq ${scrub.value} of ${scrub.max}`; };
  if (scrub) {
    scrub.addEventListener('input', scrubPos);
    scrub.addEventListener('change', () => scrub.form.requestSubmit());
  }

  const root = $('agent');

  // A block depends only on the log, so it carries no form: an operator's
  // live page gives each turn a rewind may go back to (data-rewind) its
  // "Rewind to here" form, with this session's token.
  function ownRewinds(scope) {
    if (!root || root.dataset.live !== 'true' || !root.dataset.csrf) return;
    scope.querySelectorAll('article.turn[data-rewind] .turn-head').forEach((head) => {
      if (head.querySelector('form.rewind')) return;
      const turn = head.parentElement.dataset.rewind;
      const f = document.createElement('form');
      f.className = 'rewind';
      f.method = 'post';
      f.action = `/agents/${encodeURIComponent(root.dataset.agent)}/rewind`;
      f.dataset.act = 'rewind';
      f.dataset.confirm = `Rewind to the end of turn ${turn}? The turns after it stay in the log, set apart, and leave the conversation.`;
      for (const [name, value] of [['csrf', root.dataset.csrf], ['to_turn', turn]]) {
        const i = document.createElement('input');
        i.type = 'hidden';
        i.name = name;
        i.value = value;
        f.append(i);
      }
      const b = document.createElement('button');
      b.className = 'rewind-here';
      b.textContent = 'Rewind to here';
      b.title = `the conversation goes on from the end of turn ${turn}`;
      f.append(b);
      head.append(f);
    });
  }
  ownRewinds(document);

  if (!root || root.dataset.live !== 'true') return;

  const transcript = $('transcript');
  const live = new Map(); // "turn-step" -> { text, failed }
  const conn = (text, cls) => { const c = $('conn'); c.textContent = text; c.className = `conn ${cls || ''}`; };
  const atBottom = () => window.innerHeight + window.scrollY >= document.body.scrollHeight - 80;

  function fillLive(scope) {
    scope.querySelectorAll('.live').forEach((el) => {
      const cur = live.get(`${el.dataset.turn}-${el.dataset.step}`);
      if (!cur || (!cur.text && !cur.failed)) return;
      el.textContent = cur.text;
      el.classList.toggle('failed', cur.failed);
      el.classList.add('streaming');
    });
  }

  // A block's HTML replaces the old one whole; details the reader opened
  // stay open.
  function replace(id, html) {
    const follow = atBottom();
    const old = $(id);
    const open = old ? [...old.querySelectorAll('details[data-key]')].filter((d) => d.open).map((d) => d.dataset.key) : [];
    const tpl = document.createElement('template');
    tpl.innerHTML = html.trim();
    const el = tpl.content.firstElementChild;
    if (!el) return;
    if (old) old.replaceWith(el); else { const none = $('no-turns'); if (none) none.remove(); transcript.append(el); }
    el.querySelectorAll('details[data-key]').forEach((d) => { if (open.includes(d.dataset.key)) d.open = true; });
    ownRewinds(el);
    fillLive(el);
    if (follow) window.scrollTo(0, document.body.scrollHeight);
  }

  const url = `/agents/${encodeURIComponent(root.dataset.agent)}/events?from=${Number(root.dataset.next)}`;
  const es = new EventSource(url);
  es.onopen = () => conn('live', 'ok');
  es.onerror = () => { if (es.readyState !== EventSource.CLOSED) conn('reconnecting…', 'warn'); };
  es.addEventListener('block', (ev) => { const d = JSON.parse(ev.data); replace(d.id, d.html); });
  // The feed's panel is the same for every viewer: the page gives its
  // decision forms this session's token, or drops them for a reader.
  function ownForms(scope) {
    scope.querySelectorAll('form.decide').forEach((f) => {
      if (!root.dataset.csrf) { f.remove(); return; }
      f.querySelector('input[name=csrf]').value = root.dataset.csrf;
    });
  }

  // How long each card has waited, kept current between feed events.
  setInterval(() => {
    document.querySelectorAll('time[data-since]').forEach((t) => {
      const s = Math.max(0, Math.round((Date.now() - Date.parse(t.dataset.since)) / 1000));
      t.textContent = s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m` : s < 172800 ? `${Math.floor(s / 3600)}h` : `${Math.floor(s / 86400)}d`;
    });
  }, 1000);

  es.addEventListener('status', (ev) => {
    const d = JSON.parse(ev.data);
    // A card being written in keeps its text across the refresh.
    const key = (t) => `${t.closest('form').querySelector('[name=call_id]').value}/${t.name}`;
    const typed = new Map([...document.querySelectorAll('#status form.decide textarea')].map((t) => [key(t), t.value]));
    $('status').innerHTML = d.html;
    ownForms($('status'));
    $('status').querySelectorAll('form.decide textarea').forEach((t) => {
      const v = typed.get(key(t));
      if (v) {
        t.value = v;
        const open = t.closest('details');
        if (open) open.open = true;
      }
    });
    root.dataset.seq = ev.lastEventId;
    // On the live page the scrubber reaches the latest position, and
    // stays on it if it was there.
    if (scrub && Number(ev.lastEventId) > Number(scrub.max)) {
      const follow = scrub.value === scrub.max;
      scrub.max = ev.lastEventId;
      if (follow) scrub.value = scrub.max;
      scrubPos();
    }
    root.classList.toggle('running', d.running);
  });
  es.addEventListener('token', (ev) => {
    const d = JSON.parse(ev.data);
    const key = `${d.turn}-${d.step}`;
    const cur = live.get(key) || { text: '', failed: false };
    cur.text = d.replace ? d.text : cur.text + d.text;
    cur.failed = d.failed;
    live.set(key, cur);
    const follow = atBottom();
    const el = $(`live-${key}`);
    if (el) { fillLive(el.parentElement); if (follow) window.scrollTo(0, document.body.scrollHeight); }
  });
  es.addEventListener('notice', (ev) => conn(JSON.parse(ev.data).message, 'warn'));
  es.addEventListener('closed', () => { es.close(); conn('closed: the agent has ended', 'closed'); });
})();
