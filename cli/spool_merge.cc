#include "cli/spool_merge.h"

#include <map>
#include <memory>
#include <set>

#include "agent/spool.h"
#include "coordinator/phase_merger.h"
#include "record/record_codec.h"

namespace stampede::cli {

StatusOr<std::vector<report::Json>> MergeSpool(const std::string& spool_path, std::vector<report::Json>* journal) {
  std::string run_id, agent;
  std::vector<agent::SpoolRecord> records;
  Status s = agent::Spool::Read(spool_path, &run_id, &agent, &records);
  if (!s.ok()) return s;
  std::string journal_run;
  int64_t run_start_ns = 0;
  std::map<uint32_t, std::unique_ptr<coordinator::PhaseMerger>> mergers;
  std::set<std::pair<std::string, std::string>> logged;
  std::set<uint32_t> fault_results;
  for (const report::Json& line : *journal) {
    const std::string type = line.value("type", "");
    const uint32_t index = line.value("index", 0u);
    if (type == "run") {
      journal_run = line.value("run_id", "");
      run_start_ns = line.value("mono_start_ns", int64_t{0});
    } else if (type == "phase_start") {
      auto m = std::make_unique<coordinator::PhaseMerger>(
          line.value("phase", ""), index, line.value("start_ns", int64_t{0}), run_start_ns, std::set<std::string>{}, 0);
      m->SetNextSeq(INT64_MAX);  // everything merged now is a late line
      mergers[index] = std::move(m);
    } else if (type == "second" && mergers.count(index)) {
      for (const std::string& a : line.value("from", std::vector<std::string>{})) {
        mergers[index]->MarkJournalled(a, line.value("seq", 0u));
      }
    } else if (type == "log") {
      logged.insert({line.value("agent", ""), line.value("message", "")});
    } else if (type == "fault_result") {
      fault_results.insert(index);
    }
  }
  if (run_id != journal_run) {
    return Status::Error(spool_path + ": spooled run " + run_id + ", but the journal is of run " + journal_run);
  }
  std::vector<report::Json> added;
  for (const agent::SpoolRecord& r : records) {
    const v1::AgentMessage& m = r.message;
    if (m.has_snapshot()) {
      auto it = mergers.find(m.snapshot().phase_index());
      if (it == mergers.end()) continue;  // a phase the journal never started
      for (const record::Second& second : it->second->Add(m.snapshot())) {
        report::Json line = record::EncodeSecond(second);
        line["from_spool"] = spool_path;
        added.push_back(std::move(line));
      }
    } else if (m.has_event() && m.event().kind() == v1::Event::LOG) {
      if (logged.insert({agent, m.event().message()}).second) {
        added.push_back(
            {{"type", "log"}, {"agent", agent}, {"message", m.event().message()}, {"from_spool", spool_path}});
      }
    } else if (m.has_event() &&
               (m.event().kind() == v1::Event::FAULT_DONE || m.event().kind() == v1::Event::FAULT_FAILED)) {
      if (fault_results.insert(m.event().fault_index()).second) {
        added.push_back({{"type", "fault_result"},
                         {"index", m.event().fault_index()},
                         {"agent", agent},
                         {"ok", m.event().kind() == v1::Event::FAULT_DONE},
                         {"t", double(m.event().time_ns() - run_start_ns) / 1e9},
                         {"message", m.event().message()},
                         {"from_spool", spool_path}});
      }
    }
  }
  journal->insert(journal->end(), added.begin(), added.end());
  return added;
}

}  // namespace stampede::cli
