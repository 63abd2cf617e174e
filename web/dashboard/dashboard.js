// The stampede dashboard: draws a run view (report/run_view.cc) with uPlot.
// Live: polls /api/runs/current once a second. In report.html the view is
// embedded as window.STAMPEDE_RUN and drawn once.
(function () {
  "use strict";
  const palette = ["#58a6ff", "#3fb950", "#d2a8ff", "#ffa657", "#79c0ff", "#56d364", "#ff7b72", "#e3b341"];
  const outcomeColor = { retryable: "#e3b341", unavailable: "#f85149", ambiguous: "#d2a8ff", fatal: "#ff7b72", missed: "#8b949e" };
  const charts = {};
  let view = null;

  const $ = (id) => document.getElementById(id);
  // Fault rows shown only when some fault has the number (not every database says).
  const OPTIONAL_ROWS = {"disk of the nodes that joined": "joined_disk_bytes", "peak replication lag": "peak_lag_bytes",
    "new node's first operation": "first_op_s", "leaving node's last operation": "last_op_s"};
  // Where the data went: rows for joins, leaves, rolling restarts and faults
  // that moved data (report/recovery.h, ShowsRebalance), none otherwise.
  const REBALANCE_ROWS = new Set(["time to balanced", "data moved", "serving nodes before / after"]);
  const fmt = (v, d, unit) => (v === null || v === undefined || v < 0 ? "n/a" : Number(v).toFixed(d) + (unit || ""));
  // Latencies as report.md writes them (report/text_format.h HumanUs).
  const lat = (us) => (us === null || us === undefined || us < 0 ? "n/a"
    : us < 1000 ? Number(us).toFixed(us < 10 ? 1 : 0) + " µs"
    : us < 1e6 ? (us / 1000).toFixed(us < 1e4 ? 2 : 1) + " ms" : (us / 1e6).toFixed(2) + " s");
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

  // Fault markers and phase boundaries on every chart.
  function markers() {
    return {
      hooks: {
        draw: [
          (u) => {
            if (!view) return;
            const ctx = u.ctx;
            const top = u.bbox.top, bottom = u.bbox.top + u.bbox.height;
            ctx.save();
            ctx.font = `${12 * devicePixelRatio}px system-ui, sans-serif`;
            // Labels start just right of their line (uPlot leaves the
            // context right-aligned from drawing its axes).
            ctx.textAlign = "left";
            ctx.textBaseline = "alphabetic";
            // Unhealthy stretches of the cluster's own health probe, shaded.
            const h = view.health || [];
            for (let i = 0; i < h.length; i++) {
              if (h[i].healthy) continue;
              const end = i + 1 < h.length ? h[i + 1].t : h[i].t + 1;
              const x0 = Math.max(u.bbox.left, u.valToPos(h[i].t, "x", true));
              const x1 = Math.min(u.bbox.left + u.bbox.width, u.valToPos(end, "x", true));
              if (x1 <= x0) continue;
              ctx.fillStyle = "rgba(248,81,73,.10)";
              ctx.fillRect(x0, top, x1 - x0, bottom - top);
            }
            // Seconds in which an agent was the bottleneck itself (CPU or
            // event-loop lag), shaded amber: its numbers measure the client
            // there. Seconds in which the workload's consistency checks
            // found an anomaly (docs/consistency.md): a purple band along
            // the top.
            const series = view.series || {}, st = series.t || [];
            const markSeconds = (flags, color, height) => {
              for (let i = 0; i < st.length; i++) {
                if (!flags[i]) continue;
                const x0 = Math.max(u.bbox.left, u.valToPos(st[i] - 1, "x", true));
                const x1 = Math.min(u.bbox.left + u.bbox.width, u.valToPos(st[i], "x", true));
                if (x1 <= x0) continue;
                ctx.fillStyle = color;
                ctx.fillRect(x0, top, x1 - x0, height);
              }
            };
            markSeconds(series.saturated_agents || [], "rgba(227,179,65,.16)", bottom - top);
            markSeconds(series.anomalies || [], "rgba(188,140,255,.9)", 6 * devicePixelRatio);
            let labelEnd = -Infinity;
            for (const p of view.phases || []) {
              const x = u.valToPos(p.start, "x", true);
              if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue;
              ctx.strokeStyle = "rgba(139,152,165,.35)";
              ctx.setLineDash([]);
              ctx.lineWidth = devicePixelRatio;
              ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, bottom); ctx.stroke();
              // Steps are labelled by their step name; labels never overlap.
              const name = p.group ? p.name.slice(p.group.length + 1) : p.name;
              const w = ctx.measureText(name).width;
              const short = p.end !== null && p.end !== undefined && p.end - p.start < 1;  // a Count step
              if (short || x + 4 * devicePixelRatio < labelEnd) continue;
              ctx.fillStyle = "rgba(139,152,165,.8)";
              ctx.fillText(name, x + 4 * devicePixelRatio, bottom - 4 * devicePixelRatio);
              labelEnd = x + 4 * devicePixelRatio + w + 8 * devicePixelRatio;
            }
            // Fault labels go on the first of three rows where they do not
            // overlap the one before; a fault that failed is grey.
            const rowEnd = [-Infinity, -Infinity, -Infinity];
            const byTime = (view.faults || []).filter((f) => f.t_s !== null && f.t_s >= 0).sort((a, b) => a.t_s - b.t_s);
            for (const f of byTime) {
              const x = u.valToPos(f.t_s, "x", true);
              const good = f.action === "start" || f.action === "resume" || f.action === "heal";
              ctx.strokeStyle = f.ok === false ? "#8b98a5" : good ? "#3fb950" : "#f85149";
              ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
              ctx.lineWidth = 2 * devicePixelRatio;
              ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, bottom); ctx.stroke();
              ctx.fillStyle = ctx.strokeStyle;
              const label = `${f.action} ${f.node}${f.ok === false ? " (failed)" : ""}`;
              const w = ctx.measureText(label).width;
              // Near the right edge, the label goes left of its line.
              const lx = x + 4 * devicePixelRatio + w > u.bbox.left + u.bbox.width ? x - 4 * devicePixelRatio - w
                : x + 4 * devicePixelRatio;
              let row = rowEnd.findIndex((end) => lx > end);
              if (row < 0) row = rowEnd.indexOf(Math.min(...rowEnd));
              ctx.fillText(label, lx, top + (14 + 14 * row) * devicePixelRatio);
              rowEnd[row] = lx + w + 6 * devicePixelRatio;
            }
            ctx.restore();
          },
        ],
      },
    };
  }

  function chart(id, names, colors, yLabel, log) {
    const el = $(id);
    const key = names.join("|");
    if (charts[id] && charts[id].key === key) return charts[id].u;
    if (charts[id]) charts[id].u.destroy();
    const width = Math.max(300, el.clientWidth || 600);
    const opts = {
      width, height: 260,
      plugins: [markers()],
      scales: { x: { time: false }, y: log ? { distr: 3 } : {} },
      axes: [
        { stroke: "#8b98a5", grid: { stroke: "#263241" }, label: "seconds", values: (u, vals) => vals.map((v) => v + "s") },
        Object.assign({ stroke: "#8b98a5", grid: { stroke: "#263241" }, label: yLabel, size: 60 },
          // Log scale: a grid line per power of ten only.
          log ? { filter: (u, splits) => splits.map((v) => (Math.abs(Math.log10(v) % 1) < 1e-9 ? v : null)) } : {}),
      ],
      series: [{ label: "t" }].concat(names.map((n, i) => ({
        label: n, stroke: colors[i], width: 2, points: { show: false },
        value: (u, v) => (v === null || v === undefined ? "-" : v.toFixed(v < 10 ? 2 : 0)),
      }))),
      legend: { live: true },
    };
    const u = new uPlot(opts, [[]].concat(names.map(() => [])), el);
    charts[id] = { key, u };
    return u;
  }

  function drawCharts() {
    const s = view.series || { t: [] };
    const t = s.t || [];
    const opNames = Object.keys(s.ops || {});
    const u1 = chart("chart-ops", opNames.length ? opNames : ["ops"], palette, "ops/s");
    u1.setData([t].concat(opNames.length ? opNames.map((n) => s.ops[n]) : [t.map(() => 0)]));
    const u2 = chart("chart-latency", ["p50", "p99"], ["#58a6ff", "#ffa657"], "ms", true);
    u2.setData([t, (s.p50_ms || []).map((v) => (v > 0 ? v : null)), (s.p99_ms || []).map((v) => (v > 0 ? v : null))]);
    const errNames = Object.keys(s.errors || {});
    const u3 = chart("chart-errors", errNames.length ? errNames : ["errors"],
      errNames.length ? errNames.map((n) => outcomeColor[n] || "#f85149") : ["#f85149"], "errors/s");
    u3.setData([t].concat(errNames.length ? errNames.map((n) => s.errors[n]) : [t.map(() => 0)]));
    const u4 = chart("chart-workers", ["active workers"], ["#3fb950"], "workers");
    u4.setData([t, s.active_workers || []]);
    // Where the data is, from the database's own view (health polls).
    const sh = view.shares || {};
    const nodes = Object.keys(sh.nodes || {});
    $("shares-card").hidden = !nodes.length;
    if (nodes.length) {
      $("shares-unit").textContent = `${sh.unit} per node`;
      const u5 = chart("chart-shares", nodes, nodes.map((n, i) => palette[i % palette.length]), sh.unit);
      u5.setData([sh.t].concat(nodes.map((n) => sh.nodes[n])));
    }
  }

  function drawHeader() {
    $("plan").textContent = view.plan_name || "-";
    $("run").textContent = view.run_id || "";
    const st = $("status");
    const unmet = view.verdict && !view.verdict.passed && view.status !== "running";
    st.textContent = (view.status || "waiting") + (unmet ? ", expectations not met" : "");
    st.className = "badge " + (unmet ? "failed" : view.status || "");
    if (view.error) st.title = view.error;
    const t = (view.series && view.series.t) || [];
    const last = t.length ? t[t.length - 1] : null;
    if (view.headline) {
      // A finished run: its result, how long it ran and when it ended.
      $("phase-label").textContent = "ran";
      $("phase").textContent = (view.summary && view.summary.phases ? view.summary.phases.length : 0) + " phases";
      $("elapsed-label").textContent = "duration";
      $("elapsed").textContent = last === null ? "-" : `${last.toFixed(1)} s`;
      $("rate-label").textContent = "ended";
      const end = Date.parse(view.started_at || "") + 1000 * (last || 0);
      $("rate").textContent = isNaN(end) ? "-" : new Date(end).toISOString().replace("T", " ").slice(0, 19) + " UTC";
      const hl = $("headline");
      hl.hidden = false;
      hl.innerHTML = `<h2 class="result ${esc(view.status || "")}">${esc(view.headline.result)}</h2>` +
        (view.headline.lines.length ? "<ul>" + view.headline.lines.map((l) => `<li>${esc(l)}</li>`).join("") + "</ul>" : "");
    } else {
      $("phase").textContent = view.phase || "-";
      // How far the phase is: a bar, the share, and what is left.
      const pr = view.progress;
      $("progress").hidden = !pr;
      if (pr) {
        $("progress-fill").style.width = `${Math.round(pr.ratio * 100)}%`;
        $("progress-text").textContent = `${Math.round(pr.ratio * 100)}%` + (pr.total
          ? ` · ${pr.done.toLocaleString()} of ${pr.total.toLocaleString()} ${pr.unit || "ops"}` + (pr.left_s >= 0 && pr.ratio < 1 ? ` · ${fmt(pr.left_s, 0, " s")} left` : "")
          : ` · ${fmt(pr.phase_t, 0, "")} of ${fmt(pr.phase_t + Math.max(0, pr.left_s), 0, " s")}`);
      }
      // A join's or leave's data on the move: a second bar.
      const mv = view.move;
      $("move").hidden = !mv;
      if (mv) {
        $("move-label").textContent = mv.what;
        $("move-fill").style.width = `${Math.round(mv.ratio * 100)}%`;
        $("move-text").textContent = `${Math.round(mv.ratio * 100)}% · ${Math.round(mv.done).toLocaleString()} of ` +
          `${Math.round(mv.total).toLocaleString()} ${mv.unit} moved` + (mv.left_s >= 0 && mv.ratio < 1 ? ` · ${fmt(mv.left_s, 0, " s")} left` : "");
      }
      $("elapsed").textContent = last === null ? "-" : `${Math.round(last)} s`;
      const ops = (view.series && view.series.ops) || {};
      let now = 0;
      for (const n in ops) now += ops[n][ops[n].length - 1] || 0;
      $("rate").textContent = t.length ? `${Math.round(now).toLocaleString()} ops/s` : "-";
    }
    const lost = new Set(view.lost_agents || []);
    const names = (view.agents || []).concat(view.connected_agents || []).filter((v, i, a) => a.indexOf(v) === i);
    // Each agent with its role in the run (load, the nodes it owns, labels).
    const roles = view.roles || {};
    $("agents").innerHTML = names.map((a) =>
      `<span class="agent${lost.has(a) ? " lost" : ""}" data-agent="${esc(a)}">${esc(a)}` +
      (roles[a] ? ` <span class="role">${esc(roles[a])}</span>` : "") + "</span>").join("") ||
      '<span class="muted">no agents yet</span>';
    const h = view.health || [];
    if (h.length) {
      const last = h[h.length - 1];
      $("health").innerHTML = `<span class="dot" style="background:${last.healthy ? "#3fb950" : "#f85149"}"></span>` +
        `cluster ${last.healthy ? "healthy" : "unhealthy"} <span class="muted">${esc(last.detail || "")}</span>`;
    } else {
      $("health").innerHTML = '<span class="muted">no health probe</span>';
    }
  }

  // A recovery time; false: not (yet) recovered; null: nothing observed.
  function recovered(v, flag, f) {
    if (flag !== false) return fmt(v, 1, " s");
    if (f && f.recovery_window_ends === "next fault") return "not before the next fault";
    return view.status === "running" ? "not yet" : "not within the run";
  }

  function drawFaults() {
    const faults = view.faults || [];
    if (!faults.length) { $("faults").innerHTML = '<p class="muted">no faults</p>'; return; }
    const rows = [
      // On the plan's clock (its phase's start), then the run's.
      ["took effect at", (f) => esc(f.when || fmt(f.t_s, 1, " s"))],
      ["asked for at", (f) => esc(f.asked || "n/a")],
      ["into the run", (f) => fmt(f.t_s, 1, " s")],
      ["took effect", (f) => (f.ok ? "yes" : "no " + esc(f.message || ""))],
      ["baseline ops/s", (f) => fmt(f.baseline_ops_per_s, 0)],
      // To the ms when measured from when operations ended (sub_second).
      ["time to first failed op", (f) => fmt(f.time_to_first_failure_s, f.sub_second ? 3 : 1, " s")],
      ["unavailability", (f) => fmt(f.unavailability_s, f.sub_second ? 3 : 1, " s")],
      ["first-to-last error", (f) => fmt(f.error_window_s, f.sub_second ? 3 : 1, " s")],
      ["errors", (f) => Object.entries(f.errors || {}).filter(([, v]) => v).map(([k, v]) => `${k} ${v}`).join(", ") || "0"],
      ["lowest throughput, % of baseline", (f) => (f.throughput_dip === null ? "n/a" : Math.round(f.throughput_dip * 100) + "%")],
      ["time to recovered", (f) => recovered(f.time_to_recovered_s, f.recovered, f)],
      ["time to healthy", (f) => recovered(f.time_to_healthy_s, f.healthy)],
      ["clients behind the database", (f) => (f.client_gap_s === null || f.client_gap_s === undefined ? "n/a" : signed(f.client_gap_s))],
      ["p99 before / during / after", (f) => [f.latency_before, f.latency_during, f.latency_after]
        .map((w) => (w && w.count ? lat(w.p99_us) : "n/a")).join(" / ")],
      ["time to balanced", (f) => (!f.rebalance ? "n/a" : f.rebalance.balanced ? fmt(f.rebalance.time_to_balanced_s, 1, " s")
        : view.status === "running" ? "not yet" : "not balanced")],
      ["data moved", (f) => (!f.rebalance ? "n/a" : `${fmt(f.rebalance.moved, 0)} ${esc(f.rebalance.unit)}` +
        (f.rebalance.moved_keys !== null ? `, ${f.rebalance.moved_keys} keys` : "") +
        (f.rebalance.moved_bytes !== null ? `, ${fmt(f.rebalance.moved_bytes / 1e6, 1)} MB` : ""))],
      ["serving nodes before / after", (f) => (!f.rebalance ? "n/a" : `${f.rebalance.nodes_before} / ${f.rebalance.nodes_after}`)],
      ["disk of the nodes that joined", mb("joined_disk_bytes")],
      ["peak replication lag", mb("peak_lag_bytes", 2)],
      ["new node's first operation", opAt("first_op_s", "first_op_endpoint")],
      ["leaving node's last operation", opAt("last_op_s", "last_op_endpoint")],
      // TPC-C: New-Order's own numbers (tpmC's throughput).
      ["New-Order: unavailability", (f) => (f.new_order ? fmt(f.new_order.unavailability_s, 1, " s") : "n/a")],
      ["New-Order: lowest throughput", (f) => (!f.new_order || f.new_order.throughput_dip === null ? "n/a"
        : Math.round(f.new_order.throughput_dip * 100) + "%")],
      ["New-Order: time to recovered", (f) => (f.new_order
        ? recovered(f.new_order.time_to_recovered_s, f.new_order.recovered, f.new_order) : "n/a")],
    ].filter(([label]) => !OPTIONAL_ROWS[label] || faults.some((f) => f.rebalance && f.rebalance[OPTIONAL_ROWS[label]] != null))
      .filter(([label]) => !REBALANCE_ROWS.has(label) || faults.some((f) => f.rebalance))
      .filter(([label]) => !label.startsWith("New-Order") || faults.some((f) => f.new_order));
    const name = (f) => `${esc(f.action)} ${esc(f.node)}${f.detail ? " (" + esc(f.detail) + ")" : ""}`;
    let html = faults.map((f) => `<span class="fault-marker ${esc(f.action)}${f.ok === false ? " failed" : ""}" ` +
      `data-action="${esc(f.action)}" data-node="${esc(f.node)}" title="${esc(f.message || "")}">` +
      `${name(f)} at ${esc(f.when || fmt(f.t_s, 1, " s"))}${f.ok === false ? ": failed" : ""}</span>`).join("");
    html += '<div class="table-scroll"><table><tr><th></th>' + faults.map((f) => `<th>${name(f)}</th>`).join("") + "</tr>";
    for (const [label, fn] of rows) html += `<tr><td>${label}</td>` + faults.map((f) => `<td>${fn(f)}</td>`).join("") + "</tr>";
    $("faults").innerHTML = html + "</table></div>" + cyclesHtml();
  }

  function mb(key, digits = 1) {
    return (f) => (!f.rebalance || f.rebalance[key] == null ? "n/a" : fmt(f.rebalance[key] / 1e6, digits, " MB"));
  }

  // When a new node's endpoint served its first operation, a leaving one's its last.
  function opAt(key, endpoint) {
    return (f) => (!f.rebalance || f.rebalance[key] == null ? "n/a"
      : `${fmt(f.rebalance[key], 2, " s")} (${esc(f.rebalance[endpoint])})`);
  }

  function signed(v) { return (v < 0 ? "-" : "+") + fmt(Math.abs(v), 1, " s"); }

  // Repeated faults of one kind on one node: their distribution, a column
  // per kind.
  function cyclesHtml() {
    const groups = view.fault_cycles || [];
    if (!groups.length) return "";
    const cell = (st, f) => (st && st.n ? [st.min, st.median, st.p90, st.max].map(f).join(" / ") + ` <span class="muted">(${st.n})</span>` : "n/a");
    const secs = (v) => fmt(v, 1, " s");
    const rows = [
      ["cycles (took effect)", (g) => `${g.count} (${g.took_effect})`],
      ["unavailability", (g) => cell(g.unavailability_s, secs)],
      ["time to recovered", (g) => cell(g.time_to_recovered_s, secs)],
      ["time to healthy", (g) => cell(g.time_to_healthy_s, secs)],
      ["clients behind the database", (g) => cell(g.client_gap_s, signed)],
      ["lowest throughput, % of baseline", (g) => cell(g.lowest_throughput, (v) => Math.round(v * 100) + "%")],
      ["not recovered / never healthy", (g) => `${g.not_recovered} / ${g.not_healthy}`],
    ];
    let html = '<h3>Repeated faults</h3><table class="cycles"><tr><th></th>' +
      groups.map((g) => `<th>${esc(g.action)} ${esc(g.node)}${g.detail ? " (" + esc(g.detail) + ")" : ""} x${g.count}</th>`).join("") + "</tr>";
    for (const [label, fn] of rows) html += `<tr><td>${label}</td>` + groups.map((g) => `<td>${fn(g)}</td>`).join("") + "</tr>";
    return html + '</table><p class="muted">min / median / p90 / max over the cycles (how many had a value)</p>';
  }

  // The plan's expectations: each check with its measured value.
  function verdictHtml() {
    const v = view.verdict;
    if (!v || !v.checks || !v.checks.length) return "";
    const sofar = view.status === "running" ? " so far" : "";
    let html = `<h3 class="verdict ${v.passed ? "pass" : "fail"}">Verdict${sofar}: ${v.passed ? "PASSED" : "FAILED"} ` +
      `<span class="muted">${v.checks.length - v.failed} of ${v.checks.length} checks met</span></h3>` +
      "<table><tr><th>expectation</th><th>where</th><th>measured</th><th></th></tr>";
    for (const c of v.checks) {
      html += `<tr><td>${esc(c.expect)}</td><td>${esc(c.where)}</td><td>${esc(c.measured)}</td>` +
        `<td class="${c.pass ? "pass" : "fail"}">${c.pass ? "pass" : "FAIL"}</td></tr>`;
    }
    return html + "</table>";
  }

  // The database nodes' resources, as their agents sample them.
  function nodesHtml(nodes) {
    if (!nodes.length) return "";
    const mb = (b) => (b === null || b === undefined ? "n/a" : fmt(b / 1e6, 1));
    let html = "<h3>Nodes</h3><table><tr><th>node</th><th>agent</th><th>running</th><th>disk MB</th><th>change MB</th><th>peak RSS MB</th><th>CPU s</th></tr>";
    for (const n of nodes) {
      const change = n.disk_bytes_start === null ? "n/a" : fmt((n.disk_bytes_end - n.disk_bytes_start) / 1e6, 1);
      html += `<tr><td>${esc(n.node)}</td><td>${esc(n.agent)}</td><td>${n.running_at_end ? "yes" : "<b>no</b>"}</td>` +
        `<td>${mb(n.disk_bytes_end)}</td><td>${change}</td><td>${mb(n.rss_bytes_max)}</td><td>${n.cpu_s === null ? "n/a" : fmt(n.cpu_s, 1)}</td></tr>`;
    }
    return html + "</table>";
  }

  function drawTables() {
    const sum = view.summary || { phases: [] };
    let html = verdictHtml();
    for (const g of sum.groups || []) {
      html += `<h3>${esc(g.name)}: steps</h3><table><tr><th>step</th><th>time</th><th>ns/op</th><th>ok</th><th>errors</th></tr>`;
      for (const st of g.steps) html += `<tr><td>${esc(st.step)}</td><td>${fmt(st.seconds, 2)} s</td><td>${fmt(st.ns_per_op || 0, 0)}</td><td>${st.ok}</td><td>${st.errors}</td></tr>`;
      html += `<tr><td><b>Total</b></td><td><b>${fmt(g.total_s, 2)} s</b></td><td></td><td></td><td></td></tr></table>` +
        '<p class="muted">ns/op: the step\'s wall time over its operations, as Go benchmarks print it; not a latency.</p>';
    }
    html += nodesHtml(sum.nodes || []);
    for (const p of sum.phases || []) {
      html += `<h3>${esc(p.name)} <span class="muted">${fmt(p.duration_s, 2)} s, ${p.workers} workers${p.timed_out ? ", timed out" : p.completed ? "" : ", incomplete"}</span></h3>`;
      if (p.client_saturation_note) {
        html += `<p class="saturated">${esc(p.client_saturation_note).replace(/\*\*(.+?)\*\*/g, "<b>$1</b>")}</p>`;
      }
      if (p.tpmc !== undefined) {
        const eff = p.tpmc_efficiency !== undefined ? `, efficiency <b>${fmt(p.tpmc_efficiency * 100, 1)}%</b>` : "";
        html += `<p class="tpmc">tpmC <b>${Math.round(p.tpmc)}</b>${eff} <span class="muted">${esc(p.tpmc_note || "")}</span></p>`;
      }
      // A rollbacks column (ops the workload rolled back) where there are any.
      const rb = p.ops.some((o) => o.rollbacks);
      const p90 = p.workload === "tpcc";  // the percentile TPC-C reports
      html += "<table><tr><th>op</th><th>count</th><th>ops/s</th><th>mean</th><th>p50</th>" + (p90 ? "<th>p90</th>" : "") +
        "<th>p99</th><th>p99.9</th><th>max</th><th>errors</th><th>retries</th><th>missed</th>" +
        (rb ? "<th>rollbacks</th>" : "") + "</tr>";
      for (const o of p.ops) {
        const l = o.latency_us;
        const errs = Object.entries(o.errors).filter(([, v]) => v).map(([k, v]) => `${k} ${v}`).join(", ") || "0";
        html += `<tr><td>${esc(o.name)}</td><td>${o.count}</td><td>${fmt(o.ops_per_s, 1)}</td><td>${lat(l.mean)}</td><td>${lat(l.p50)}</td>` +
          (p90 ? `<td>${lat(l.p90)}</td>` : "") + `<td>${lat(l.p99)}</td><td>${lat(l.p999)}</td><td>${lat(l.max)}</td><td>${errs}</td><td>${o.retries}</td><td>${o.missed || 0}</td>` +
          (rb ? `<td>${o.rollbacks || 0}</td>` : "") + "</tr>";
      }
      html += "</table>";
      if (p.cpu_us_per_op !== null && p.cpu_us_per_op !== undefined) {
        // report.md's client CPU: each agent's own threads, then what their
        // processes spent besides.
        const agents = Object.entries(p.agent_cpu_s || {}).map(([a, s]) => `${esc(a)} ${fmt(s, 2, " s")}`).join(", ");
        html += `<p class="muted">client CPU: ${lat(p.cpu_us_per_op)} per operation (each agent's own threads: ${agents})` +
          (p.other_cpu_s > 0.005 ? `; their processes' other threads ${fmt(p.other_cpu_s, 2, " s")}` : "") + "</p>";
      }
      if (p.writes) {
        // report.md's line; its **bold** marks what is lost or unchecked.
        const text = esc(p.writes.text).replace(/\*\*(.+?)\*\*/g, "<b>$1</b>");
        html += `<p class="writes${p.writes.lost || p.writes.unchecked ? " bad" : ""}">${text}</p>`;
      }
      const an = p.anomalies;
      if (an && an.total > 0) {
        // Consistency anomalies, with up to three examples of each kind.
        html += `<p class="anomalies bad"><b>Consistency: ${an.total} anomal${an.total === 1 ? "y" : "ies"}</b> in ` +
          `${an.seconds.length} s (docs/consistency.md)</p><table class="anomalies"><tr><th>anomaly</th><th>count</th><th>examples</th></tr>`;
        for (const [kind, n] of Object.entries(an.by_kind)) {
          const ex = an.examples.filter((e) => e.kind === kind).slice(0, 3).map((e) => esc(e.text)).join("<br>");
          html += `<tr><td>${esc(kind)}</td><td>${n}</td><td>${ex}</td></tr>`;
        }
        html += "</table>";
      } else if (an && (p.workload === "bank" || p.workload === "register")) {
        html += '<p class="anomalies">Consistency: 0 anomalies</p>';
      }
      if (p.owed !== null && p.owed !== undefined) {
        html += `<p class="muted schedule">owed ${p.owed}: ${p.done} done, ${p.missed} missed` +
          (p.unaccounted ? `, ${p.unaccounted} unaccounted (lost agents)` : "") + "</p>";
      }
    }
    $("tables").innerHTML = html || '<p class="muted">no phase yet</p>';
    if (view.plan_yaml) {
      $("plan-section").hidden = false;
      $("plan-text").textContent = view.plan_yaml;
    }
  }

  function drawEvents() {
    const events = view.events || [], undone = view.undone || [];
    $("events-section").hidden = !events.length && !undone.length && !view.degraded;
    let html = view.degraded ? `<p class="degraded">degraded: ${esc(view.degraded)}</p>` : "";
    if (events.length) {
      html += "<table><tr><th>t</th><th>who</th><th>what</th><th>detail</th></tr>" +
        events.map((e) => `<tr class="event ${esc(e.event)}"><td>${fmt(e.t, 1, " s")}</td><td>${esc(e.who)}</td>` +
          `<td>${esc(e.event)}</td><td>${esc(e.detail)}</td></tr>`).join("") + "</table>";
    }
    if (undone.length) {
      html += "<p>put back when the run ended: " + undone.map((u) =>
        `${esc(u.action)} ${esc(u.node)} (${u.ok ? "done" : "FAILED: " + esc(u.message)})`).join(", ") + "</p>";
    }
    $("events").innerHTML = html;
  }

  function render(v) {
    view = v;
    document.body.dataset.status = v.status || "waiting";
    drawHeader();
    drawCharts();
    drawFaults();
    drawEvents();
    drawTables();
  }

  async function poll() {
    try {
      const r = await fetch("api/runs/current", { cache: "no-store" });
      if (r.ok) render(await r.json());
    } catch (e) { /* the coordinator may be restarting: try again */ }
    setTimeout(poll, 1000);
  }

  window.addEventListener("resize", () => { for (const id in charts) { charts[id].u.destroy(); delete charts[id]; } if (view) drawCharts(); });
  if (window.STAMPEDE_RUN) {
    render(window.STAMPEDE_RUN);
  } else {
    $("runs-link").hidden = false;  // served by a coordinator: its Runs page
    poll();
  }
})();
