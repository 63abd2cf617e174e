// hugedb2019's headline numbers, beside the step tables of its group.
#pragma once

#include <string>

#include "report/run_summary.h"

namespace stampede::report {

// Mean µs per record created (a user with its 4 items and 1 rel: 6 rows),
// read (a search) and updated (3 items per UpdateItemsAmounts), from the
// merged latencies of the group's steps.
std::string HugedbCruLine(const StepGroup& g);

}  // namespace stampede::report
