// The memory viewer's script. It reads the history from #memview-data,
// replays its events from the base exactly as wgpu's History.Replay does,
// and draws the views. Every string from the history (sites, labels, tags)
// reaches the page through textContent or an attribute, never as HTML.
(function () {
  "use strict";
  const started = performance.now();
  // timings are how long each phase of the start took, in milliseconds.
  const timings = {};
  let lap = started;
  function timed(name) { const now = performance.now(); timings[name] = Math.round(now - lap); lap = now; }
  const D = JSON.parse(document.getElementById("memview-data").textContent);
  timed("parse");
  const E = D.events, N = E.n;
  const K = {};
  D.kinds.forEach((name, i) => { if (name) K[name] = i; });

  // ---- Formatting ----

  // bytes formats n as internal/bytesize does: "512 B", "1.50 KiB".
  function bytes(n) {
    if (n >= 1 << 30) return (n / (1 << 30)).toFixed(2) + " GiB";
    if (n >= 1 << 20) return (n / (1 << 20)).toFixed(2) + " MiB";
    if (n >= 1 << 10) return (n / (1 << 10)).toFixed(2) + " KiB";
    return n + " B";
  }
  // shortBytes is bytes without the trailing zeros, for axis ticks.
  function shortBytes(n) { return bytes(n).replace(/\.00 /, " ").replace(/(\.\d)0 /, "$1 "); }
  function duration(ns) {
    const units = [[1e9, "s"], [1e6, "ms"], [1e3, "µs"]];
    for (const [scale, unit] of units) {
      if (Math.abs(ns) >= scale) return +(ns / scale).toPrecision(3) + " " + unit;
    }
    return ns + " ns";
  }
  function count(n) { return n.toLocaleString("en-US"); }

  // el makes an element with text (never HTML) and attributes.
  function el(tag, text, attrs) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  }
  function row(cells) {
    const tr = el("tr");
    for (const c of cells) tr.appendChild(c);
    return tr;
  }

  // ---- Sites ----

  // line is a frame's "dir/file.go:line", as callsite.Line writes it.
  function line(f) {
    const parts = String(f[1]).split("/");
    return (f[1] ? parts.slice(-2).join("/") : "unknown") + ":" + f[2];
  }
  function funcName(full) { const i = full.lastIndexOf("/"); return i >= 0 ? full.slice(i + 1) : full; }
  // site returns the user frame's line and function, and the chain of its
  // callers up to the runtime's and testing's frames (callsite's Chain).
  const siteCache = new Map();
  function site(s) {
    let v = siteCache.get(s);
    if (v) return v;
    v = { line: "unknown", func: "", chain: "", name: "unknown" };
    const st = s >= 0 ? D.sites[s] : null;
    if (st && st.frames.length > 0) {
      const u = st.frames[st.user];
      v.line = line(u);
      v.func = funcName(u[0]);
      const chain = [];
      for (let j = st.user; j < st.frames.length; j++) {
        const f = st.frames[j];
        if (j > st.user && /^(runtime|testing)\./.test(f[0])) break;
        chain.push(line(f) + (f[0] ? " (" + funcName(f[0]) + ")" : ""));
      }
      v.chain = chain.join("\n  ← ");
      v.name = v.line + (v.func ? " (" + v.func + ")" : "");
    }
    siteCache.set(s, v);
    return v;
  }

  // ---- Categories ----

  const cats = [], catIndex = new Map();
  function catID(name) {
    let i = catIndex.get(name);
    if (i === undefined) { i = cats.length; cats.push(name); catIndex.set(name, i); }
    return i;
  }
  // usageCategory is the category of a buffer whose tag names none.
  function usageCategory(u) {
    const name = D.usages[u];
    return name === "readback" || name === "upload" ? "staging" : name === "uniform" ? "scratch" : "user";
  }
  function category(tag, usage) {
    const c = tag >= 0 ? D.tags[tag][0] : "";
    return catID(c !== "" ? c : usageCategory(usage));
  }
  const knownColors = {
    "parameter": "#2563eb", "buffer": "#0891b2", "optimizer state": "#7c3aed", "gradient": "#db2777",
    "saved for backward": "#ea580c", "activation": "#16a34a", "user": "#84cc16", "staging": "#a16207", "scratch": "#9ca3af",
  };
  const spare = ["#0d9488", "#c026d3", "#4f46e5", "#b45309", "#be123c", "#15803d", "#1d4ed8", "#9333ea", "#0369a1", "#a3a3a3"];
  const colors = [];
  let spares = 0;
  function color(c) {
    if (colors[c] === undefined) colors[c] = knownColors[cats[c]] || spare[spares++ % spare.length];
    return colors[c];
  }
  const markerKinds = ["mark", "trim", "limit", "oom_retry", "oom", "lost", "close"];
  const markerNames = { mark: "mark", trim: "trim", limit: "memory limit", oom_retry: "OOM retry", oom: "out of memory", lost: "device lost", close: "close" };
  const markerColors = { mark: "#2563eb", trim: "#16a34a", limit: "#ca8a04", oom_retry: "#f97316", oom: "#dc2626", lost: "#7c3aed", close: "#374151" };

  // ---- The replay ----

  // time[i] is event i's time in nanoseconds since the history began.
  const time = new Float64Array(N);
  for (let i = 0, t = 0; i < N; i++) { t += E.dt[i]; time[i] = t; }
  const span = Math.max(D.taken_ns, N > 0 ? time[N - 1] : 0, 1);

  // The totals after each event, as History.Replay's.
  const T = {
    liveBuffers: new Float64Array(N), liveBytes: new Float64Array(N),
    pooledBuffers: new Float64Array(N), pooledBytes: new Float64Array(N), returnedBytes: new Float64Array(N),
  };
  const base = D.base.totals;
  // Lifetimes: one per hand-out (and one per buffer live at the base), in
  // order of their start, the event that handed it out (-1: the base); end
  // is the event that released it (N: none). retags holds each lifetime's
  // EventTags: [event, tag, tensor, category].
  const L = { start: [], end: [], buffer: [], bytes: [], usage: [], site: [], tag: [], tensor: [], since: [], cat: [] };
  const retags = new Map();
  function lifetime(start, buffer, n, usage, siteIdx, tag, tensor, since) {
    L.start.push(start); L.end.push(N); L.buffer.push(buffer); L.bytes.push(n); L.usage.push(usage);
    L.site.push(siteIdx); L.tag.push(tag); L.tensor.push(tensor); L.since.push(since); L.cat.push(category(tag, usage));
    return L.start.length - 1;
  }
  // evLife[i] is the lifetime event i hands out, releases or describes.
  const evLife = new Int32Array(N).fill(-1);
  (function replay() {
    let lb = base[0], lB = base[1], pb = base[2], pB = base[3], r = base[4];
    const live = new Map();
    for (const b of D.base.live) live.set(b[0], lifetime(-1, b[0], b[1], b[2], b[3], b[4], b[5], b[6]));
    const kind = E.kind, buf = E.buffer, nb = E.bytes;
    for (let i = 0; i < N; i++) {
      const k = kind[i], n = nb[i];
      if (k === K.alloc || k === K.reuse) {
        if (k === K.reuse) { pb--; pB -= n; }
        const l = lifetime(i, buf[i], n, E.usage[i], E.site[i], E.tag[i], E.tensor[i], time[i]);
        live.set(buf[i], l);
        evLife[i] = l;
        lb++; lB += n;
      } else if (k === K.release || k === K.free) {
        const l = live.get(buf[i]);
        if (l !== undefined) { live.delete(buf[i]); L.end[l] = i; evLife[i] = l; }
        lb--; lB -= n;
        if (k === K.release) { pb++; pB += n; } else { r += n; }
      } else if (k === K.return) {
        pb--; pB -= n; r += n;
      } else if (k === K.tag) {
        const l = live.get(buf[i]);
        if (l !== undefined) {
          evLife[i] = l;
          if (!retags.has(l)) retags.set(l, []);
          retags.get(l).push([i, E.tag[i], E.tensor[i], category(E.tag[i], L.usage[l])]);
        }
      } else if (k === K.close) {
        r += lB + pB;
        lb = lB = pb = pB = 0;
        for (const l of live.values()) L.end[l] = i;
        live.clear();
      }
      T.liveBuffers[i] = lb; T.liveBytes[i] = lB; T.pooledBuffers[i] = pb; T.pooledBytes[i] = pB; T.returnedBytes[i] = r;
    }
  })();
  const nBase = D.base.live.length;
  timed("replay");

  // totalsAt returns the totals after event i (-1: the base).
  function totalsAt(i) {
    const t = i < 0
      ? { liveBuffers: base[0], liveBytes: base[1], pooledBuffers: base[2], pooledBytes: base[3], returnedBytes: base[4] }
      : { liveBuffers: T.liveBuffers[i], liveBytes: T.liveBytes[i], pooledBuffers: T.pooledBuffers[i], pooledBytes: T.pooledBytes[i], returnedBytes: T.returnedBytes[i] };
    t.reservedBytes = t.liveBytes + t.pooledBytes;
    return t;
  }
  // described returns lifetime l's tag, tensor and category after event i.
  function described(l, i) {
    let tag = L.tag[l], tensor = L.tensor[l], cat = L.cat[l];
    for (const [j, g, x, c] of retags.get(l) || []) {
      if (j > i) break;
      tag = g; tensor = x; cat = c;
    }
    return { tag, tensor, cat };
  }
  // firstAfter returns the first lifetime that starts after event i.
  function firstAfter(i) {
    let lo = 0, hi = L.start.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (L.start[m] <= i) lo = m + 1; else hi = m; }
    return lo;
  }
  // liveAt returns the buffers live after event i, oldest first.
  function liveAt(i) {
    const out = [], end = firstAfter(i);
    for (let l = 0; l < end; l++) {
      if (L.end[l] <= i) continue;
      const d = described(l, i), tag = d.tag >= 0 ? D.tags[d.tag] : ["", "", "", ""];
      out.push({ life: l, buffer: L.buffer[l], bytes: L.bytes[l], category: cats[d.cat], cat: d.cat, dtype: tag[1], shape: tag[2],
        scope: tag[3], tensor: d.tensor, site: L.site[l], since: L.since[l] });
    }
    return out;
  }
  function byBytes(a, b) { return b.bytes - a.bytes || (a.category < b.category ? -1 : a.category > b.category ? 1 : 0); }
  // categoriesAt returns the live buffers and bytes of each category after
  // event i, largest first.
  function categoriesAt(i) {
    const m = new Map();
    for (const b of liveAt(i)) {
      const v = m.get(b.category) || { category: b.category, buffers: 0, bytes: 0 };
      v.buffers++; v.bytes += b.bytes;
      m.set(b.category, v);
    }
    return [...m.values()].sort(byBytes);
  }
  // diff returns, for each line of the user's code that asked for buffers
  // (its site's name, as wgpu's HistorySite.String writes it), how many
  // more buffers and bytes were live from it after event b than after
  // event a, where the bytes are more, the most first: the leak finder,
  // as wgpu's History.Growth computes it. A buffer freed and made again
  // each step counts at neither instant; what a loop keeps counts at the
  // line that made it.
  function diff(a, b) {
    if (a > b) [a, b] = [b, a];
    const m = new Map();
    const count = (bufs, sign) => {
      for (const x of bufs) {
        const s = site(x.site);
        let v = m.get(s.name);
        if (!v) { v = { site: s.name, siteIndex: x.site, buffers: 0, bytes: 0, categories: new Set() }; m.set(s.name, v); }
        v.buffers += sign; v.bytes += sign * x.bytes;
        if (sign > 0) v.categories.add(x.category);
      }
    };
    count(liveAt(b), 1);
    count(liveAt(a), -1);
    const rows = [...m.values()].filter((v) => v.bytes > 0).map((v) => Object.assign(v, { categories: [...v.categories].sort() }));
    return rows.sort((x, y) => y.bytes - x.bytes || (x.site < y.site ? -1 : x.site > y.site ? 1 : 0));
  }

  // ---- Markers ----

  const markers = []; // event indices of marker kinds, in order
  const markerKind = {};
  for (const name of markerKinds) if (K[name]) markerKind[K[name]] = name;
  for (let i = 0; i < N; i++) if (markerKind[E.kind[i]]) markers.push(i);
  function label(i) { return E.label[i] >= 0 ? D.labels[E.label[i]] : ""; }
  function describeMarker(i) {
    const kind = markerKind[E.kind[i]], n = E.bytes[i], why = label(i);
    const at = " · " + duration(time[i]) + " (event " + count(i) + ")";
    switch (kind) {
      case "mark": return "mark: " + why + at;
      case "trim": return "trim: " + bytes(n) + " pooled given back" + at;
      case "limit": return "memory limit: " + (n > 0 ? bytes(n) : "none") + at;
      case "oom_retry": return "OOM retry: " + bytes(n) + " asked, pool trimmed (" + why + ")" + at;
      case "oom": return "out of memory: " + bytes(n) + " asked (" + why + ")" + at;
      case "lost": return "device lost: " + why + at;
      case "close": return "device closed" + at;
    }
    return kind + at;
  }
  function markIndex(name) {
    for (const i of markers) if (markerKind[E.kind[i]] === "mark" && label(i) === name) return i;
    return undefined;
  }

  // ---- Layout of the charts ----

  const margin = { left: 70, right: 12, top: 8, bottom: 22 };
  let axis = "time";
  // pos places instant i (-1: the base) on [0, 1] along the x axis.
  function pos(i) {
    if (i < 0) return 0;
    return axis === "time" ? time[i] / span : (i + 1) / Math.max(N, 1);
  }
  let layout = null; // the columns of the last sweep

  // sweep assigns events to W pixel columns and takes, per column, the
  // state at its peak of live bytes (drawn) and at its end (carried into
  // the empty columns after it).
  function sweep(W) {
    const nC = cats.length;
    const col = (i) => Math.min(W - 1, Math.floor(pos(i) * W));
    const peak = new Int32Array(W).fill(-2), last = new Int32Array(W).fill(-2);
    const maxReserved = new Float64Array(W), maxLive = new Float64Array(W);
    for (let i = 0; i < N; i++) {
      const c = col(i);
      if (peak[c] < -1 || T.liveBytes[i] > T.liveBytes[peak[c]]) peak[c] = i;
      last[c] = i;
      maxReserved[c] = Math.max(maxReserved[c], T.liveBytes[i] + T.pooledBytes[i]);
      maxLive[c] = Math.max(maxLive[c], T.liveBytes[i]);
    }
    const peakCats = new Float64Array(W * nC), endCats = new Float64Array(W * nC);
    const cur = new Float64Array(nC), curCat = Int32Array.from(L.cat);
    for (let l = 0; l < nBase; l++) cur[L.cat[l]] += L.bytes[l];
    const baseCats = Float64Array.from(cur);
    const retagAt = new Map();
    for (const [l, list] of retags) for (const r of list) retagAt.set(r[0], [l, r[3]]);
    for (let i = 0; i < N; i++) {
      const k = E.kind[i], l = evLife[i];
      if (k === K.alloc || k === K.reuse) cur[curCat[l]] += L.bytes[l];
      else if ((k === K.release || k === K.free) && l >= 0) cur[curCat[l]] -= L.bytes[l];
      else if (k === K.tag && l >= 0) { const c = retagAt.get(i)[1]; cur[curCat[l]] -= L.bytes[l]; cur[c] += L.bytes[l]; curCat[l] = c; }
      else if (k === K.close) cur.fill(0);
      const c = col(i);
      if (peak[c] === i) peakCats.set(cur, c * nC);
      if (last[c] === i) endCats.set(cur, c * nC);
    }
    // Columns with no event show the state the last event before left.
    const shown = new Int32Array(W), upTo = new Int32Array(W);
    const reserved = new Float64Array(W), liveB = new Float64Array(W), returned = new Float64Array(W);
    let prev = -1, prevCats = baseCats;
    const stack = new Float64Array(W * nC);
    for (let c = 0; c < W; c++) {
      if (last[c] >= -1) {
        shown[c] = peak[c];
        stack.set(peakCats.subarray(c * nC, (c + 1) * nC), c * nC);
        reserved[c] = maxReserved[c]; liveB[c] = maxLive[c]; returned[c] = T.returnedBytes[last[c]];
        prev = last[c]; prevCats = endCats.subarray(c * nC, (c + 1) * nC);
      } else {
        shown[c] = prev;
        stack.set(prevCats, c * nC);
        const t = totalsAt(prev);
        reserved[c] = t.reservedBytes; liveB[c] = t.liveBytes; returned[c] = t.returnedBytes;
      }
      upTo[c] = prev;
    }
    return { W, nC, col, shown, upTo, stack, reserved, live: liveB, returned };
  }

  // niceStep returns a round step (1, 2 or 5 times a power of ten, in the
  // unit u) that cuts max into about n parts.
  function niceStep(max, n, u) {
    const raw = max / u / n, p = Math.pow(10, Math.floor(Math.log10(raw || 1)));
    const m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p * u;
  }
  function byteUnit(max) { return max >= 1 << 30 ? 1 << 30 : max >= 1 << 20 ? 1 << 20 : max >= 1 << 10 ? 1 << 10 : 1; }

  // setup sizes a canvas to its box for the screen's pixels and returns
  // its context and plot area.
  function setup(canvas) {
    const r = canvas.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(r.width * dpr));
    canvas.height = Math.max(1, Math.round(r.height * dpr));
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, r.width, r.height);
    return { ctx, w: r.width, h: r.height, pw: Math.max(1, Math.floor(r.width - margin.left - margin.right)), ph: r.height - margin.top - margin.bottom };
  }
  function axes(g, maxY) {
    const { ctx, pw, ph } = g;
    const u = byteUnit(maxY), step = niceStep(maxY, 5, u);
    ctx.font = "11px system-ui, sans-serif";
    ctx.fillStyle = "#6b7280"; ctx.strokeStyle = "#e5e7eb"; ctx.lineWidth = 1;
    ctx.textAlign = "right"; ctx.textBaseline = "middle";
    for (let v = 0; v <= maxY * 1.0001; v += step) {
      const y = margin.top + ph - (v / maxY) * ph;
      ctx.beginPath(); ctx.moveTo(margin.left, Math.round(y) + 0.5); ctx.lineTo(margin.left + pw, Math.round(y) + 0.5); ctx.stroke();
      ctx.fillText(shortBytes(v), margin.left - 6, y);
    }
    ctx.textAlign = "center"; ctx.textBaseline = "top";
    if (axis === "time") {
      const tstep = niceStep(span, Math.max(2, Math.floor(pw / 110)), 1);
      for (let t = 0; t <= span; t += tstep) ctx.fillText(duration(t), margin.left + (t / span) * pw, margin.top + ph + 5);
    } else {
      const estep = niceStep(Math.max(N, 1), Math.max(2, Math.floor(pw / 110)), 1);
      for (let e = 0; e <= N; e += estep) ctx.fillText(count(e), margin.left + (e / Math.max(N, 1)) * pw, margin.top + ph + 5);
    }
    ctx.strokeStyle = "#9ca3af";
    ctx.beginPath(); ctx.moveTo(margin.left + 0.5, margin.top); ctx.lineTo(margin.left + 0.5, margin.top + ph); ctx.lineTo(margin.left + pw, margin.top + ph + 0.5); ctx.stroke();
  }
  // instantLines marks the markers and the chosen instants on a chart.
  function instantLines(g) {
    const { ctx, pw, ph } = g;
    const x = (i) => Math.round(margin.left + pos(i) * pw) + 0.5;
    ctx.globalAlpha = 0.35;
    const drawn = new Set(); // one line per kind and pixel column
    for (const i of markers) {
      const kind = markerKind[E.kind[i]], at = x(i);
      if (drawn.has(kind + at)) continue;
      drawn.add(kind + at);
      ctx.strokeStyle = markerColors[kind];
      ctx.beginPath(); ctx.moveTo(at, margin.top); ctx.lineTo(at, margin.top + ph); ctx.stroke();
    }
    ctx.globalAlpha = 1;
    const lines = [[state.instant, "#111827", []], [state.from, "#6b7280", [4, 3]], [state.to, "#6b7280", [4, 3]]];
    for (const [i, c, dash] of lines) {
      if (i === null) continue;
      ctx.strokeStyle = c; ctx.setLineDash(dash); ctx.lineWidth = 1.5;
      ctx.beginPath(); ctx.moveTo(x(i), margin.top); ctx.lineTo(x(i), margin.top + ph); ctx.stroke();
      ctx.setLineDash([]); ctx.lineWidth = 1;
    }
  }

  const order = [];
  function catOrder() {
    const known = Object.keys(knownColors);
    const rank = (name) => { const k = known.indexOf(name); return k >= 0 ? k : known.length; };
    return cats.map((_, i) => i).sort((a, b) => rank(cats[a]) - rank(cats[b]) || (cats[a] < cats[b] ? -1 : 1));
  }

  function drawLive() {
    const canvas = document.getElementById("chart-live"), g = setup(canvas);
    // A new width or axis needs a new sweep; a new instant does not.
    if (!layout || layout.W !== g.pw || layout.axis !== axis) {
      layout = sweep(g.pw);
      layout.axis = axis;
      layout.maxLive = 1;
      for (let c = 0; c < layout.W; c++) {
        let s = 0;
        for (let k = 0; k < layout.nC; k++) s += layout.stack[c * layout.nC + k];
        layout.maxLive = Math.max(layout.maxLive, s);
      }
    }
    const { W, nC, stack, maxLive: maxY } = layout;
    axes(g, maxY);
    const base = new Float64Array(W);
    for (const k of order) {
      g.ctx.fillStyle = color(k);
      g.ctx.beginPath();
      for (let c = 0; c < W; c++) {
        const v = stack[c * nC + k];
        if (v <= 0) continue;
        const y0 = margin.top + g.ph - (base[c] / maxY) * g.ph, h = (v / maxY) * g.ph;
        g.ctx.rect(margin.left + c, y0 - h, 1, h);
        base[c] += v;
      }
      g.ctx.fill();
    }
    instantLines(g);
  }
  function drawPool() {
    const canvas = document.getElementById("chart-pool"), g = setup(canvas);
    const { W, reserved, live, returned } = layout;
    let maxY = 1;
    for (let c = 0; c < W; c++) maxY = Math.max(maxY, reserved[c], returned[c]);
    axes(g, maxY);
    const y = (v) => margin.top + g.ph - (v / maxY) * g.ph;
    const area = (vals, fill) => {
      g.ctx.fillStyle = fill; g.ctx.beginPath(); g.ctx.moveTo(margin.left, y(0));
      for (let c = 0; c < W; c++) { g.ctx.lineTo(margin.left + c, y(vals[c])); g.ctx.lineTo(margin.left + c + 1, y(vals[c])); }
      g.ctx.lineTo(margin.left + W, y(0)); g.ctx.closePath(); g.ctx.fill();
    };
    area(reserved, poolColors.reserved);
    area(live, poolColors.live);
    g.ctx.strokeStyle = poolColors.returned; g.ctx.lineWidth = 2; g.ctx.beginPath();
    for (let c = 0; c < W; c++) { g.ctx.lineTo(margin.left + c, y(returned[c])); g.ctx.lineTo(margin.left + c + 1, y(returned[c])); }
    g.ctx.stroke(); g.ctx.lineWidth = 1;
    instantLines(g);
  }
  const poolColors = { reserved: "#bfdbfe", live: "#2563eb", returned: "#dc2626" };

  // ---- Header, legends, markers ----

  function header() {
    document.getElementById("adapter").textContent = D.adapter;
    document.title = "memory history · " + D.adapter;
    const p = D.pool, facts = document.getElementById("facts");
    const add = (name, value, id) => {
      const d = el("div"); d.appendChild(el("dt", name)); d.appendChild(el("dd", value, id ? { id } : {}));
      facts.appendChild(d);
    };
    add("reason", D.reason, "fact-reason");
    add("started", D.started.replace("T", " ").replace(/\.\d+/, ""));
    add("time span", duration(D.taken_ns), "fact-span");
    add("events", count(N) + " (ring of " + count(D.capacity) + ")", "fact-events");
    add("dropped", count(D.dropped), "fact-dropped");
    add("live at dump", count(p.LiveBuffers) + " buffers, " + bytes(p.LiveBytes), "fact-live");
    add("pooled at dump", count(p.PooledBuffers) + " buffers, " + bytes(p.PooledBytes), "fact-pooled");
    add("reserved at dump", bytes(p.ReservedBytes), "fact-reserved");
    add("peak live / reserved", bytes(p.PeakLiveBytes) + " / " + bytes(p.PeakReservedBytes));
    add("memory limit", p.MemoryLimit > 0 ? bytes(p.MemoryLimit) : "none");
    add("allocs / reuses / frees", count(p.Allocs) + " / " + count(p.Reuses) + " / " + count(p.Frees));
    add("trims / OOM retries", count(p.Trims) + " / " + count(p.OOMRetries));
    add("submits / dispatches / writes", count(D.device.submits) + " / " + count(D.device.dispatches) + " / " + count(D.device.writes));
    if (D.device.has_driver_buffers) add("driver buffers", count(D.device.driver_buffers));
    if (D.engine) add("tensors / storages", count(D.engine.Tensors) + " / " + count(D.engine.Storages) + ", " + bytes(D.engine.Bytes));
    if (D.dropped > 0) {
      const w = document.getElementById("dropped");
      w.textContent = count(D.dropped) + " oldest events were dropped (the ring holds " + count(D.capacity) +
        "): the history starts with what they left live and pooled.";
      w.hidden = false;
    }
  }
  function legendItem(box, text, fill, isLine, attrs) {
    const item = el("span", null, Object.assign({ class: "item" }, attrs || {}));
    const sw = el("span", null, { class: "swatch" + (isLine ? " line" : "") });
    sw.style.background = fill;
    item.appendChild(sw); item.appendChild(el("span", text, { class: "name" }));
    box.appendChild(item);
  }
  function legends() {
    const live = document.getElementById("legend-live");
    live.textContent = "";
    for (const k of order) legendItem(live, cats[k], color(k), false, { "data-category": cats[k] });
    const pool = document.getElementById("legend-pool");
    pool.textContent = "";
    legendItem(pool, "reserved (live + pooled)", poolColors.reserved);
    legendItem(pool, "live", poolColors.live);
    legendItem(pool, "given back to the driver, in all", poolColors.returned, true);
    const mk = document.getElementById("legend-markers");
    mk.textContent = "";
    const counts = {};
    for (const i of markers) { const k = markerKind[E.kind[i]]; counts[k] = (counts[k] || 0) + 1; }
    for (const k of markerKinds) if (counts[k]) legendItem(mk, markerNames[k] + " (" + count(counts[k]) + ")", markerColors[k], false, { "data-kind": k });
  }
  // maxMarkerElements bounds the markers shown one by one; past it they
  // are shown one per kind and pixel column.
  const maxMarkerElements = 2000;
  function drawMarkers() {
    const box = document.getElementById("markers");
    box.textContent = "";
    const pw = layout.W, groups = new Map(), many = markers.length > maxMarkerElements;
    for (const i of markers) {
      const kind = markerKind[E.kind[i]], x = Math.min(pw - 1, Math.floor(pos(i) * pw));
      const key = many ? kind + ":" + x : i;
      const g = groups.get(key);
      if (g) g.n++;
      else groups.set(key, { i, kind, x, n: 1 });
    }
    for (const { i, kind, x, n } of groups.values()) {
      const title = n > 1 ? markerNames[kind] + ": " + count(n) + " here, the first: " + describeMarker(i) : describeMarker(i);
      const e = el("span", null, { class: "marker marker-" + kind, "data-event": String(i), "data-kind": kind, title, role: "button" });
      e.style.left = margin.left + x + "px";
      if (i === state.instant) e.classList.add("selected");
      box.appendChild(e);
    }
  }

  // ---- The instant ----

  const state = { instant: null, from: null, to: null, sortKey: "bytes", sortDesc: true };
  const maxRows = 1000;
  function when(i) {
    if (i < 0) return "the start (before the first event)";
    let s = "event " + count(i) + " of " + count(N) + " (" + D.kinds[E.kind[i]] + ") at " + duration(time[i]);
    if (markerKind[E.kind[i]] === "mark") s = "mark “" + label(i) + "”, " + s;
    return s;
  }
  function showInstant(i) {
    state.instant = i;
    document.getElementById("instant-when").textContent = when(i);
    const t = totalsAt(i), sum = document.getElementById("instant-summary");
    sum.textContent = "";
    const part = (name, text, n) => { sum.appendChild(el("span", name + ": ", { class: "dim" })); sum.appendChild(el("span", text, { id: "instant-" + name.split(" ")[0], "data-bytes": String(n) })); sum.appendChild(document.createTextNode("   ")); };
    part("live", count(t.liveBuffers) + " buffers, " + bytes(t.liveBytes), t.liveBytes);
    part("pooled", count(t.pooledBuffers) + " buffers, " + bytes(t.pooledBytes), t.pooledBytes);
    part("reserved", bytes(t.reservedBytes), t.reservedBytes);
    part("returned to the driver so far", bytes(t.returnedBytes), t.returnedBytes);
    const cb = document.querySelector("#categories tbody");
    cb.textContent = "";
    for (const c of categoriesAt(i)) {
      const name = el("td", null, { class: "category" }), sw = el("span", null, { class: "swatch" });
      sw.style.background = color(catID(c.category));
      name.appendChild(sw); name.appendChild(document.createTextNode(c.category));
      cb.appendChild(row([name, el("td", count(c.buffers), { class: "num" }), el("td", bytes(c.bytes), { class: "num", "data-bytes": String(c.bytes) })]))
        .setAttribute("data-category", c.category);
    }
    fillBuffers();
    for (const m of document.querySelectorAll(".marker.selected")) m.classList.remove("selected");
    const m = document.querySelector('.marker[data-event="' + i + '"]');
    if (m) m.classList.add("selected");
  }
  function siteCell(s) {
    const v = site(s), td = el("td", null, { class: "site", title: v.chain || v.line });
    td.appendChild(el("span", v.line, { class: "line" }));
    if (v.func) { td.appendChild(document.createTextNode(" ")); td.appendChild(el("span", "(" + v.func + ")", { class: "func" })); }
    return td;
  }
  function fillBuffers() {
    const list = liveAt(state.instant), key = state.sortKey, dir = state.sortDesc ? -1 : 1;
    const val = (b) => key === "site" ? site(b.site).line : b[key];
    list.sort((a, b) => { const x = val(a), y = val(b); return (x < y ? -1 : x > y ? 1 : a.buffer - b.buffer) * dir; });
    const tb = document.querySelector("#buffers tbody");
    tb.textContent = "";
    for (const b of list.slice(0, maxRows)) {
      const tr = row([el("td", b.buffer, { class: "num" }), el("td", bytes(b.bytes), { class: "num", "data-bytes": String(b.bytes) }),
        el("td", b.category), el("td", b.dtype), el("td", b.shape), el("td", b.scope), el("td", b.tensor || "", { class: "num" }),
        siteCell(b.site), el("td", b.since > 0 ? duration(b.since) : "before", { class: "num" })]);
      tr.setAttribute("data-buffer", String(b.buffer));
      tb.appendChild(tr);
    }
    const more = document.getElementById("buffers-more");
    more.hidden = list.length <= maxRows;
    more.textContent = "showing " + count(maxRows) + " of " + count(list.length) + " live buffers; sort to see others first";
    for (const th of document.querySelectorAll("#buffers th")) {
      th.classList.toggle("asc", th.dataset.key === key && !state.sortDesc);
      th.classList.toggle("desc", th.dataset.key === key && state.sortDesc);
    }
  }

  // ---- The diff ----

  function fillSelects() {
    for (const id of ["diff-from", "diff-to"]) {
      const sel = document.getElementById(id);
      sel.textContent = "";
      sel.appendChild(el("option", "start (before the first event)", { value: "-1" }));
      let n = 0;
      for (const i of markers) {
        if (++n > maxMarkerElements) break;
        sel.appendChild(el("option", describeMarker(i), { value: String(i) }));
      }
      if (N > 0) sel.appendChild(el("option", "end (event " + count(N - 1) + ")", { value: String(N - 1) }));
      sel.addEventListener("change", () => compare(+document.getElementById("diff-from").value, +document.getElementById("diff-to").value));
    }
  }
  // choose selects instant i in a diff select, adding it where no option has it.
  function choose(sel, i) {
    if (![...sel.options].some((o) => o.value === String(i))) {
      let o = sel.querySelector("option.clicked");
      if (!o) { o = el("option", null, { class: "clicked" }); sel.insertBefore(o, sel.options[1] || null); }
      o.value = String(i);
      o.textContent = "clicked: " + when(i);
    }
    sel.value = String(i);
  }
  function compare(a, b) {
    state.from = a; state.to = b;
    choose(document.getElementById("diff-from"), a);
    choose(document.getElementById("diff-to"), b);
    const rows = diff(a, b), tb = document.querySelector("#diff-sites tbody");
    tb.textContent = "";
    let total = 0, nb = 0;
    for (const r of rows) {
      total += r.bytes; nb += r.buffers;
      const tr = row([siteCell(r.siteIndex), el("td", count(r.buffers), { class: "num" }), el("td", bytes(r.bytes), { class: "num", "data-bytes": String(r.bytes) }),
        el("td", r.categories.join(", "))]);
      tr.setAttribute("data-site", r.site);
      tb.appendChild(tr);
    }
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    document.getElementById("diff-summary").textContent = rows.length === 0
      ? "Nothing more is live at " + when(hi) + " than at " + when(lo) + ", from any line."
      : bytes(total) + " more (" + count(nb) + (nb === 1 ? " buffer" : " buffers") + ") live at " + when(hi) + " than at " + when(lo) + ", from " + count(rows.length) + (rows.length === 1 ? " line:" : " lines:");
    redraw(false);
  }

  // ---- Interaction ----

  // instantAtX returns the instant a click at x (CSS pixels in the canvas)
  // picks: the last event at or before that place on the axis.
  function instantAtX(x) {
    const c = Math.max(0, Math.min(layout.W - 1, Math.floor(x - margin.left)));
    return layout.upTo[c];
  }
  function pick(i, shift) {
    if (shift) compare(i, state.to === null ? N - 1 : state.to);
    else { showInstant(i); compare(state.from === null ? -1 : state.from, i); }
  }
  for (const id of ["chart-live", "chart-pool"]) {
    const canvas = document.getElementById(id);
    canvas.addEventListener("click", (ev) => pick(instantAtX(ev.offsetX), ev.shiftKey));
  }
  document.getElementById("markers").addEventListener("click", (ev) => {
    const m = ev.target.closest(".marker");
    if (m) pick(+m.dataset.event, ev.shiftKey);
  });
  document.querySelector("#buffers thead").addEventListener("click", (ev) => {
    const th = ev.target.closest("th");
    if (!th) return;
    if (state.sortKey === th.dataset.key) state.sortDesc = !state.sortDesc;
    else { state.sortKey = th.dataset.key; state.sortDesc = th.classList.contains("num"); }
    fillBuffers();
  });
  for (const r of document.querySelectorAll('input[name="axis"]')) {
    r.addEventListener("change", () => { axis = r.value; redraw(true); });
  }

  // The tooltip: the buffer under the mouse on the live chart, found in
  // the state the column shows, its category's buffers stacked oldest
  // first as the bands are.
  const tip = document.getElementById("tip");
  let hoverAt = null;
  function hover() {
    const at = hoverAt;
    hoverAt = null;
    if (!at || !layout) return;
    const c = Math.floor(at.x - margin.left), canvas = document.getElementById("chart-live");
    const ph = canvas.clientHeight - margin.top - margin.bottom;
    if (c < 0 || c >= layout.W || at.y < margin.top || at.y > margin.top + ph) { tip.hidden = true; return; }
    const v = ((margin.top + ph - at.y) / ph) * layout.maxLive, i = layout.shown[c];
    let lo = 0, cat = -1;
    for (const k of order) {
      const b = layout.stack[c * layout.nC + k];
      if (b > 0 && v >= lo && v < lo + b) { cat = k; break; }
      lo += b;
    }
    const lines = [];
    if (cat < 0) lines.push("no live memory here");
    else {
      let acc = lo, hit = null, n = 0, sum = 0;
      for (const b of liveAt(i)) {
        if (b.cat !== cat) continue;
        n++; sum += b.bytes;
        if (!hit && v < acc + b.bytes) hit = b;
        acc += b.bytes;
      }
      lines.push(cats[cat] + ": " + count(n) + " buffers, " + bytes(sum));
      if (hit) {
        const s = site(hit.site);
        lines.push("buffer " + hit.buffer + ", " + bytes(hit.bytes) + [hit.dtype, hit.shape, hit.scope && "scope " + hit.scope, hit.tensor && "tensor " + hit.tensor].filter(Boolean).map((x) => ", " + x).join(""));
        lines.push("allocated at " + s.line + (s.func ? " (" + s.func + ")" : ""));
        if (s.chain.includes("\n")) lines.push("  " + s.chain.split("\n").slice(1).join("\n"));
      }
    }
    lines.push("at " + when(i));
    tip.textContent = lines.join("\n");
    tip.hidden = false;
    const box = canvas.getBoundingClientRect();
    tip.style.left = Math.min(at.x + 14, box.width - tip.offsetWidth - 4) + "px";
    tip.style.top = Math.max(0, at.y - tip.offsetHeight - 10) + "px";
  }
  const liveCanvas = document.getElementById("chart-live");
  liveCanvas.addEventListener("mousemove", (ev) => {
    if (!hoverAt) requestAnimationFrame(hover);
    hoverAt = { x: ev.offsetX, y: ev.offsetY };
  });
  liveCanvas.addEventListener("mouseleave", () => { hoverAt = null; tip.hidden = true; });
  document.getElementById("chart-pool").addEventListener("mousemove", (ev) => {
    if (!layout) return;
    const c = Math.floor(ev.offsetX - margin.left);
    if (c < 0 || c >= layout.W) { ev.target.title = ""; return; }
    const t = totalsAt(layout.upTo[c]);
    ev.target.title = "reserved " + bytes(t.reservedBytes) + ", live " + bytes(t.liveBytes) + ", pooled " + bytes(t.pooledBytes) +
      ", given back " + bytes(t.returnedBytes) + "\nat " + when(layout.upTo[c]);
  });

  function redraw(markersToo) {
    drawLive();
    drawPool();
    if (markersToo) drawMarkers();
  }
  let resizing = false;
  window.addEventListener("resize", () => {
    if (resizing) return;
    resizing = true;
    requestAnimationFrame(() => { resizing = false; redraw(true); });
  });

  // fromLink shows the instants a link names after its #: at=I for the
  // instant view, diff=A..B for the diff, joined by &, each instant an
  // event index (-1: the start) or a mark's label, URL-encoded
  // (history.html#diff=step%203..step%209). It scrolls to the view named
  // last and ignores what it cannot resolve.
  function fromLink() {
    const resolve = (s) => {
      const i = /^-?[0-9]+$/.test(s) ? Number(s) : markIndex(s);
      return i !== undefined && i >= -1 && i < N ? i : undefined;
    };
    let last;
    for (const part of location.hash.replace(/^#/, "").split("&")) {
      const eq = part.indexOf("=");
      if (eq < 0) continue;
      let key, value;
      try { key = decodeURIComponent(part.slice(0, eq)); value = decodeURIComponent(part.slice(eq + 1)); } catch (e) { continue; }
      if (key === "at") {
        const i = resolve(value);
        if (i !== undefined) { showInstant(i); last = "instant"; }
      } else if (key === "diff") {
        const dots = value.indexOf("..");
        if (dots < 0) continue;
        const a = resolve(value.slice(0, dots)), b = resolve(value.slice(dots + 2));
        if (a !== undefined && b !== undefined) { compare(a, b); last = "diff"; }
      }
    }
    if (last) document.getElementById(last).scrollIntoView();
  }

  // ---- Start ----

  order.push(...catOrder());
  header();
  legends();
  fillSelects();
  timed("header");
  drawLive();
  timed("live chart");
  drawPool();
  timed("pool chart");
  drawMarkers();
  timed("markers");
  // The instant first shown: the peak of live memory.
  let peakAt = -1;
  for (let i = 0; i < N; i++) if (T.liveBytes[i] > (peakAt < 0 ? base[1] : T.liveBytes[peakAt])) peakAt = i;
  const marks = markers.filter((i) => markerKind[E.kind[i]] === "mark");
  showInstant(peakAt);
  timed("instant");
  if (marks.length >= 2) compare(marks[0], marks[marks.length - 1]);
  else compare(-1, N - 1);
  timed("diff");
  fromLink();

  // A small deterministic API, for tests and the console. Instants are
  // event indices, -1 for the start; diff and compare also take a mark's
  // label.
  const instant = (x) => typeof x === "string" ? markIndex(x) : x;
  window.memview = {
    events: N,
    categories: () => order.map((k) => cats[k]),
    totalsAt,
    categoriesAt: (i) => categoriesAt(instant(i)),
    liveAt: (i) => liveAt(instant(i)).map((b) => Object.assign({}, b, { site: site(b.site).line })),
    diff: (a, b) => diff(instant(a), instant(b)),
    markIndex,
    markers: () => markers.map((i) => ({ event: i, kind: markerKind[E.kind[i]], label: label(i) })),
    select: (i) => { pick(instant(i), false); },
    // point returns where the live chart draws instant i at the height of
    // v bytes, in the page's CSS pixels.
    point: (i, v) => {
      const r = document.getElementById("chart-live").getBoundingClientRect(), ph = r.height - margin.top - margin.bottom;
      const c = Math.min(layout.W - 1, Math.floor(pos(instant(i)) * layout.W));
      return { x: r.left + margin.left + c + 0.5, y: r.top + margin.top + ph - (v / layout.maxLive) * ph };
    },
    compare: (a, b) => compare(instant(a), instant(b)),
    renderMs: performance.now() - started,
    timings,
    ready: true,
  };
})();
