// The timeline page's script: it decodes the data Write embedded (gzip'ed
// JSON in base64, see chunk.go), draws the lanes, and shows a clicked
// revision as history --diff does. It requests nothing.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const meta = JSON.parse($('meta').textContent);
  const full = meta.until - meta.since;
  const OPS = ['', 'ADDED', 'MODIFIED', 'DELETED', 'INITIAL'];
  const PRECEDENCE = [0, 5, 1, 4, 0, 3, 6, 7];
  const WARNING = 7;
  const ROW = 18;
  const view = { t0: 0, t1: full, filter: '', lanes: [], rows: [], selected: null };

  // ---- Data ----------------------------------------------------------
  async function gunzipJSON(b64) {
    const bin = atob(b64.replace(/\s+/g, ''));
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return JSON.parse(await new Response(stream).text());
  }

  async function loadLanes() {
    for (const el of document.querySelectorAll('script.lanes')) {
      const chunk = +el.dataset.chunk;
      (await gunzipJSON(el.textContent)).forEach((l, i) => {
        l.chunk = chunk; l.idx = i;
        l.key = `${meta.kinds[l.k].name} ${l.ns ? l.ns + '/' : ''}${l.n}`.toLowerCase();
        view.lanes.push(l);
      });
    }
    const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
    view.lanes.sort((a, b) => a.c - b.c || a.k - b.k || cmp(a.ns, b.ns) || cmp(a.n, b.n));
  }

  const chunks = new Map(); // the revisions of the chunks read last
  function revisionsOf(lane) {
    if (!chunks.has(lane.chunk)) {
      if (chunks.size >= 2) chunks.delete(chunks.keys().next().value);
      chunks.set(lane.chunk, gunzipJSON($('revs-' + lane.chunk).textContent));
    }
    return chunks.get(lane.chunk).then((c) => c[lane.idx]);
  }

  // ---- Rows: a group header per context, kind and namespace, then lanes
  function buildRows() {
    const f = view.filter.toLowerCase();
    view.rows = [];
    let group = '';
    for (const l of view.lanes) {
      if (f && !l.key.includes(f)) continue;
      const g = groupName(l);
      if (g !== group) { view.rows.push({ group: g }); group = g; }
      view.rows.push({ lane: l });
    }
    $('lanes-inner').style.height = view.rows.length * ROW + 'px';
  }

  function groupName(l) {
    const parts = [];
    if (meta.contexts.length > 1) parts.push(meta.contexts[l.c]);
    parts.push(meta.kinds[l.k].name);
    if (l.ns) parts.push('namespace ' + l.ns);
    return parts.join(' · ');
  }

  // ---- Drawing ---------------------------------------------------------
  const x = (t) => (t - view.t0) / (view.t1 - view.t0);
  const inView = (t) => t >= view.t0 && t <= view.t1;

  function draw() {
    drawAxis();
    drawDensity();
    drawLanes(true);
  }

  // drawLanes puts the rows in view (and 10 either side) in the DOM; a
  // scroll that keeps them in view changes nothing (a click's target stays).
  let drawn = '';
  function drawLanes(force) {
    const box = $('lanes');
    const first = Math.max(0, Math.floor(box.scrollTop / ROW / 10) * 10 - 10);
    const last = Math.min(view.rows.length, first + Math.ceil(box.clientHeight / ROW) + 30);
    if (force !== true && drawn === `${first} ${last}`) return;
    drawn = `${first} ${last}`;
    const inner = $('lanes-inner');
    inner.textContent = '';
    for (let i = first; i < last; i++) inner.appendChild(rowElement(view.rows[i], i));
  }

  function rowElement(row, i) {
    const el = document.createElement('div');
    el.className = 'row' + (row.group ? ' group' : ' lane');
    el.style.top = i * ROW + 'px';
    const label = document.createElement('div');
    label.className = 'label';
    el.appendChild(label);
    if (row.group) { label.textContent = row.group; return el; }
    const l = row.lane;
    label.textContent = l.n;
    label.title = (l.ns ? l.ns + '/' : '') + l.n;
    el.dataset.name = label.title;
    el.dataset.kind = meta.kinds[l.k].name;
    const track = document.createElement('div');
    track.className = 'track';
    el.appendChild(track);
    const width = track.clientWidth || $('axis-track').clientWidth || 800;
    const cells = new Map(); // one mark per 4 pixels: the highest by precedence
    l.m.forEach((m, mi) => {
      if (!inView(m[0])) return;
      const px = Math.floor((x(m[0]) * width) / 4);
      const had = cells.get(px);
      if (had === undefined || PRECEDENCE[m[1]] >= PRECEDENCE[l.m[had][1]]) cells.set(px, mi);
    });
    for (const mi of cells.values()) track.appendChild(markElement(l, mi));
    return el;
  }

  function markElement(l, mi) {
    const m = l.m[mi];
    const b = document.createElement('button');
    b.className = 'mark t' + m[1];
    if (view.selected && view.selected.lane === l && view.selected.mi === mi) b.classList.add('selected');
    b.style.left = x(m[0]) * 100 + '%';
    b.title = `${meta.types[m[1]]} at ${when(m[0], m[3])}` + (m[1] === WARNING ? `: ${m[4]}` : ` (resourceVersion ${m[2]})`);
    b.dataset.rv = m[2];
    b.dataset.type = meta.types[m[1]];
    b.addEventListener('click', () => select(l, mi));
    return b;
  }

  function drawDensity() {
    const track = $('density-track');
    const bins = Math.max(1, Math.floor((track.clientWidth || 800) / 3));
    const counts = new Array(bins).fill(0);
    for (const row of view.rows) {
      if (!row.lane) continue;
      for (const m of row.lane.m) if (inView(m[0])) counts[Math.min(bins - 1, Math.floor(x(m[0]) * bins))]++;
    }
    const most = Math.max(1, ...counts);
    track.textContent = '';
    counts.forEach((n, i) => {
      if (!n) return;
      const bar = document.createElement('div');
      bar.className = 'bar';
      bar.style.left = (i / bins) * 100 + '%';
      bar.style.height = Math.max(2, (n / most) * 26) + 'px';
      bar.title = `${n} marks from ${when(view.t0 + (i / bins) * (view.t1 - view.t0), 0)}`;
      track.appendChild(bar);
    });
  }

  const STEPS = [1, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400].map((s) => s * 1000);
  function drawAxis() {
    const track = $('axis-track');
    const width = track.clientWidth || 800;
    const span = view.t1 - view.t0;
    const step = STEPS.find((s) => (width * s) / span >= 90) || STEPS[STEPS.length - 1];
    const since = new Date(meta.since + view.t0), until = new Date(meta.since + view.t1);
    const days = since.toISOString().slice(0, 10) !== until.toISOString().slice(0, 10);
    track.textContent = '';
    for (let t = Math.ceil((meta.since + view.t0) / step) * step; t <= meta.since + view.t1; t += step) {
      const iso = new Date(t).toISOString();
      const tick = document.createElement('div');
      tick.className = 'tick';
      tick.style.left = x(t - meta.since) * 100 + '%';
      tick.textContent = (days ? iso.slice(5, 10) + ' ' : '') + iso.slice(11, step < 60000 ? 19 : 16);
      track.appendChild(tick);
    }
  }

  // ---- Zoom, pan, filter ----------------------------------------------
  function zoom(factor, at) {
    const span = view.t1 - view.t0;
    const next = Math.min(full, Math.max(1000, span * factor));
    const centre = view.t0 + span * (at === undefined ? 0.5 : at);
    view.t0 = centre - (centre - view.t0) * (next / span);
    view.t1 = view.t0 + next;
    pan(0);
  }

  function pan(fraction) {
    const span = view.t1 - view.t0;
    view.t0 = Math.min(Math.max(0, view.t0 + span * fraction), full - span);
    view.t1 = view.t0 + span;
    draw();
  }

  function wheel(ev) {
    if (ev.currentTarget === $('lanes') && !ev.ctrlKey && !ev.altKey) return; // scrolls the lanes
    ev.preventDefault();
    const r = $('axis-track').getBoundingClientRect();
    zoom(ev.deltaY > 0 ? 1.25 : 0.8, Math.min(1, Math.max(0, (ev.clientX - r.left) / r.width)));
  }

  function controls() {
    $('zoom-in').onclick = () => zoom(0.5);
    $('zoom-out').onclick = () => zoom(2);
    $('zoom-fit').onclick = () => { view.t0 = 0; view.t1 = full; draw(); };
    $('pan-left').onclick = () => pan(-0.25);
    $('pan-right').onclick = () => pan(0.25);
    for (const id of ['density', 'axis', 'lanes']) $(id).addEventListener('wheel', wheel, { passive: false });
    $('lanes').addEventListener('scroll', () => requestAnimationFrame(drawLanes));
    window.addEventListener('resize', draw);
    $('filter').addEventListener('input', (ev) => { view.filter = ev.target.value; buildRows(); draw(); status(); });
    $('panel-close').onclick = closePanel;
    document.addEventListener('keydown', (ev) => { if (ev.key === 'Escape') closePanel(); });
    $('legend').innerHTML = '';
    meta.types.forEach((name, t) => {
      if (!t) return;
      const s = document.createElement('span');
      s.innerHTML = `<i class="swatch mark t${t}" style="position:static"></i>`;
      s.append(name);
      $('legend').appendChild(s);
    });
  }

  function status() {
    const lanes = view.rows.filter((r) => r.lane);
    const marks = lanes.reduce((n, r) => n + r.lane.m.length, 0);
    $('status').textContent = `${lanes.length} lanes, ${marks} marks · click a mark for its diff · the wheel over the axis zooms (ctrl+wheel over the lanes)`;
  }

  function closePanel() { $('panel').hidden = true; view.selected = null; drawLanes(true); }

  // ---- The panel ---------------------------------------------------------
  async function select(lane, mi) {
    view.selected = { lane, mi };
    drawLanes(true);
    const m = lane.m[mi];
    const kind = meta.kinds[lane.k].name;
    $('panel').hidden = false;
    $('panel-title').textContent = `${kind} ${lane.ns ? lane.ns + '/' : ''}${lane.n}`;
    const revs = await revisionsOf(lane);
    let i = -1;
    if (m[1] === WARNING) {
      for (let j = 0; j < revs.length && revs[j][1] <= m[0]; j++) i = j;
      $('panel-head').textContent = `Warning ${m[4]} at ${when(m[0], m[3])}: ${m[5]}\n(Event ${m[6]}, resourceVersion ${m[2]})`;
      $('panel-diff').textContent = 'A Warning Event about the object: no revision of it.';
    } else {
      i = revs.findIndex((r) => r[0] === m[2]);
      const r = revs[i];
      $('panel-head').textContent = header(kind, lane.n, r);
      showDiff(i > 0 ? revs[i - 1] : null, r);
    }
    $('panel-state-title').textContent = i < 0 ? 'The object then: not recorded yet' : `The object then (resourceVersion ${revs[i][0]})`;
    $('panel-state').textContent = i < 0 ? '' : toYAML(revs[i][5]);
  }

  // header is history --diff's line of a revision.
  function header(kind, name, r) {
    let s = `${OPS[r[2]]} ${kind}/${name} (resourceVersion ${r[0]}) at ${when(r[1], r[4])}`;
    if (r[3] && OPS[r[2]] !== 'DELETED') s += ` by ${r[3]}`;
    return s;
  }

  function showDiff(prev, r) {
    const pre = $('panel-diff');
    pre.textContent = '';
    if (OPS[r[2]] === 'DELETED') { pre.textContent = 'Deleted: its last state is below.'; return; }
    if (!prev || OPS[r[2]] === 'ADDED' || OPS[r[2]] === 'INITIAL') {
      pre.textContent = toYAML(r[5]);
      return;
    }
    const diff = unifiedDiff(toYAML(prev[5]), toYAML(r[5]), 'resourceVersion ' + prev[0], 'resourceVersion ' + r[0]);
    if (!diff) { pre.textContent = 'Only resourceVersion, managedFields or generations changed.'; return; }
    for (const line of diff.split('\n')) {
      if (!line) continue;
      const span = document.createElement('span');
      span.className = /^(\+\+\+|---)/.test(line) ? 'file' : line[0] === '+' ? 'add' : line[0] === '-' ? 'del' : line[0] === '@' ? 'hunk' : '';
      span.textContent = line + '\n';
      pre.appendChild(span);
    }
  }

  // when is history's When: a time to the second (t, ms after meta.since),
  // or for a change seen late the window since..t it happened in.
  function when(t, since) {
    const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const end = meta.since + t;
    if (!since) return iso(end);
    const start = meta.since + since;
    if (Math.floor(start / 1000) === Math.floor((end - 0.5) / 1000)) return iso(start); // the window ends at t, not after
    const a = iso(start), b = iso(end);
    return a.slice(0, 10) === b.slice(0, 10) ? `${a}/${b.slice(11)}` : `${a}/${b}`;
  }

  // YAML and diffs as history --diff writes them: yamldiff.js.
  const { toYAML, unifiedDiff } = yamldiff;

  loadLanes().then(() => {
    controls();
    buildRows();
    status();
    draw();
    document.body.dataset.ready = 'true';
  }).catch((err) => {
    $('status').textContent = 'error: ' + err;
    console.error(err);
  });
})();
