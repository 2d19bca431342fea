"use strict";
// A seat's live table: the first message holds the state and the latest steps, each next one the steps
// since (what changed: diffs), the open step, the seat's own decision. Drawn with draw.js, as the viewer.
// A dropped connection is opened again, and the server sends the state anew: nothing is lost.

let META = null, OWNERS = new Map(), NAMES = new Map(), MAPS = [];
let committed = null, count = 0, scores = [], log = [], open = null, ask = null, end = {};
let picked = [], socket = null, retry = 500, sourceBuilt = false;
const ownerOfKey = (key) => OWNERS.get(key) || "";
const LOG_STEPS = 30;

function toMaps(state) {
  return { zones: new Map(entries(state.zones)), vars: new Map(entries(state.vars)) };
}

function connect() {
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + location.pathname.replace(/\/$/, "") + "/ws";
  socket = new WebSocket(url);
  socket.onopen = () => { retry = 500; };
  socket.onmessage = (e) => receive(JSON.parse(e.data));
  socket.onclose = () => {
    $("link").textContent = "connection lost: connecting again\u2026";
    document.body.dataset.live = "no";
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 5000);
  };
}

function receive(m) {
  if (m.type === "error") { $("ask").dataset.error = m.text; showError(m.text); return; }
  if (m.type === "hello") {
    META = m;
    NAMES = new Map(entries(m.names));
    MAPS = (m.maps || []).map((x) => ({ ...x, zones: new Map(entries(x.zones)) }));
    OWNERS = new Map();
    committed = toMaps(m.state);
    count = m.count;
    scores = m.scores.map((s) => ({ scores: s }));
    log = m.log;
    const title = $("title");
    title.textContent = m.game + " \u2014 " + m.rulebook + ", " + m.players.length + " players";
    if (m.as) title.append(el("span", "as", "as " + m.as));
    else title.append(el("span", "as", "spectator"));
    if (!sourceBuilt) { buildSource(m.files); sourceBuilt = true; }
    document.body.dataset.live = "yes";
    $("link").textContent = "live";
  } else if (m.from !== count) {  // a message missed: start again from a first message
    socket.close();
    return;
  }
  for (const [k, v] of entries(m.owners)) OWNERS.set(k, v);
  if (m.steps.length) {
    const states = rebuildStates(m.steps, [], committed);
    committed = states[states.length - 1];
    for (const s of m.steps) { scores.push({ scores: s.scores }); log.push({ decision: s.decision, trace: s.trace }); }
    log = log.slice(-LOG_STEPS);
    count += m.steps.length;
  }
  if (!ask || !m.decision || ask.turn !== m.decision.turn) picked = [];
  open = m.open;
  ask = m.decision;
  end = m.end || {};
  showError("");
  render();
}

function send(labels) {
  if (!socket || socket.readyState !== WebSocket.OPEN || !ask) return;
  socket.send(JSON.stringify({ answer: labels, turn: ask.turn }));
}

function showError(text) {
  let box = $("error");
  if (!box) { box = el("div"); box.id = "error"; $("ask").append(box); }
  box.textContent = text;
}

function renderAsk() {
  const box = $("ask");
  box.replaceChildren();
  box.classList.toggle("mine", Boolean(ask && ask.options));
  box.dataset.turn = ask && ask.turn !== undefined ? ask.turn : "";
  if (end.result) {
    box.append(el("h2", "", "The end"));
    for (const line of end.result) box.append(el("div", "end", line));
    const a = el("a", "", "download the record");
    a.href = location.pathname.replace(/\/$/, "") + "/record";
    a.id = "record";
    box.append(a);
    return;
  }
  if (end.stopped) { box.append(el("div", "end", end.stopped)); return; }
  if (!ask) { box.append(el("div", "hidden", "\u2026")); return; }
  if (!ask.options) {
    box.append(el("h2", "", "Waiting"));
    box.append(el("div", "waits", "The game waits on " + ask.by + "."));
    return;
  }
  box.append(el("h2", "", "Your decision"));
  box.append(el("div", "prompt", ask.prompt));
  const ul = el("div", "options");
  for (const label of ask.options) {
    const b = el("button", "answer", label);
    b.dataset.label = label;
    if (ask.pick && label !== "done") {
      b.classList.toggle("picked", picked.includes(label));
      b.addEventListener("click", () => {
        picked = picked.includes(label) ? picked.filter((x) => x !== label) : [...picked, label];
        renderAsk();
      });
    } else {
      b.addEventListener("click", () => send(ask.pick ? [...picked, label] : [label]));
    }
    ul.append(b);
  }
  box.append(ul);
  if (ask.pick) {
    const c = el("button", "confirm", picked.length ? "Confirm " + picked.length + " picked" : "Confirm none");
    c.addEventListener("click", () => send([...picked, "done"]));
    box.append(c);
  }
}

function render() {
  const now = open ? rebuildStates([open], [], committed)[0] : committed;
  const last = open || log[log.length - 1] || { decision: null, trace: [] };
  const shownScores = open ? open.scores : (scores.length ? scores[scores.length - 1].scores : []);
  drawAreas($("areas"), now, { players: META.players, ownerOf: ownerOfKey, names: NAMES, maps: MAPS, scores: shownScores, before: open ? committed : null });
  drawDecision($("decision"), "Last step", last.decision, NAMES, end.result ? end : null);
  const lines = [...log, ...(open ? [open] : [])].slice(-8).flatMap((s) => s.trace);
  drawTrace($("trace"), lines, META.files);
  drawChart($("chart"), $("legend"), [...scores, ...(open ? [{ scores: open.scores }] : [])], META.players);
  renderAsk();
}

window.addEventListener("resize", () => linkMaps($("areas")));
connect();
