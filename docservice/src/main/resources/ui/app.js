// The admin page (docs/service.md, "Admin page"). Everything it shows is inserted as text
// (textContent), never as markup: a document's JSON is data, whatever it contains.
"use strict";

const TOKEN_KEY = "docstore.adminToken";
const POLL_MILLIS = 1000;
const SAMPLES = 120; // two minutes at one sample a second

const $ = (id) => document.getElementById(id);

// --- the admin token: typed in once, kept for this tab, sent as a header with every data call ---

function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

function call(path) {
  const headers = {};
  if (token()) {
    headers.Authorization = "Bearer " + token();
  }
  return fetch(path, { headers, cache: "no-store" }).then((r) => {
    if (r.status === 401) {
      needToken();
    }
    return r;
  });
}

function needToken() {
  $("token-form").hidden = false;
  say($("status"), token() ? "wrong admin token" : "this admin port needs its token", true);
}

$("token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $("token").value);
  $("token").value = "";
  $("token-form").hidden = true;
  say($("status"), "", false);
  tick();
});

function say(el, text, bad) {
  el.textContent = text;
  el.classList.toggle("bad", bad);
}

// --- figures, from /stats ---

function bytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return (u === 0 ? n.toString() : n.toFixed(1)) + " " + units[u];
}

function count(n) {
  return typeof n === "number" ? n.toLocaleString("en-US") : "—";
}

function fixed(n, digits, unit) {
  return typeof n === "number" ? n.toFixed(digits) + unit : "—";
}

/** [label, value] pairs of the figures a primary's or a replica's /stats gives. */
function figures(s) {
  const index = s.index || {};
  if (s.role === "replica") {
    return [
      ["replica lag", fixed(s.lagSeconds, 1, " s")],
      ["behind (sequences)", count(s.behindSequences)],
      ["applied sequence", count(s.appliedSequence)],
      ["primary sequence", count(s.primaryDurableSequence)],
      ["index files", count(index.indexCount)],
      ["ingested records", count(s.ingestedRecords)],
      ["ready", s.ready],
    ];
  }
  const space = s.space || {};
  return [
    ...kafkaFigures(s.kafka, s.gc || {}),
    ["documents", count(space.liveRecords)],
    ["segments", count(s.segments)],
    ["index files", count(index.indexCount)],
    ["queue bytes", typeof s.segmentBytes === "number" ? bytes(s.segmentBytes) : "—"],
    ["cache hit ratio", typeof s.cacheHitRatio === "number" ? fixed(100 * s.cacheHitRatio, 1, " %") : "—"],
    ["last sequence", count(s.lastSequence)],
    ["space amplification", fixed(space.spaceAmplification, 2, "")],
    ["replica lag", "none (primary)"],
    ["writable", s.writable ? "yes" : "no (see the log)"],
  ];
}

/**
 * A shard fed by Kafka: where from, how far behind, whether it appends LZ4 blocks while catching up
 * and what of them the space reclamation has yet to recompress, what it skipped or warns of; none
 * otherwise.
 */
function kafkaFigures(k, gc) {
  if (!k) {
    return [];
  }
  const parts = k.partitions || [];
  const sum = (f) => parts.reduce((n, p) => n + (typeof f(p) === "number" ? f(p) : 0), 0);
  const dead = (p) => Object.values(p.deadLetters || {}).reduce((n, v) => n + v, 0);
  const stopped = parts.filter((p) => p.stopped).map((p) => p.partition + ": " + p.stopped);
  const lag = parts.reduce((m, p) => Math.max(m, typeof p.lagSeconds === "number" ? p.lagSeconds : 0), 0);
  return [
    ["Kafka topic", k.topic + " on " + k.bootstrapServers],
    ["Kafka partitions", parts.map((p) => p.partition).join(", ") || "none"],
    ["Kafka lag (messages)", count(sum((p) => p.lagMessages))],
    ["Kafka lag", fixed(lag, 1, " s")],
    ["Kafka catch-up", k.lz4Appends ? "appending LZ4 blocks (recompressed later)" : "no"],
    ["LZ4 to recompress", typeof gc.lz4Bytes === "number" ? bytes(gc.lz4Bytes) : "—"],
    ["Kafka dead letters", count(sum(dead))],
    ["Kafka retries", count(k.retries)],
    ["Kafka warnings", [...stopped, ...(k.warnings || [])].join("; ") || "none"],
  ];
}

function showFigures(s) {
  const dl = $("figures");
  const rows = [];
  for (const [label, value] of figures(s)) {
    const dt = document.createElement("dt");
    dt.textContent = label;
    const dd = document.createElement("dd");
    dd.textContent = value;
    dd.dataset.figure = label;
    rows.push(dt, dd);
  }
  dl.replaceChildren(...rows);
  $("role").textContent =
    s.role === "replica"
      ? "replica of " + s.source
      : s.kafka
        ? "primary, fed by Kafka topic " + s.kafka.topic
        : "primary";
}

// --- request rate and latency, from docstore_http_requests_seconds in /metrics ---

/** Totals of one group of requests: count, sum of seconds, cumulative count per bucket bound. */
function group() {
  return { count: 0, sum: 0, buckets: new Map() };
}

// Label values may hold braces (route="/docs/{id}"): a value is a quoted string, skipped whole.
const LINE =
  /^docstore_http_requests_seconds_(bucket|count|sum)\{((?:[^"}]|"(?:[^"\\]|\\.)*")*)\} (\S+)$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

/** Reads (the read port) and writes (the admin port's document routes), summed over statuses. */
function parseMetrics(text) {
  const groups = { reads: group(), writes: group() };
  for (const line of text.split("\n")) {
    const m = LINE.exec(line);
    if (!m) {
      continue;
    }
    const labels = {};
    for (const l of m[2].matchAll(LABEL)) {
      labels[l[1]] = l[2];
    }
    let g;
    if (labels.port === "read") {
      g = groups.reads;
    } else if (labels.route === "/docs/{id}" || labels.route === "/docs/_bulk") {
      g = groups.writes;
    } else {
      continue;
    }
    const v = parseFloat(m[3]);
    if (m[1] === "count") {
      g.count += v;
    } else if (m[1] === "sum") {
      g.sum += v;
    } else {
      const le = labels.le === "+Inf" ? Infinity : parseFloat(labels.le);
      g.buckets.set(le, (g.buckets.get(le) || 0) + v);
    }
  }
  return groups;
}

/**
 * The q-quantile in seconds of the requests between two readings, interpolated within its bucket
 * as Prometheus's histogram_quantile does; null without requests.
 */
function quantile(q, before, now) {
  const bounds = [...now.buckets.keys()].sort((a, b) => a - b);
  const total = now.count - before.count;
  if (total <= 0 || bounds.length === 0) {
    return null;
  }
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const le of bounds) {
    const cum = now.buckets.get(le) - (before.buckets.get(le) || 0);
    if (cum >= rank) {
      if (le === Infinity) {
        return lower;
      }
      return lower + (le - lower) * ((rank - below) / Math.max(cum - below, 1e-9));
    }
    lower = le;
    below = cum;
  }
  return lower;
}

const SERIES = {
  rate: [
    { key: "reads", label: "reads", color: "#2563eb", unit: "/s" },
    { key: "writes", label: "writes", color: "#d97706", unit: "/s" },
  ],
  // Reads take tenths of a millisecond, durable writes milliseconds: a logarithmic scale shows both.
  latency: [
    { key: "readP50", label: "read p50", color: "#93c5fd", unit: " ms" },
    { key: "readP99", label: "read p99", color: "#2563eb", unit: " ms" },
    { key: "writeP99", label: "write p99", color: "#d97706", unit: " ms" },
  ],
};
const history = [];
let previous = null;

function sample(groups, at) {
  if (previous) {
    const dt = (at - previous.at) / 1000;
    const ms = (s) => (s === null ? null : s * 1000);
    const before = previous.groups;
    history.push({
      reads: (groups.reads.count - before.reads.count) / dt,
      writes: (groups.writes.count - before.writes.count) / dt,
      readP50: ms(quantile(0.5, before.reads, groups.reads)),
      readP99: ms(quantile(0.99, before.reads, groups.reads)),
      writeP99: ms(quantile(0.99, before.writes, groups.writes)),
    });
    if (history.length > SAMPLES) {
      history.shift();
    }
  }
  previous = { groups, at };
  draw($("rate-chart"), $("rate-legend"), SERIES.rate);
  draw($("latency-chart"), $("latency-legend"), SERIES.latency, true);
}

function fmt(v) {
  if (v === null || v === undefined) {
    return "—";
  }
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/**
 * A line chart of the last SAMPLES readings of each series (on a logarithmic scale of whole decades
 * if log), and its legend with the latest.
 */
function draw(canvas, legend, series, log) {
  const ratio = window.devicePixelRatio || 1;
  const w = canvas.clientWidth || canvas.width;
  const h = canvas.clientHeight || canvas.height;
  canvas.width = Math.round(w * ratio);
  canvas.height = Math.round(h * ratio);
  const g = canvas.getContext("2d");
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, w, h);
  const left = 44;
  const bottom = h - 16;
  let max = 0;
  let min = Infinity;
  for (const p of history) {
    for (const s of series) {
      const v = p[s.key];
      if (v > 0) {
        max = Math.max(max, v);
        min = Math.min(min, v);
      }
    }
  }
  // The scale: value -> 0 (bottom) .. 1 (top), and the values of its grid lines.
  let scale;
  let ticks;
  if (log) {
    const lo = max > 0 ? Math.floor(Math.log10(min)) : -1;
    const hi = Math.max(lo + 1, max > 0 ? Math.ceil(Math.log10(max)) : 1);
    scale = (v) => (Math.log10(Math.max(v, Math.pow(10, lo))) - lo) / (hi - lo);
    ticks = [];
    for (let d = lo; d <= hi; d++) {
      ticks.push(Math.pow(10, d));
    }
  } else {
    max = niceCeiling(max);
    scale = (v) => v / max;
    ticks = [0, 1, 2, 3, 4].map((i) => (max * i) / 4);
  }
  g.font = "11px system-ui, sans-serif";
  g.fillStyle = "#667085";
  g.strokeStyle = "#e4e7ec";
  g.lineWidth = 1;
  for (const t of ticks) {
    const y = Math.round(bottom - (bottom - 8) * scale(t)) + 0.5;
    g.beginPath();
    g.moveTo(left, y);
    g.lineTo(w, y);
    g.stroke();
    g.fillText(String(Number(t.toPrecision(3))), 2, y + 4);
  }
  g.fillText("-" + SAMPLES + " s", left, h - 2);
  g.fillText("now", w - 24, h - 2);
  const x = (i) => left + ((w - left) * (i + SAMPLES - history.length)) / (SAMPLES - 1);
  const y = (v) => bottom - (bottom - 8) * scale(v);
  g.lineWidth = 1.5;
  for (const s of series) {
    g.strokeStyle = s.color;
    g.beginPath();
    let pen = false;
    history.forEach((p, i) => {
      const v = p[s.key];
      if (v === null) {
        pen = false;
        return;
      }
      if (pen) {
        g.lineTo(x(i), y(v));
      } else {
        g.moveTo(x(i), y(v));
        pen = true;
      }
    });
    g.stroke();
  }
  canvas.dataset.samples = history.length;
  const last = history[history.length - 1] || {};
  const items = series.map((s) => {
    const li = document.createElement("li");
    li.style.setProperty("--swatch", s.color);
    li.dataset.series = s.key;
    li.textContent = s.label + " " + fmt(last[s.key]) + s.unit;
    return li;
  });
  legend.replaceChildren(...items);
}

function niceCeiling(v) {
  if (v <= 0) {
    return 1;
  }
  const step = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) {
    if (m * step >= v) {
      return m * step;
    }
  }
  return 10 * step;
}

// --- polling ---

let busy = false;

async function tick() {
  if (busy) {
    return;
  }
  busy = true;
  try {
    const [stats, metrics] = await Promise.all([call("/stats"), call("/metrics")]);
    if (stats.ok) {
      showFigures(await stats.json());
      say($("status"), "updated " + new Date().toLocaleTimeString("en-GB"), false);
    } else if (stats.status !== 401) {
      say($("status"), "/stats answered " + stats.status, true);
    }
    if (metrics.ok) {
      sample(parseMetrics(await metrics.text()), performance.now());
    }
  } catch (e) {
    say($("status"), "the server does not answer: " + e.message, true);
  } finally {
    busy = false;
  }
}

// --- lookup ---

/**
 * The JSON text re-indented, token by token: nothing is parsed into numbers or objects, so what is
 * shown is exactly what is stored (large integers, key order, duplicate keys), only laid out.
 */
function pretty(text) {
  let out = "";
  let depth = 0;
  let inString = false;
  let escaped = false;
  const newline = () => "\n" + "  ".repeat(depth);
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (escaped) {
        escaped = false;
      } else if (c === "\\") {
        escaped = true;
      } else if (c === '"') {
        inString = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        inString = true;
        out += c;
        break;
      case "{":
      case "[": {
        let j = i + 1;
        while (j < text.length && " \t\r\n".includes(text[j])) {
          j++;
        }
        if (text[j] === (c === "{" ? "}" : "]")) {
          out += c + text[j];
          i = j;
        } else {
          depth++;
          out += c + newline();
        }
        break;
      }
      case "}":
      case "]":
        depth--;
        out += newline() + c;
        break;
      case ",":
        out += "," + newline();
        break;
      case ":":
        out += ": ";
        break;
      case " ":
      case "\t":
      case "\r":
      case "\n":
        break;
      default:
        out += c;
    }
  }
  return out;
}

$("lookup-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const id = $("lookup-id").value.trim();
  const status = $("lookup-status");
  $("lookup-meta").replaceChildren();
  $("lookup-doc").textContent = "";
  if (!/^[0-9]{1,19}$/.test(id)) {
    say(status, "an ID is a number (0 to 9223372036854775807)", true);
    return;
  }
  say(status, "looking up " + id + " …", false);
  try {
    const r = await call("/lookup/" + id);
    if (!r.ok) {
      let reason = r.status === 401 ? "the admin token is needed" : "answered " + r.status;
      if (r.status !== 401) {
        try {
          const answer = await r.json();
          reason = answer.error + (answer.detail ? ": " + answer.detail : "");
        } catch (ignored) {
          // not JSON: the status says it
        }
      }
      say(status, reason, true);
      return;
    }
    const body = await r.arrayBuffer();
    const seq = (r.headers.get("ETag") || "").replaceAll('"', "");
    const meta = [
      ["ID", id],
      ["sequence", seq],
      ["size", body.byteLength.toLocaleString("en-US") + " bytes"],
    ];
    const rows = [];
    for (const [label, value] of meta) {
      const dt = document.createElement("dt");
      dt.textContent = label;
      const dd = document.createElement("dd");
      dd.textContent = value;
      dd.dataset.meta = label;
      rows.push(dt, dd);
    }
    $("lookup-meta").replaceChildren(...rows);
    $("lookup-doc").textContent = pretty(new TextDecoder().decode(body));
    say(status, "", false);
  } catch (err) {
    say(status, "the server does not answer: " + err.message, true);
  }
});

// Empty charts and legends first, so that the layout does not move when the first figures come.
draw($("rate-chart"), $("rate-legend"), SERIES.rate);
draw($("latency-chart"), $("latency-legend"), SERIES.latency, true);
tick();
setInterval(tick, POLL_MILLIS);
