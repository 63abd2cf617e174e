#include <iostream>

#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/spool_merge.h"
#include "report/run_summary.h"
#include "report/verdict.h"

namespace stampede::cli {
namespace po = boost::program_options;

int ReportCommand(const Args& args) {
  std::string dir;
  std::vector<std::string> spools;
  bool hdr_log = false;
  po::options_description desc("report options");
  desc.add_options()("dir", po::value(&dir), "results directory of a run")(
      "spool", po::value(&spools)->multitoken(),
      "merge what these agent spools kept (a run its coordinator never took back) into the journal first")(
      "hdr-log", po::bool_switch(&hdr_log),
      "also write latency.hlog (HdrHistogram interval log; the plan's report.hdr_log does it too)");
  po::positional_options_description pos;
  pos.add("dir", 1);
  po::variables_map vm;
  const std::string usage =
      "usage: stampede report RESULTS_DIR [--spool FILE...] [--hdr-log]\n"
      "Rebuilds summary.json, timeline.csv, report.md and report.html (and latency.hlog) from journal.jsonl and "
      "prints the report.\n"
      "Exits 4 when the plan's expect: block is not met (as `stampede run` does).";
  if (auto code = ParseFlags(usage, desc, pos, args, &vm)) return *code;
  if (dir.empty()) {
    std::cerr << usage << "\n";
    return kExitBadInput;
  }
  if (!spools.empty()) {
    std::vector<record::Record> journal;
    Status read =
        report::ScanRecords(dir + "/journal.jsonl", [&](record::Record&& r) { journal.push_back(std::move(r)); });
    if (!read.ok()) {
      return Fail(read);
    }
    report::JournalWriter writer;
    Status opened = writer.Open(dir + "/journal.jsonl");
    if (!opened.ok()) {
      return Fail(opened);
    }
    for (const std::string& spool : spools) {
      auto added = MergeSpool(spool, &journal);
      if (!added.ok()) {
        return Fail(added.status());
      }
      for (const record::Record& r : *added) {
        Status w = writer.Append(r);
        if (!w.ok()) {
          return Fail(w);
        }
      }
      std::cerr << "stampede: " << spool << ": " << added->size() << " line(s) merged into the journal\n";
    }
    writer.Close();
  }
  report::RunSummary summary;
  std::vector<std::string> warnings;
  Status s = report::WriteReports(dir, &summary, &warnings, hdr_log);
  for (const std::string& w : warnings) std::cerr << "stampede: warning: " << w << "\n";
  if (!s.ok()) {
    return Fail(s);
  }
  std::cout << report::RenderReportMarkdown(summary);
  if (const report::Verdict verdict = report::Evaluate(summary); !verdict.passed()) {
    std::cerr << "stampede: expectations not met: " << report::FailedChecksLine(verdict) << "\n";
    return kExitExpectations;
  }
  return kExitOk;
}

}  // namespace stampede::cli
