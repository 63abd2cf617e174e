// `stampede coordinator` and `stampede agent`: long-lived daemons that log to
// stderr and shut down cleanly on SIGTERM/SIGINT.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <map>

#include "agent/agent.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/local_state.h"
#include "cli/signals.h"
#include "cli/tls_options.h"
#include "common/clock.h"
#include "common/duration.h"
#include "common/log.h"
#include "common/strings.h"
#include "common/version.h"
#include "coordinator/coordinator.h"
#include "metrics/metrics_exporter.h"
#include "plan/plan_limits.h"
#include "web/http_server.h"

namespace stampede::cli {
namespace po = boost::program_options;

int CoordinatorCommand(const Args& args) {
  coordinator::CoordinatorOptions options;
  TlsOptions tls;
  std::vector<std::string> submitters;
  std::string token_file = DefaultTokenPath();
  po::options_description desc("coordinator options");
  desc.add_options()("listen", po::value(&options.listen)->default_value(options.listen),
                     "gRPC address for agents and clients")(
      "results", po::value(&options.results_root)->default_value(options.results_root), "where results/<run-id>/ go")(
      "http", po::value(&options.http)->default_value("127.0.0.1:0"),
      "dashboard, /api/runs and /metrics on HOST:PORT (port 0: any free port; off: none)")(
      "pushgateway", po::value(&options.pushgateway),
      "also push metrics to this Pushgateway (http://HOST:PORT) during runs")(
      "submitter", po::value(&submitters)->composing(),
      "certificate name (CN or SAN) that may submit and abort runs (repeatable; default: submitter)")(
      "token-file", po::value(&token_file)->default_value(token_file),
      "submit token for callers without a certificate, created (mode 0600) if missing; none: no token")(
      "history", po::value(&options.history),
      "record each finished run in this run history (an SQLite file or postgresql://USER@HOST/DB; off: none); "
      "default: history.db in the results directory; the dashboard's Runs page shows it");
  tls.AddTo(&desc);
  po::variables_map vm;
  const std::string usage = "usage: stampede coordinator [--listen HOST:PORT] [--results DIR]";
  if (auto code = ParseFlags(usage, desc, {}, args, &vm)) return *code;
  if (!submitters.empty()) options.access.submitters = submitters;
  if (token_file != "none") {
    auto token = LoadOrCreateToken(token_file);
    if (!token.ok()) {
      return Fail(token.status());
    }
    options.access.token = *token;
  }
  auto creds = tls.ServerCredentials(options.listen);
  if (!creds.ok()) {
    return Fail(creds.status());
  }
  options.credentials = *creds;
  if (options.http == "off") options.http.clear();
  if (options.history.empty()) options.history = options.results_root + "/history.db";
  if (options.history == "off") options.history.clear();
  options.record_runs = true;
  options.version = kVersion;
  // A daemon's runs can be taken back by its successor, and it takes back
  // one its predecessor left unfinished.
  options.resume = true;
  SetLogPrefix("coordinator");
  coordinator::Coordinator coord(options);
  Status s = coord.Start();
  if (!s.ok()) {
    return Fail(s);
  }
  SLOG(kInfo) << "listening on " << coord.address() << (tls.enabled() ? " (mutual TLS)" : "");
  SLOG(kInfo) << "runs may be submitted by "
              << (tls.enabled() ? "certificates named " + Join(options.access.submitters, ", ") : std::string())
              << (tls.enabled() && !options.access.token.empty() ? " or " : "")
              << (options.access.token.empty() ? std::string() : "callers holding the token in " + token_file);
  if (coord.http_port()) {
    const std::string host = options.http.substr(0, options.http.rfind(':'));
    SLOG(kInfo) << "dashboard and /metrics on http://" << host << ":" << coord.http_port() << "/";
  }
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  SignalWatcher signals([&](int) {
    std::lock_guard<std::mutex> lock(mu);
    stop = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return stop; });
  lock.unlock();
  SLOG(kInfo) << "shutting down";
  coord.Shutdown();
  return kExitOk;
}

namespace {

// An agent's name: --name, else its certificate's common name (which the
// coordinator requires anyway), else the host name (a container's or a
// Kubernetes pod's is unique).
Status DefaultAgentName(const TlsOptions& tls, std::string* name) {
  if (!name->empty()) return Status::Ok();
  if (!tls.cert.empty()) {
    auto cn = CertificateCommonName(tls.cert);
    if (!cn.ok()) return cn.status();
    *name = *cn;
    return Status::Ok();
  }
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') {
    return Status::Invalid("no --name, and the host name cannot be read: give --name");
  }
  *name = host;
  return Status::Ok();
}

// What an agent tells the coordinator about itself, for its start-up line:
// "labels role=load, zone=a; nodes node3; capacity 500; spool /var/...".
std::string DescribeAgent(const agent::AgentOptions& options) {
  std::string labels, nodes;
  for (const auto& [k, v] : options.labels) labels += (labels.empty() ? "" : ", ") + k + "=" + v;
  for (const std::string& n : options.config.faults.nodes()) nodes += (nodes.empty() ? "" : ", ") + n;
  std::string out = "labels " + (labels.empty() ? std::string("(none)") : labels);
  out += "; nodes " + (nodes.empty() ? std::string("(none: generates load by default)") : nodes);
  if (options.capacity > 0) out += "; capacity " + std::to_string(options.capacity);
  return out + "; spool " + options.config.spool_dir;
}

// --label KEY=VALUE, each.
Status ParseLabels(const std::vector<std::string>& labels, std::map<std::string, std::string>* out) {
  for (const std::string& l : labels) {
    auto eq = l.find('=');
    if (eq == std::string::npos) return Status::Invalid("--label expects KEY=VALUE, found '" + l + "'");
    (*out)[l.substr(0, eq)] = l.substr(eq + 1);
  }
  return Status::Ok();
}

// --test-clock-skew [-]DURATION and --test-clock-drift-ppm N: this process's
// monotonic clock made to differ from the host's (common/clock.h), for
// tests of agents whose clocks differ. Before any thread starts.
Status ApplyTestClock(std::string skew, int64_t drift_ppm) {
  if (drift_ppm < -100000 || drift_ppm > 100000) {
    return Status::Invalid("--test-clock-drift-ppm: expected -100000 .. 100000, found " + std::to_string(drift_ppm));
  }
  int64_t offset = 0;
  if (!skew.empty()) {
    const bool negative = skew[0] == '-';
    auto d = ParseDurationNs(negative ? skew.substr(1) : skew);
    if (!d.ok() || *d > 3600 * kNsPerSec) {
      return Status::Invalid("--test-clock-skew: expected a duration up to 1h like 3s or -3s, found '" + skew + "'");
    }
    offset = negative ? -*d : *d;
  }
  g_clock_skew = ClockSkew{offset, drift_ppm, SteadyNowNs()};
  return Status::Ok();
}

}  // namespace

// An agent's weight when workers are split by capacity: at most the most
// workers a phase may have.
constexpr int64_t kMaxCapacity = plan::kMaxWorkers;

int AgentCommand(const Args& args) {
  agent::AgentOptions options;
  std::vector<std::string> labels;
  std::string config, http, spool, skew;
  int64_t drift_ppm = 0;
  TlsOptions tls;
  po::options_description desc("agent options");
  desc.add_options()("config", po::value(&config),
                     "local config: the nodes this agent may act on, coordinator loss, spool")(
      "spool", po::value(&spool),
      "spool directory (default: the config's spool.dir, else "
      "$STATE_DIRECTORY, /var/lib/stampede/spool as root, ~/.local/state/stampede/spool)")(
      "coordinator", po::value(&options.coordinator)->required(), "coordinator HOST:PORT")(
      "name", po::value(&options.name),
      "this agent's unique name (default: its --tls-cert's common name, else the host name)")(
      "label", po::value(&labels)->composing(), "KEY=VALUE label (repeatable)")(
      "capacity", Bounded(&options.capacity, "capacity", 0, kMaxCapacity),
      "this agent's weight when a plan splits workers by capacity (agents.split: capacity)")(
      "http", po::value(&http), "serve this agent's own /metrics on HOST:PORT (default: none)")(
      "threads", po::value(&options.engine.threads)->default_value(0),
      "event loops that run the workers (0: one per core)")(
      "test-clock-skew", po::value(&skew), "for tests: run this agent's clock ahead (3s) or behind (-3s)")(
      "test-clock-drift-ppm", Bounded(&drift_ppm, "test-clock-drift-ppm", -100000, 100000),
      "for tests: make this agent's clock drift by N parts per million (1000: 1 ms a second)");
  tls.AddTo(&desc);
  po::variables_map vm;
  const std::string usage = "usage: stampede agent --coordinator HOST:PORT [--name NAME]";
  if (auto code = ParseFlags(usage, desc, {}, args, &vm)) return *code;
  if (Status n = DefaultAgentName(tls, &options.name); !n.ok()) {
    return Fail(n);
  }
  if (Status e = agent::CheckEngine(options.engine); !e.ok()) {
    return Fail(e);
  }
  for (Status s : {ParseLabels(labels, &options.labels), ApplyTestClock(skew, drift_ppm)}) {
    if (!s.ok()) {
      return Fail(s);
    }
  }
  options.unreachable_hint = TlsConnectHint(tls);
  auto creds = tls.ChannelCredentials(options.coordinator);
  if (!creds.ok()) {
    return Fail(creds.status());
  }
  options.credentials = *creds;
  if (!config.empty()) {
    auto loaded = agent::AgentConfig::Load(config);
    if (!loaded.ok()) {
      return Fail(loaded.status());
    }
    options.config = std::move(*loaded);
  }
  if (!spool.empty()) options.config.spool_dir = spool;
  if (options.config.spool_dir.empty()) options.config.spool_dir = DefaultSpoolDir();
  SetLogPrefix("agent " + options.name);
  SLOG(kInfo) << "declares " << DescribeAgent(options);
  if (!options.config.allow.configured()) {
    SLOG(kInfo) << "no allow: in " << (config.empty() ? "a config (--config)" : config)
                << ": this agent connects to whatever target a plan names (docs/deployment.md, \"What an agent "
                   "allows\")";
  }
  metrics::MetricsExporter metrics;
  web::HttpServer server;
  if (!http.empty()) {
    metrics.SetAgentsConnected(1);
    Status hs = server.Start(http, [&metrics](const std::string& target) {
      if (target.substr(0, target.find('?')) != "/metrics") {
        return web::HttpResponse{404, "text/plain; charset=utf-8", "an agent serves /metrics only\n"};
      }
      return web::HttpResponse{200, "text/plain; version=0.0.4; charset=utf-8", metrics.Render()};
    });
    if (!hs.ok()) {
      std::cerr << "stampede: --http " << hs.message() << "\n";
      return kExitFailed;
    }
    options.metrics = &metrics;
    SLOG(kInfo) << "/metrics on http://" << http.substr(0, http.rfind(':')) << ":" << server.port() << "/metrics";
  }
  agent::Agent a(options);
  SignalWatcher signals([&](int) {
    SLOG(kInfo) << "shutting down";
    a.Shutdown();
  });
  Status s = a.Run();
  if (!s.ok()) {
    return Fail(s);
  }
  return kExitOk;
}

}  // namespace stampede::cli
