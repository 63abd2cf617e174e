// Parses "$1..$n" placeholders out of statement text, shared by the drivers
// that cannot pass the text to the server as is.
#ifndef STAMPEDE_DRIVERS_STATEMENT_TEMPLATE_H_
#define STAMPEDE_DRIVERS_STATEMENT_TEMPLATE_H_

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "drivers/driver.h"

namespace stampede::drivers {

// A piece of text: a literal, or a reference to parameter `param` (0-based).
struct Segment {
  std::string literal;
  int param = -1;
};

// Splits text into literal and parameter segments. "$$" is a literal '$'.
// Fails on "$0" or a parameter number above max_params.
StatusOr<std::vector<Segment>> ParsePlaceholders(std::string_view text, int max_params);

// MySQL form: every $n becomes '?', and *order receives n-1 per '?'.
StatusOr<std::string> ToQuestionMarks(std::string_view text, int max_params, std::vector<int>* order);

// Appends a parameter's text (integers via std::to_chars: no allocation
// beyond the string's own growth).
void AppendParam(const Param& p, std::string* out);

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_STATEMENT_TEMPLATE_H_
