// A plan's runs from the run history (docs/history.md): one chart per
// tracked number over the runs, its change points marked, each point a link
// to that run's report, and the runs as a table. The data is
// window.STAMPEDE_HISTORY (stampede history PLAN --html FILE) or, on a
// coordinator's dashboard (the Runs page), api/history/PLAN for
// ?plan=PLAN and api/history (the plans) without: {plan, runs: [{run_id,
// started_at, verdict, duration_s, report}], metrics: [{name,
// higher_is_better, values}], changes: [{metric, run, before, after,
// change, worse}]}.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

  function renderPlans(list) {
    const plans = `${list.length} plan${list.length === 1 ? "" : "s"}`;
    document.querySelector(".title").innerHTML = `past runs <span class="muted">${plans}</span>`;
    $("status").style.display = "none";
    document.querySelector(".bar").style.display = "none";
    let html = "<table><tr><th>plan</th><th>runs</th><th>last run</th><th>its result</th></tr>";
    for (const p of list) {
      html += `<tr><td><a href="history.html?plan=${encodeURIComponent(p.plan)}">${esc(p.plan)}</a></td>` +
        `<td>${p.runs}</td><td>${esc(p.last_started_at)}</td><td>${esc(p.last_verdict)}</td></tr>`;
    }
    $("summary").innerHTML = list.length ? html + "</table>" : "<p class=\"muted\">No runs recorded yet.</p>";
  }

  function render(h) {
    $("plan").textContent = h.plan;
    const n = `${h.runs.length} run${h.runs.length === 1 ? "" : "s"}`;
    $("count").textContent = n;
    const worse = h.changes.filter((c) => c.worse);
    const last = h.runs.length ? h.runs[h.runs.length - 1] : null;
    $("status").textContent = worse.length ? `${worse.length} regression${worse.length > 1 ? "s" : ""}` : "no regression";
    $("status").className = "badge " + (worse.length ? "failed" : "ok");
    const fmt = (v) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toPrecision(3));
    let html = last ? `<p>Last run ${esc(last.run_id)}, ${esc(last.started_at)}: <b>${esc(last.verdict)}</b>.</p>` : "";
    if (h.changes.length) {
      html += "<table><tr><th>number</th><th>from run</th><th>before</th><th>after</th><th>change</th><th></th></tr>";
      for (const c of h.changes) {
        html += `<tr><td>${esc(c.metric)}</td><td>${esc(h.runs[c.run].run_id)}</td><td>${fmt(c.before)}</td>` +
          `<td>${fmt(c.after)}</td><td>${c.change >= 0 ? "+" : ""}${(100 * c.change).toFixed(1)}%</td>` +
          `<td class="${c.worse ? "bad" : "ok"}">${c.worse ? "worse" : "better"}</td></tr>`;
      }
      html += "</table>";
    } else {
      html += `<p class="muted">No change points in ${n} (a level needs 3 runs on each side).</p>`;
    }
    $("summary").innerHTML = html;

    const xs = h.runs.map((_, i) => i + 1);
    for (const m of h.metrics) {
      const card = document.createElement("div");
      card.className = "card";
      card.innerHTML = `<h2>${esc(m.name)} <small>${m.higher_is_better ? "higher is better" : "lower is better"}</small></h2>`;
      const el = document.createElement("div");
      el.className = "chart";
      card.appendChild(el);
      $("charts").appendChild(card);
      const marks = h.changes.filter((c) => c.metric === m.name);
      const opts = {
        width: Math.max(320, el.clientWidth || 560),
        height: 240,
        scales: { x: { time: false } },
        // Whole runs on x; room on y for numbers like 12,345.6.
        axes: [{ stroke: "#8b98a5", grid: { stroke: "#263241" }, label: "run", incrs: [1, 2, 5, 10, 20, 50, 100] },
          { stroke: "#8b98a5", grid: { stroke: "#263241" }, size: 70 }],
        series: [{ label: "run" }, { label: m.name, stroke: "#58a6ff", width: 2, points: { show: true, size: 6 } }],
        legend: { show: false },
        hooks: {
          draw: [(u) => {
            const ctx = u.ctx;
            for (const c of marks) {
              const x = u.valToPos(c.run + 0.5, "x", true);
              ctx.save();
              ctx.strokeStyle = c.worse ? "#f85149" : "#3fb950";
              ctx.setLineDash([6, 4]);
              ctx.lineWidth = 2;
              ctx.beginPath();
              ctx.moveTo(x, u.bbox.top);
              ctx.lineTo(x, u.bbox.top + u.bbox.height);
              ctx.stroke();
              ctx.restore();
            }
          }],
        },
      };
      const u = new uPlot(opts, [xs, m.values], el);
      u.over.addEventListener("click", () => {
        const i = u.cursor.idx;
        if (i != null && h.runs[i] && h.runs[i].report) window.location.href = h.runs[i].report;
      });
      u.over.title = "click a point for its run's report";
    }
    const table = document.createElement("section");
    table.className = "card wide";
    let rows = "<h2>Runs <small>newest first</small></h2><table><tr><th>started</th><th>run</th><th>result</th><th>s</th></tr>";
    for (const r of h.runs.slice().reverse()) {
      const id = r.report ? `<a href="${esc(r.report)}">${esc(r.run_id)}</a>` : esc(r.run_id);
      rows += `<tr><td>${esc(r.started_at)}</td><td>${id}</td><td>${esc(r.verdict)}</td><td>${(r.duration_s || 0).toFixed(1)}</td></tr>`;
    }
    table.innerHTML = rows + "</table>";
    document.body.appendChild(table);
  }

  if (window.STAMPEDE_HISTORY) {
    render(window.STAMPEDE_HISTORY);
    return;
  }
  const plan = new URLSearchParams(window.location.search).get("plan");
  fetch(plan ? `api/history/${encodeURIComponent(plan)}` : "api/history", { cache: "no-store" })
    .then((r) => (r.ok ? r.json() : r.text().then((t) => Promise.reject(new Error(t)))))
    .then((data) => (plan ? render(data) : renderPlans(data)))
    .catch((e) => { $("summary").textContent = String(e.message || e); });
})();
