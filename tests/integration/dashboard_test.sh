#!/usr/bin/env bash
# Watching a run: a coordinator daemon with --http, two agents (one owns the
# Redis server as node redis1), a plan that pauses Redis for 3 s. During the
# run headless Chromium opens the dashboard: the DOM must have the four
# charts, the agents and the fault marker, and a screenshot is kept. A real
# Prometheus scrapes /metrics; afterwards its HTTP API must return
# stampede_ops_total summing to summary.json's operations (within 1%) and
# the latency histogram series; a Pushgateway gets the same final counts.
source "$(dirname "$0")/../lib.sh"
command -v chromium >/dev/null || fail "chromium is not installed (scripts/install-deps installs it)"
command -v prometheus >/dev/null || fail "prometheus is not installed (scripts/install-deps installs it)"
ARTIFACTS=${STAMPEDE_ARTIFACTS:-$ROOT/build/test-artifacts}
mkdir -p "$ARTIFACTS"
start_db redis
# A Pushgateway too (the optional push for short runs).
push_port=$(free_port)
prometheus-pushgateway --web.listen-address="127.0.0.1:$push_port" >"$TMP/pushgateway.log" 2>&1 &
on_exit "kill -9 $!"
http_port=$(free_port)
start_coordinator --http "127.0.0.1:$http_port" --pushgateway "http://127.0.0.1:$push_port"
expect_eq "$COORD_HTTP" "http://127.0.0.1:$http_port/" "dashboard URL in the coordinator's log"
cat >"$TMP/agent.yaml" <<YAML
nodes:
  redis1:
    process: {pidfile: $RD_DIR/redis.pid}
    data_dir: $RD_DIR
YAML
"$STAMPEDE" agent --coordinator "127.0.0.1:$COORD_PORT" --name db-host --config "$TMP/agent.yaml" \
  >"$TMP/agent-db.out" 2>"$TMP/agent-db.log" &
on_exit "kill -9 $!"
wait_for_line "$TMP/agent-db.log" "connected to coordinator"
agent_http=$(free_port)
start_agent client-1 --http "127.0.0.1:$agent_http" --label role=load
curl -sf "${COORD_HTTP}api/agents" >"$TMP/agents.json" || fail "no /api/agents"
jq -e 'map(select(.name == "db-host" and .nodes == ["redis1"] and .default_role == "nodes")) | length == 1' \
  "$TMP/agents.json" >/dev/null || fail "/api/agents does not show db-host owning redis1: $(cat "$TMP/agents.json")"
jq -e 'map(select(.name == "client-1" and .labels.role == "load" and .default_role == "load")) | length == 1' \
  "$TMP/agents.json" >/dev/null || fail "/api/agents does not show client-1's label: $(cat "$TMP/agents.json")"

# Prometheus, scraping the coordinator every second.
prom_port=$(free_port)
cat >"$TMP/prometheus.yml" <<YAML
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: stampede
    static_configs: [{targets: ["127.0.0.1:$http_port"]}]
YAML
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/prom-data" \
  --web.listen-address="127.0.0.1:$prom_port" >"$TMP/prometheus.log" 2>&1 &
on_exit "kill -9 $!"
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$prom_port/-/ready" >/dev/null && break; sleep 0.2; done
curl -sf "http://127.0.0.1:$prom_port/-/ready" >/dev/null || fail "prometheus did not start: $(tail -n 5 "$TMP/prometheus.log")"

cat >"$TMP/plan.yaml" <<YAML
name: dashboard
seed: 1
target: {driver: redis, endpoints: [$DB_ENDPOINT], password_env: STAMPEDE_PASSWORD, health: {kind: redis, consecutive: 2}}
agents: {min: 2}
recovery: {baseline: 3s, hold: 2s}
phases:
  - name: ramp
    workload: kv
    workers: 8
    stages: [{duration: 3s, rate: 1200}]
    params: {keys: 10000}
  - name: steady
    workload: kv
    workers: 16
    duration: 18s
    rate: 1200
    params: {keys: 10000, distribution: zipfian, read: 0.8}
faults:
  - {at: steady+4s, action: pause, node: redis1}
  - {at: steady+7s, action: resume, node: redis1}
YAML
"$STAMPEDE" run "$TMP/plan.yaml" --coordinator "127.0.0.1:$COORD_PORT" >"$TMP/run.out" 2>"$TMP/run.err" &
run_pid=$!
# Open the page once the resume has happened (about 11 s in), with 11 s of
# the phase left: Chromium takes up to its 5 s virtual-time budget and more
# to start on a loaded machine, and the page must still show the run
# running (with 14 s and a 2 s wait it once did not).
for _ in $(seq 1 200); do
  curl -sf "${COORD_HTTP}api/runs/current" | jq -e '[.faults[] | select(.action == "resume")] | length == 1' >/dev/null 2>&1 && break
  sleep 0.1
done
sleep 1
chrome=(chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1600,1300
        --virtual-time-budget=5000 --user-data-dir="$TMP/chrome")
"${chrome[@]}" --dump-dom "$COORD_HTTP" >"$TMP/dom.html" 2>"$TMP/chrome.log" || fail "chromium --dump-dom failed"
"${chrome[@]}" --screenshot="$ARTIFACTS/dashboard.png" "$COORD_HTTP" >>"$TMP/chrome.log" 2>&1 \
  || fail "chromium --screenshot failed"
[ -s "$ARTIFACTS/dashboard.png" ] || fail "no screenshot"
charts=$(grep -o 'class="uplot' "$TMP/dom.html" | wc -l)
expect_eq "$charts" 4 "uPlot charts in the DOM"
grep -q 'class="fault-marker pause" data-action="pause" data-node="redis1"' "$TMP/dom.html" || fail "no pause marker in the DOM"
grep -q 'class="fault-marker resume" data-action="resume" data-node="redis1"' "$TMP/dom.html" || fail "no resume marker in the DOM"
for a in db-host client-1; do
  grep -q "class=\"agent\" data-agent=\"$a\"" "$TMP/dom.html" || fail "agent $a not listed as connected in the DOM"
done
# Each with its role in the run: the node owner generates no load.
grep -q 'data-agent="db-host">db-host <span class="role">nodes redis1</span>' "$TMP/dom.html" \
  || fail "db-host's role is not on the page"
grep -q 'data-agent="client-1">client-1 <span class="role">load, role=load</span>' "$TMP/dom.html" \
  || fail "client-1's role is not on the page"
grep -q 'id="status" class="badge running"' "$TMP/dom.html" || fail "the page does not show the run as running"
wait "$run_pid" || fail "run exited $?"

# After the run: the API, /metrics, and what Prometheus scraped.
dir=$(summary_of "$COORD_RESULTS")
s=$dir/summary.json
curl -sf "${COORD_HTTP}api/runs" | jq -e --arg id "$(jq -r .run_id "$s")" --arg dir "$dir" \
  'map(select(.run_id == $id and .status == "ok" and .results_dir == $dir)) | length == 1' \
  >/dev/null || fail "/api/runs does not list the run as ok in $dir: $(curl -sf "${COORD_HTTP}api/runs")"
curl -sf "${COORD_HTTP}api/runs/$(jq -r .run_id "$s")" | jq -e '.status == "ok" and (.series.t | length) > 10' >/dev/null \
  || fail "/api/runs/RUN_ID does not return the run's view"
curl -sf "${COORD_HTTP}metrics" >"$TMP/metrics.txt"
for m in stampede_ops_total stampede_op_latency_seconds_bucket stampede_active_workers stampede_agents_connected \
         stampede_fault_events_total stampede_cluster_healthy stampede_cluster_underreplicated \
         'stampede_node_up{node="redis1"}' 'stampede_node_disk_bytes{node="redis1"}' \
         'stampede_node_resident_memory_bytes{node="redis1"}' 'stampede_node_cpu_seconds{node="redis1"}'; do
  grep -q "^$m" "$TMP/metrics.txt" || fail "/metrics has no $m"
done
# Every metric the Grafana dashboard queries is one the coordinator exports.
jq empty "$ROOT/deploy/grafana/stampede.json" || fail "deploy/grafana/stampede.json is not valid JSON"
for m in $(jq -r '[.. | objects | .expr? // empty] | .[]' "$ROOT/deploy/grafana/stampede.json" \
             | grep -o 'stampede_[a-z_]*' | sed -E 's/_(bucket|sum|count)$//' | sort -u); do
  grep -q "^# TYPE $m " "$TMP/metrics.txt" || fail "the Grafana dashboard queries $m, which /metrics does not export"
done
[ "$(jq '.panels | length' "$ROOT/deploy/grafana/stampede.json")" -ge 8 ] || fail "the Grafana dashboard lost panels"
grep -q "$STAMPEDE_PASSWORD" "$TMP/metrics.txt" && fail "the password is in /metrics"
total=$(jq '[.phases[].ops[].count] | add' "$s")
# The agent's own /metrics: its share of the operations.
agent_ops=$(curl -sf "http://127.0.0.1:$agent_http/metrics" | awk '/^stampede_ops_total/ { n += $2 } END { print n + 0 }')
expect_eq "$agent_ops" "$(jq '[.phases[].agent_ops["client-1"] // 0] | add' "$s")" "client-1's /metrics vs its operations in summary.json"
sleep 3  # a few more scrapes of the final counts
pushed=$(curl -sf "http://127.0.0.1:$push_port/metrics" | awk '/^stampede_ops_total/ { n += $2 } END { print n + 0 }')
expect_eq "$pushed" "$total" "operations pushed to the Pushgateway"
query() { curl -sf "http://127.0.0.1:$prom_port/api/v1/query" --data-urlencode "query=$1"; }
scraped=$(query 'sum(stampede_ops_total)' | jq -r '.data.result[0].value[1] // "none"')
[ "$scraped" != none ] || fail "Prometheus has no stampede_ops_total"
awk -v a="$scraped" -v b="$total" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.01 * b) }' \
  || fail "Prometheus sum(stampede_ops_total) = $scraped, summary.json has $total operations"
buckets=$(query 'count(stampede_op_latency_seconds_bucket)' | jq -r '.data.result[0].value[1] // 0')
[ "$buckets" -gt 0 ] || fail "Prometheus has no latency histogram series"
p99=$(query 'histogram_quantile(0.99, sum by (le) (rate(stampede_op_latency_seconds_bucket[1m])))' | jq -r '.data.result[0].value[1] // "none"')
faults=$(query 'sum(stampede_fault_events_total)' | jq -r '.data.result[0].value[1] // 0')
# The health probe saw Redis stop answering and come back.
th=$(jq '.faults[0].time_to_healthy_s' "$s")
awk -v h="$th" 'BEGIN { exit !(h > 0 && h < 30) }' || fail "time to healthy after the pause: $th"
expect_eq "$faults" 2 "Prometheus stampede_fault_events_total"
# Unavailability to the ms: from when operations ended, Redis answered no
# one from the pause until the resume.
paused=$(jq '.faults[1].t_s - .faults[0].t_s' "$s")
unavail=$(jq '.faults[0].unavailability_s' "$s")
expect_eq "$(jq '.faults[0].sub_second' "$s")" true "unavailability measured to the ms"
awk -v u="$unavail" -v p="$paused" 'BEGIN { d = u - p; if (d < 0) d = -d; exit !(d <= 0.1) }' ||
  fail "unavailability $unavail s for a pause of $paused s"
[ "$(jq '.faults[0].clock_uncertainty_s' "$s")" != null ] || fail "no clock uncertainty with the sub-second numbers"
# report.html: self-contained (no external script or style) and drawn
# offline by the same page.
[ -s "$dir/report.html" ] || fail "no report.html"
grep -qE '<script src=|<link ' "$dir/report.html" && fail "report.html loads external files"
"${chrome[@]}" --dump-dom "file://$dir/report.html" >"$TMP/report-dom.html" 2>>"$TMP/chrome.log" || fail "chromium on report.html failed"
expect_eq "$(grep -o 'class="uplot' "$TMP/report-dom.html" | wc -l)" 4 "charts in report.html"
grep -q 'id="status" class="badge ok"' "$TMP/report-dom.html" || fail "report.html does not show the run as ok"
grep -q 'data-action="pause" data-node="redis1"' "$TMP/report-dom.html" || fail "report.html has no fault marker"
grep -q "name: dashboard" "$TMP/report-dom.html" || fail "report.html does not show the plan"
"${chrome[@]}" --screenshot="$ARTIFACTS/report.png" --window-size=1600,2600 "file://$dir/report.html" >>"$TMP/chrome.log" 2>&1 || true
stop_daemon "$COORD_PID" coordinator

# The daemon recorded the run in its run history: restarted, its Runs page
# still lists it, with the report it links to.
start_coordinator --http "127.0.0.1:$(free_port)"
id=$(jq -r .run_id "$s")
curl -sf "${COORD_HTTP}api/history" | jq -e 'map(select(.plan == "dashboard" and .runs == 1 and .last_verdict == "ok")) |
  length == 1' >/dev/null || fail "the restarted coordinator's /api/history: $(curl -s "${COORD_HTTP}api/history")"
link=$(curl -sf "${COORD_HTTP}api/history/dashboard" | jq -r --arg id "$id" '.runs[] | select(.run_id == $id) | .report')
expect_eq "$link" "runs/$(basename "$dir")/report.html" "the Runs page's link to the run's report"
curl -sf "$COORD_HTTP$link" | grep -q "window.STAMPEDE_RUN = " || fail "$link is not the run's report"
"${chrome[@]}" --virtual-time-budget=3000 --dump-dom "${COORD_HTTP}history.html?plan=dashboard" >"$TMP/runs-dom.html" \
  2>>"$TMP/chrome.log" || fail "chromium on the Runs page failed"
grep -q 'class="uplot' "$TMP/runs-dom.html" || fail "the Runs page has no charts"
grep -q "$id" "$TMP/runs-dom.html" || fail "the Runs page does not list run $id"
"${chrome[@]}" --virtual-time-budget=3000 --screenshot="$ARTIFACTS/runs.png" --window-size=1300,1200 \
  "${COORD_HTTP}history.html?plan=dashboard" >>"$TMP/chrome.log" 2>&1 || true
stop_daemon "$COORD_PID" coordinator
pass "pause of $(printf %.3f "$paused") s: unavailability $(printf %.3f "$unavail") s"
pass "dashboard: 4 charts, 2 agents, pause/resume markers, screenshot $ARTIFACTS/dashboard.png; Prometheus: sum(stampede_ops_total) = $scraped vs $total in summary.json, $buckets bucket series, p99 over 1m = $p99 s"
