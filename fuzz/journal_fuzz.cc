// Fuzzes what reads a journal: the record decoder, the summary, the
// recovery numbers and the dashboard's view, fed one line at a time as
// `stampede report`, the end of a run and a restarted coordinator read
// journal.jsonl. Any input must give a view and rows without a crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "record/record_codec.h"
#include "report/run_summary.h"
#include "report/run_view.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  stampede::report::RunViewBuilder view;
  std::string timeline;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const auto line = stampede::record::Json::parse(text.substr(start, end - start), nullptr, false);
    if (auto r = stampede::record::Decode(line)) {
      view.Add(*r);
      if (const auto* s = std::get_if<stampede::record::Second>(&*r))
        stampede::report::AppendTimelineRows(*s, &timeline);
      (void)stampede::record::Encode(*r).dump();
    }
    start = end + 1;
  }
  const stampede::report::RunSummary summary = view.Summary();
  (void)view.View(summary).dump();
  (void)stampede::report::RenderReportMarkdown(summary);
  return 0;
}
