// The stampede subcommands. Each parses its own flags and returns the
// process exit code: 0 ok, 1 the run or daemon failed, 2 bad input, 3 the run completed but
// degraded (an agent was lost), 4 expectations not met.
#ifndef STAMPEDE_CLI_COMMANDS_H_
#define STAMPEDE_CLI_COMMANDS_H_

#include <string>
#include <vector>

#include "common/status.h"

namespace stampede::cli {

using Args = std::vector<std::string>;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitBadInput = 2;
// The run completed, but stampede could not measure all of it (an agent was
// lost): the report says what is missing.
constexpr int kExitDegraded = 3;
// The run completed and the plan's expect: block was not met (the verdict).
constexpr int kExitExpectations = 4;

// A failure's exit code, by its kind: the one place that decides it. The
// user's to fix (a wrong plan, flag or file, one that is missing, a refusal,
// a name taken): kExitBadInput; anything else: kExitFailed.
int ExitCodeOf(const Status& s);
// Prints "stampede: MESSAGE" on stderr and returns ExitCodeOf(s).
int Fail(const Status& s);

int ValidateCommand(const Args& args);
int WorkloadsCommand(const Args& args);
int RunCommand(const Args& args);
int CoordinatorCommand(const Args& args);
int AgentCommand(const Args& args);
int ReportCommand(const Args& args);
int CheckCommand(const Args& args);
int CompareCommand(const Args& args);
int HistoryCommand(const Args& args);

// Where `stampede history` looks, and a run records itself, by default.
inline constexpr char kDefaultHistory[] = "results/history.db";
int VersionCommand(const Args& args);

}  // namespace stampede::cli

#endif  // STAMPEDE_CLI_COMMANDS_H_
