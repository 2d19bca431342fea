"use strict";
// The drawing of a game's state, decision, trace, source and score chart: one renderer for the page of
// `rulecraft view` (viewer.py inlines this file into it) and the live table of `rulecraft serve`.
// It draws any rulebook's game from data alone (Game.view's shape) and names no game.

const COLOURS = ["#2b5fb4", "#c0392b", "#1f7a3a", "#b7791f", "#7a4fb0", "#0f7c8c", "#8c4a2f", "#555"];
const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

// Keys that come from the rulebook (zone and variable names: `__proto__`, `constructor`, ...) are
// kept in Maps, never as an object's properties, which would read or set the object's prototype.
const entries = (obj) => Object.entries(obj || {});  // (JSON.parse makes every key an own property)

// The states of a list of steps (each holds what changed in the zones and variables: `zones`,
// `zones_gone`, `vars`, `vars_gone`), rebuilt into `into` from the state `from` (null: the start).
function rebuildStates(steps, into, from) {
  let zones = from ? from.zones : new Map(), vars = from ? from.vars : new Map();
  for (const step of steps) {
    zones = new Map([...zones, ...entries(step.zones)]);
    for (const k of step.zones_gone || []) zones.delete(k);
    vars = new Map([...vars, ...entries(step.vars)]);
    for (const k of step.vars_gone || []) vars.delete(k);
    into.push({ zones, vars });
  }
  return into;
}

function parseKey(key) {
  const i = key.indexOf("[");
  return i < 0 ? { name: key, args: [] } : { name: key.slice(0, i), args: key.slice(i + 1, -1).split(",") };
}

function cardsOf(value) {
  const box = el("span", "cards");
  if (Array.isArray(value)) {
    if (!value.length) box.append(el("span", "empty", "(empty)"));
    // Equal cards side by side are one chip with a count (a sorted deck shows its composition).
    for (let i = 0; i < value.length; ) {
      let j = i;
      while (j < value.length && value[j] === value[i]) j++;
      const chip = el("span", "card");
      chip.dataset.n = j - i;
      chip.append(el("span", "label", value[i]));
      if (j - i > 1) chip.append(el("span", "times", "\u00d7" + (j - i)));
      box.append(chip);
      i = j;
    }
  } else if ("top" in value) {
    if (value.top !== null) {
      const chip = el("span", "card top");
      chip.dataset.n = 1;
      chip.append(el("span", "label", value.top));
      box.append(chip);
    }
    box.append(el("span", "hidden", value.count + (value.count === 1 ? " card" : " cards")));
  } else {
    box.append(el("span", "hidden", value.count + (value.count === 1 ? " card" : " cards") + " (hidden)"));
  }
  // Cards of a hidden zone revealed to this player (`reveal`), by place: shown beside the count.
  for (const [place, label] of Object.entries((!Array.isArray(value) && value.shown) || {})) {
    const chip = el("span", "card shown");
    chip.dataset.n = 1;
    chip.title = place;
    chip.append(el("span", "label", label));
    box.append(chip);
  }
  // Facts told to this player (`tell`), by place.
  for (const [place, facts] of Object.entries((!Array.isArray(value) && value.told) || {})) {
    box.append(el("span", "hidden", " " + place + ": " + facts.join(", ")));
  }
  return box;
}

function zoneEl(key, value, changed, shortName) {
  const z = el("div", "zone" + (changed ? " changed" : ""));
  z.dataset.zone = key;
  if (!Array.isArray(value)) {
    z.dataset.count = value.count;
    if ("top" in value) z.dataset.kind = "top"; else z.dataset.kind = "hidden";
  } else z.dataset.kind = "list";
  const name = el("span", "zname", shortName || key);
  name.title = key;  // the name the rules use
  z.append(name, cardsOf(value));
  return z;
}

// A key as shown inside its owner's area: without the owner (`hand[P1]` in P1's area is `hand`), by
// the name the rules give it for people if they do (`vp_cards[P1]`: "VP cards"; on the table,
// `vp_cards[P1]` with no owner given: "VP cards (P1)").
function shortKey(key, owner, names) {
  const { name, args } = parseKey(key);
  const rest = args.filter((a) => a !== owner);
  if (names.has(name)) return names.get(name) + (rest.length ? " (" + rest.join(", ") + ")" : "");
  return rest.length ? name + "[" + rest.join(",") + "]" : name;
}

// A family of zones keyed by two numbers (besides the player) is drawn as a grid, the first
// number as rows from the bottom up (a pyramid's level, a map's row), the second left to right.
function gridOf(name, keys, owner, view, changed, names) {
  const rows = new Map();
  for (const key of keys) {
    const nums = parseKey(key).args.filter((a) => a !== owner).map(Number);
    if (!rows.has(nums[0])) rows.set(nums[0], []);
    rows.get(nums[0]).push([nums[1], key]);
  }
  const box = el("div", "grid");
  box.append(el("div", "gname", names.get(name) || name));
  for (const r of [...rows.keys()].sort((a, b) => b - a)) {
    const row = el("div", "row");
    for (const [, key] of rows.get(r).sort((a, b) => a[0] - b[0])) {
      row.append(zoneEl(key, view.zones.get(key), changed(key), parseKey(key).args.filter((a) => a !== owner).join(",")));
    }
    box.append(row);
  }
  return box;
}

// A board the rules lay out (`layout`), drawn as a map: each place a box at its column and row, holding
// the zones keyed by it and a marker for each variable that names it; the links are lines between the
// boxes (drawn by linkMaps once the boxes stand in the page). Zones of a place with no position are
// returned, to be listed as usual.
function drawMap(map, zoneKeys, view, game, changed) {
  const { players, ownerOf, names } = game;
  const box = el("div", "map");
  box.dataset.map = map.enum;
  box.links = map.links;
  const grid = el("div", "mapgrid");
  const cols = Math.max(...map.places.map((p) => p[1])) + 1;
  grid.style.gridTemplateColumns = "repeat(" + cols + ", minmax(0, 1fr))";
  const cells = new Map();
  for (const [name, x, y] of map.places) {
    const cell = el("div", "place");
    cell.dataset.place = name;
    cell.style.gridColumn = x + 1;
    cell.style.gridRow = y + 1;
    cell.append(el("div", "pname", name));
    cells.set(name, cell);
    grid.append(cell);
  }
  const placeOf = (arg) => (arg.startsWith(map.enum + ".") ? arg.slice(map.enum.length + 1) : arg);
  const rest = [];
  for (const key of zoneKeys) {
    const { name, args } = parseKey(key);
    const at = map.zones.get(name);
    const cell = cells.get(placeOf(args[at] || ""));
    if (!cell) { rest.push(key); continue; }
    const others = args.filter((_, i) => i !== at);
    const zone = zoneEl(key, view.zones.get(key), changed(key), (names.get(name) || name) + (others.length ? "[" + others.join(",") + "]" : ""));
    const cards = zone.querySelector(".cards"), chips = cards.querySelectorAll(".card");
    if (chips.length > 4) {  // a long pile (a town's deck) folds in a place: its size and top, open on a click
      const fold = el("details"), n = [...chips].reduce((sum, c) => sum + Number(c.dataset.n), 0);
      fold.append(el("summary", "", n + " cards, top " + chips[chips.length - 1].querySelector(".label").textContent));
      cards.replaceWith(fold);
      fold.append(cards);
    }
    cell.append(zone);
  }
  for (const [key, value] of view.vars) {
    const cell = map.markers.includes(parseKey(key).name) ? cells.get(placeOf(String(value))) : undefined;
    if (!cell) continue;
    const owner = ownerOf(key), seat = players.indexOf(owner);
    const marker = el("span", "marker", owner || shortKey(key, "", names));
    marker.title = key + " = " + value;
    marker.dataset.marker = key;
    if (seat >= 0) marker.style.background = COLOURS[seat % COLOURS.length];
    cell.querySelector(".pname").append(marker);
  }
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.classList.add("links");
  box.append(svg, grid);
  return { box, rest };
}

// Draw the links of every map under `root` between the centres of their places' boxes.
function linkMaps(root) {
  for (const box of root.querySelectorAll(".map")) {
    const svg = box.querySelector("svg.links"), origin = box.getBoundingClientRect();
    svg.replaceChildren();
    const centre = (name) => {
      const cell = box.querySelector(`.place[data-place="${CSS.escape(name)}"]`);
      if (!cell) return null;
      const r = cell.getBoundingClientRect();
      return [r.left - origin.left + r.width / 2, r.top - origin.top + r.height / 2];
    };
    for (const [a, b] of box.links) {
      const [p, q] = [centre(a), centre(b)];
      if (!p || !q) continue;
      const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
      for (const [k, v] of [["x1", p[0]], ["y1", p[1]], ["x2", q[0]], ["y2", q[1]]]) line.setAttribute(k, v.toFixed(1));
      line.dataset.link = a + "-" + b;
      svg.append(line);
    }
  }
}

// Draw a state into `box`: the table's zones and variables across the top, then one area a player,
// side by side in equal columns (two rows when there are more than four players). `view` holds the
// zones and variables (Maps, by key); `game` the players, the owner of each key, the scores a seat,
// and the state before (what changed since is marked; null: nothing marked). The slider's steps and
// any other page that shows a state draw through this one function.
function drawAreas(box, view, game) {
  const { players, ownerOf, names = new Map(), maps = [], scores = [], before = null } = game;
  const changedZone = (k) => before !== null && JSON.stringify(before.zones.get(k)) !== JSON.stringify(view.zones.get(k));
  const changedVar = (k) => before !== null && before.vars.get(k) !== view.vars.get(k);
  const areas = new Map([["", []]]);
  for (const p of players) areas.set(p, []);
  for (const key of [...view.zones.keys(), ...view.vars.keys()]) {
    const owner = ownerOf(key);
    if (!areas.has(owner)) areas.set(owner, []);
  }
  box.replaceChildren();
  box.style.setProperty("--seats", players.length <= 4 ? Math.max(1, players.length) : Math.ceil(players.length / 2));
  for (const [owner] of areas) {
    const zoneKeys = [...view.zones.keys()].filter((k) => ownerOf(k) === owner).sort();
    const varKeys = [...view.vars.keys()].filter((k) => ownerOf(k) === owner).sort();
    if (!zoneKeys.length && !varKeys.length && !maps.length && owner === "") continue;
    const seat = players.indexOf(owner);
    const area = el("div", seat >= 0 ? "area" : "area table");
    area.dataset.owner = owner;
    const h = el("h3", "", owner || "Table");
    if (seat >= 0) {
      h.style.color = COLOURS[seat % COLOURS.length];
      const sc = scores[seat];
      if (sc !== undefined) h.append(el("span", "score", sc === null ? "score hidden" : "score " + sc));
    }
    area.append(h);
    const families = new Map();
    for (const key of zoneKeys) {
      const { name } = parseKey(key);
      if (!families.has(name)) families.set(name, []);
      families.get(name).push(key);
    }
    for (const map of maps) {
      const keys = zoneKeys.filter((k) => map.zones.has(parseKey(k).name));
      if (!keys.length && owner !== "") continue;  // a board is on the table, with its places, even when empty
      const drawn = drawMap(map, keys, view, { players, ownerOf, names }, changedZone);
      area.append(drawn.box);
      for (const key of keys) families.delete(parseKey(key).name);
      for (const key of drawn.rest) area.append(zoneEl(key, view.zones.get(key), changedZone(key), shortKey(key, owner, names)));
    }
    for (const [name, keys] of families) {
      const numeric = keys.every((k) => {
        const rest = parseKey(k).args.filter((a) => a !== owner);
        return rest.length === 2 && rest.every((a) => /^-?\d+$/.test(a));
      });
      if (numeric && keys.length > 1) area.append(gridOf(name, keys, owner, view, changedZone, names));
      else for (const key of keys) area.append(zoneEl(key, view.zones.get(key), changedZone(key), shortKey(key, owner, names)));
    }
    if (varKeys.length) {
      const table = el("table", "vars");
      for (const key of varKeys) {
        const tr = el("tr", changedVar(key) ? "changed" : "");
        tr.dataset.var = key;
        const name = el("td", "", shortKey(key, owner, names));
        name.title = key;
        tr.append(name, el("td", "", String(view.vars.get(key))));
        table.append(tr);
      }
      area.append(table);
    }
    box.append(area);
  }
  linkMaps(box);
}

// Draw a step's decision into `box`: the heading, who answered and how (the prompt, a draw's zones by
// their display names), every option with the answer marked, and `end` (the result, or whom the
// game waits on) when the step is the last.
function drawDecision(box, heading, d, names, end) {
  box.replaceChildren();
  box.append(el("h2", "", heading));
  if (d === null) {
    box.append(el("div", "", "The rules run from the start of the game up to the first decision."));
  } else if (d.secret) {
    const line = el("div");
    line.append(el("span", "who", d.by), " makes a secret choice (its steps are not shown)");
    box.append(line);
  } else {
    const line = el("div");
    line.append(el("span", "who", d.by), d.by === "table" ? " reveals " : " chose ");
    if (d.draw) {
      line.append("a card drawn from ");
      d.draw.forEach((key, i) => {
        const zone = el("span", "zref", shortKey(key, "", names));
        zone.title = key;
        line.append(...(i ? [" to ", zone] : [zone]));
      });
    } else if (d.prompt) line.append(el("span", "prompt", "\u201c" + d.prompt + "\u201d"));
    if (d.chosen !== undefined && !d.options) line.append(": ", el("strong", "", d.chosen));
    if (d.chosen === undefined) line.append(el("span", "hidden", " (the answer is not shown)"));
    box.append(line);
    if (d.options) {
      const ul = el("ul", "options");
      for (const o of d.options) ul.append(el("li", o === d.chosen ? "chosen" : "", o));
      box.append(ul);
    }
  }
  if (end && end.result) box.append(el("div", "end", end.result.join(" \u00b7 ")));
  else if (end && end.waits) box.append(el("div", "end", "The game waits on " + end.waits + (end.prompt ? ": " + end.prompt : "")));
}

// Draw a step's trace lines into `ol`, each linked to the line of the rulebook that caused it (`files`:
// the rulebook's files, as the source panel shows them); the lines the step ran are tinted there.
function drawTrace(ol, trace, files) {
  ol.replaceChildren();
  for (const [verb, text, place] of trace) {
    const li = el("li");
    li.append(el("span", "verb", verb), text);
    if (place) {
      const a = el("a", "src", files[place[0]].name + ":" + place[1]);
      a.href = "#";
      a.dataset.file = place[0];
      a.dataset.line = place[1];
      a.addEventListener("click", (e) => { e.preventDefault(); showSource(place[0], place[1], true); });
      li.append(a);
    }
    ol.append(li);
  }
  // The lines this step ran are tinted in the source; the first one is brought into sight.
  for (const old of document.querySelectorAll(".line.step")) old.classList.remove("step");
  const places = trace.map((t) => t[2]).filter((p) => p);
  for (const [f, l] of places) { const line = $("L" + f + "-" + l); if (line) line.classList.add("step"); }
  if (places.length) showSource(places[0][0], places[0][1], false);
}

function showSource(file, line, mark) {
  for (const f of document.querySelectorAll(".file")) f.classList.toggle("on", f.dataset.file === String(file));
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("on", b.dataset.file === String(file));
  const target = $("L" + file + "-" + line);
  if (mark) for (const old of document.querySelectorAll(".line.hl")) old.classList.remove("hl");
  if (target) {
    if (mark) target.classList.add("hl");
    const pane = $("source");
    pane.scrollTop = target.offsetTop - pane.offsetTop - pane.clientHeight / 3;
  }
}

// The rulebook's files in the source panel (#tabs, #source), one tab a file, a line an element (L<file>-<line>).
function buildSource(files) {
  files.forEach((f, i) => {
    const b = el("button", "", f.name);
    b.dataset.file = i;
    b.addEventListener("click", () => showSource(i, 0, false));
    $("tabs").append(b);
    const div = el("div", "file");
    div.dataset.file = i;
    f.text.split("\n").forEach((text, j) => {
      const line = el("div", "line");
      line.id = "L" + i + "-" + (j + 1);
      line.append(el("span", "ln", String(j + 1)), text);
      div.append(line);
    });
    $("source").append(div);
  });
  showSource(0, 0, false);
}

// Round steps for an axis from lo to hi: about `count` ticks at 1, 2 or 5 times a power of ten.
function ticks(lo, hi, count) {
  const raw = Math.max(1, (hi - lo) / count), mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) out.push(v);
  return out;
}

// The score chart, drawn into `svg`: one line a player (a gap where a score is not shown) over the
// steps, with a value axis and a step axis, each with its tick values. `steps` are the page's steps
// (each with `scores`, a score a seat). Returns the step-to-x map, for the marker of the current step,
// and the inverse, for a click; null when there is no score to draw.
function drawChart(svg, legend, steps, players) {
  const NS = "http://www.w3.org/2000/svg";
  svg.replaceChildren();
  legend.replaceChildren();
  const last = steps.length - 1;
  const values = steps.flatMap((s) => s.scores).filter((v) => v !== null && v !== undefined);
  if (!values.length) { legend.append(el("span", "hidden", "No scores to show.")); return null; }
  const W = Math.max(200, Math.round(svg.clientWidth || 600)), H = 170;
  const left = 34, right = 8, top = 8, bottom = 30;
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  const lo = Math.min(0, ...values), hi = Math.max(1, ...values);
  const x = (i) => left + (last ? i / last : 0) * (W - left - right);
  const y = (v) => H - bottom - ((v - lo) / (hi - lo)) * (H - top - bottom);
  const mk = (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const axes = mk("g", { class: "axes" });
  for (const v of ticks(lo, hi, 4)) {
    axes.append(mk("line", { x1: left, x2: W - right, y1: y(v), y2: y(v), stroke: v === 0 ? "#bbb" : "#eee" }));
    axes.append(mk("text", { class: "tick", "data-axis": "score", x: left - 4, y: y(v) + 3.5, "text-anchor": "end" }, String(v)));
  }
  for (const i of ticks(0, last, 6)) {
    axes.append(mk("line", { x1: x(i), x2: x(i), y1: H - bottom, y2: H - bottom + 4, stroke: "#999" }));
    axes.append(mk("text", { class: "tick", "data-axis": "step", x: x(i), y: H - bottom + 14, "text-anchor": "middle" }, String(i)));
  }
  axes.append(mk("line", { x1: left, x2: left, y1: top, y2: H - bottom, stroke: "#999" }));
  axes.append(mk("line", { x1: left, x2: W - right, y1: H - bottom, y2: H - bottom, stroke: "#999" }));
  axes.append(mk("text", { class: "title", x: W - right, y: H - 2, "text-anchor": "end" }, "step"));
  axes.append(mk("text", { class: "title", x: 2, y: top + 2, transform: "rotate(-90 2 " + (top + 2) + ")", "text-anchor": "end", "dominant-baseline": "hanging" }, "score"));
  svg.append(axes);
  players.forEach((p, seat) => {
    let d = "", pen = false;
    steps.forEach((s, i) => {
      const v = s.scores[seat];
      if (v === null || v === undefined) { pen = false; return; }
      d += (pen ? "L" : "M") + x(i).toFixed(1) + " " + y(v).toFixed(1) + " ";
      pen = true;
    });
    const colour = COLOURS[seat % COLOURS.length];
    if (d) svg.append(mk("path", { d, fill: "none", stroke: colour, "stroke-width": 2, "data-player": p }));
    const key = el("span", "", "\u25A0 " + p);
    key.style.color = colour;
    legend.append(key);
  });
  svg.append(mk("line", { class: "now", y1: top, y2: H - bottom, stroke: "#999", "stroke-dasharray": "3 3" }));
  return { x, step: (fraction) => Math.round(((fraction * W - left) / (W - left - right)) * last) };
}
