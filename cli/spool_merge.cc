#include "cli/spool_merge.h"

#include <map>
#include <memory>
#include <set>

#include "agent/spool.h"
#include "coordinator/phase_merger.h"
#include "record/record_codec.h"

namespace stampede::cli {

StatusOr<std::vector<record::Record>> MergeSpool(const std::string& spool_path, std::vector<record::Record>* journal) {
  std::string run_id, agent;
  std::vector<agent::SpoolRecord> records;
  Status s = agent::Spool::Read(spool_path, &run_id, &agent, &records);
  if (!s.ok()) return s;
  std::string journal_run;
  int64_t run_start_ns = 0;
  std::map<uint32_t, std::unique_ptr<coordinator::PhaseMerger>> mergers;
  std::set<std::pair<std::string, std::string>> logged;
  std::set<uint32_t> fault_results;
  for (const record::Record& r : *journal) {
    if (const auto* run = std::get_if<record::RunStart>(&r)) {
      journal_run = run->run_id;
      run_start_ns = run->mono_start_ns;
    } else if (const auto* p = std::get_if<record::PhaseStart>(&r)) {
      auto m = std::make_unique<coordinator::PhaseMerger>(p->phase, p->index, p->start_ns, run_start_ns,
                                                          std::set<std::string>{}, 0);
      m->SetNextSeq(INT64_MAX);  // everything merged now is a late line
      mergers[p->index] = std::move(m);
    } else if (const auto* sec = std::get_if<record::Second>(&r); sec && mergers.count(sec->index)) {
      for (const std::string& a : sec->from) mergers[sec->index]->MarkJournalled(a, sec->seq);
    } else if (const auto* log = std::get_if<record::LogLine>(&r)) {
      logged.insert({log->agent, log->message});
    } else if (const auto* done = std::get_if<record::FaultDone>(&r)) {
      fault_results.insert(done->index);
    }
  }
  if (run_id != journal_run) {
    return Status::Error(spool_path + ": spooled run " + run_id + ", but the journal is of run " + journal_run);
  }
  std::vector<record::Record> added;
  for (const agent::SpoolRecord& r : records) {
    const v1::AgentMessage& m = r.message;
    if (m.has_snapshot()) {
      auto it = mergers.find(m.snapshot().phase_index());
      if (it == mergers.end()) continue;  // a phase the journal never started
      for (record::Second& second : it->second->Add(m.snapshot())) {
        second.from_spool = spool_path;
        added.push_back(std::move(second));
      }
    } else if (m.has_event() && m.event().kind() == v1::Event::LOG) {
      if (logged.insert({agent, m.event().message()}).second) {
        added.push_back(record::LogLine{agent, m.event().message(), spool_path});
      }
    } else if (m.has_event() &&
               (m.event().kind() == v1::Event::FAULT_DONE || m.event().kind() == v1::Event::FAULT_FAILED)) {
      if (fault_results.insert(m.event().fault_index()).second) {
        added.push_back(record::FaultDone{m.event().fault_index(), agent, m.event().kind() == v1::Event::FAULT_DONE,
                                          double(m.event().time_ns() - run_start_ns) / 1e9, m.event().message(),
                                          spool_path});
      }
    }
  }
  journal->insert(journal->end(), added.begin(), added.end());
  return added;
}

}  // namespace stampede::cli
