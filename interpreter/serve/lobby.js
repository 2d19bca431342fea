"use strict";
// The lobby: the rulebooks and games come from GET games (under the host's link), a game starts by POST.
const API = location.pathname.replace(/\/$/, "") + "/games";
const AGENTS = ["human", "random", "greedy", "mcts"];
let RULEBOOKS = [];

function seatInputs() {
  const n = Number($("players").value) || 1, box = $("seats");
  const old = [...box.querySelectorAll("input")].map((i) => i.value);
  box.replaceChildren();
  for (let i = 0; i < n; i++) {
    const label = el("label", "", "P" + (i + 1) + " ");
    const input = el("input");
    input.name = "seat" + i;
    input.value = old[i] || (i === 0 ? "human" : "random");
    input.setAttribute("list", "agents");
    input.size = 18;
    label.append(input);
    box.append(label);
  }
  const list = el("datalist");
  list.id = "agents";
  for (const a of AGENTS) { const o = el("option"); o.value = a; list.append(o); }
  box.append(list);
}

function chosen() { return RULEBOOKS.find((r) => r.name === $("rulebook").value); }

function limits() {
  const r = chosen();
  if (!r || r.error) return;
  $("players").min = r.min;
  $("players").max = r.max;
  const n = Number($("players").value);
  if (n < r.min || n > r.max) $("players").value = r.min;
  seatInputs();
}

function showGames(games) {
  const t = $("games");
  t.replaceChildren();
  const head = el("tr");
  for (const h of ["game", "rulebook", "seats", "state", "links"]) head.append(el("th", "", h));
  t.append(head);
  for (const g of [...games].reverse()) {
    const tr = el("tr");
    tr.dataset.game = g.id;
    tr.append(el("td", "", g.id), el("td", "", g.rulebook), el("td", "", g.seats.join(", ")), el("td", "state", g.state + (g.note ? ": " + g.note : "")));
    const links = el("td");
    g.links.forEach((href, i) => {
      const a = el("a", "seat", "P" + (i + 1) + " (" + g.seats[i] + "): " + href);
      a.href = href;
      a.dataset.seat = "P" + (i + 1);
      a.target = "_blank";
      links.append(a);
    });
    const s = el("a", "spectator", "spectator: " + g.spectator);
    s.href = g.spectator;
    s.target = "_blank";
    links.append(s);
    tr.append(links);
    t.append(tr);
  }
}

async function refresh(first) {
  const r = await fetch(API, { cache: "no-store" });
  const data = await r.json();
  if (first) {
    RULEBOOKS = data.rulebooks;
    for (const rb of RULEBOOKS) {
      const o = el("option", "", rb.error ? rb.name + " (does not load)" : rb.name + " \u2014 " + rb.game + ", " + rb.min + "-" + rb.max + " players");
      o.value = rb.name;
      o.disabled = Boolean(rb.error);
      $("rulebook").append(o);
    }
    limits();
  }
  showGames(data.games);
}

$("rulebook").addEventListener("change", limits);
$("players").addEventListener("change", seatInputs);
$("start").addEventListener("submit", async (e) => {
  e.preventDefault();
  $("error").textContent = "";
  const seats = [...$("seats").querySelectorAll("input")].map((i) => i.value.trim());
  const body = { rulebook: $("rulebook").value, players: Number($("players").value), seats };
  const r = await fetch(API, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const data = await r.json();
  if (!r.ok) { $("error").textContent = data.error; return; }
  document.body.dataset.started = data.id;
  refresh(false);
});
refresh(true);
setInterval(() => refresh(false), 3000);
