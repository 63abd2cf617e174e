// stampede: one binary, subcommands. Parses the subcommand and hands over.
#include <grpc/support/log.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/signals.h"
#include "common/log.h"
#include "common/strings.h"
#include "drivers/driver_registry.h"
#include "workloads/workload_registry.h"

namespace {

constexpr char kUsage[] = R"(usage: stampede COMMAND [options]

commands:
  run PLAN.yaml          run a plan (in-process coordinator and agents, or --coordinator ADDR)
  validate PLAN.yaml...  check plans; every problem as FILE:LINE:COL: field: message
  coordinator            serve agents and runs (--listen ADDR)
  agent                  dial a coordinator and run what it assigns (--coordinator ADDR --name NAME)
  report RESULTS_DIR     rebuild and print a run's report from its journal
  check RESULTS_DIR      check an append run's history (history.jsonl) again, from that file alone
  compare DIR DIR...     runs side by side, best and worst marked (--html FILE)
  history [PLAN]         the runs recorded so far: a plan's numbers over time, where they changed
  workloads [NAME]       list the built-in workloads, or one's parameters
  version                this build and the client libraries it uses (also --version)

`stampede COMMAND --help` shows a command's options.)";

bool g_serving = false;  // a coordinator: refused handshakes are worth a line

// gRPC's own log, through ours: its errors as warnings, the rest dropped. A
// refused TLS handshake is the only trace a coordinator has of a client
// with a wrong certificate; a client learns it from its call's status.
void GrpcLog(gpr_log_func_args* args) {
  if (args->severity != GPR_LOG_SEVERITY_ERROR) return;
  const bool handshake = std::strstr(args->message, "Handshake failed") != nullptr;
  if (handshake && !g_serving) return;
  SLOG(kWarn) << (handshake ? "a TLS handshake failed (a certificate not signed by the other side's CA?): " : "grpc: ")
              << args->message;
}

}  // namespace

int main(int argc, char** argv) {
  stampede::cli::BlockTerminationSignals();
  gpr_set_log_function(GrpcLog);
  for (const auto& s : {stampede::drivers::CheckDriverRegistry(), stampede::workloads::CheckWorkloadRegistry()}) {
    if (!s.ok()) {
      std::cerr << "stampede: internal error: " << s.message() << "\n";
      return 1;
    }
  }
  if (argc < 2) {
    std::cerr << kUsage << "\n";
    return stampede::cli::kExitBadInput;
  }
  const std::string command = argv[1];
  const stampede::cli::Args args(argv + 2, argv + argc);
  if (command == "run") return stampede::cli::RunCommand(args);
  if (command == "validate") return stampede::cli::ValidateCommand(args);
  if (command == "workloads") return stampede::cli::WorkloadsCommand(args);
  if (command == "compare") return stampede::cli::CompareCommand(args);
  if (command == "history") return stampede::cli::HistoryCommand(args);
  g_serving = command == "coordinator";
  if (command == "coordinator") return stampede::cli::CoordinatorCommand(args);
  if (command == "agent") return stampede::cli::AgentCommand(args);
  if (command == "report") return stampede::cli::ReportCommand(args);
  if (command == "check") return stampede::cli::CheckCommand(args);
  if (command == "version" || command == "--version") return stampede::cli::VersionCommand(args);
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage << "\n";
    return 0;
  }
  const std::string near = stampede::NearestWord(command, {"run", "validate", "coordinator", "agent", "report", "check",
                                                           "compare", "history", "workloads", "version"});
  std::cerr << "stampede: unknown command '" << command << "'"
            << (near.empty() ? "" : " (did you mean '" + near + "'?)") << "\n"
            << kUsage << "\n";
  return stampede::cli::kExitBadInput;
}
