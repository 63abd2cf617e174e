#include "report/hugedb_cru.h"

#include "report/text_format.h"

namespace stampede::report {

std::string HugedbCruLine(const StepGroup& g) {
  Histogram create, read, update;
  for (const PhaseSummary* p : g.steps) {
    for (const OpSummary& o : p->ops) {
      if (o.name == "InsertUsersItems") create.Merge(o.latency);
      if (o.name == "SearchUsers" || o.name == "RandomSearchItems") read.Merge(o.latency);
      if (o.name == "UpdateItemsAmounts") update.Merge(o.latency);
    }
  }
  auto per = [](const Histogram& h, double records) {
    return h.count() ? Fixed(h.MeanNs() / 1000.0 / records, 1) : std::string("n/a");
  };
  return "CRU µs/record: C " + per(create, 6) + ", R " + per(read, 1) + ", U " + per(update, 3);
}

}  // namespace stampede::report
