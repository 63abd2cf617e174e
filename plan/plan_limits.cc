#include "plan/plan_limits.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <sstream>
#include <vector>

namespace stampede::plan {
namespace {

struct LimitHit {
  LimitError error;
};

// Counts nodes as the loader will see them: an alias adds the whole size of
// the node it refers to. Throws LimitHit at the first limit passed.
class NodeCounter : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { Leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    Leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Add(mark, anchor < sizes_.size() ? sizes_[anchor] : 1);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(mark, anchor);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(mark, anchor);
  }
  void OnMapEnd() override { Close(); }

 private:
  struct Open_ {
    YAML::anchor_t anchor;
    uint64_t total_before;
  };
  [[noreturn]] static void Hit(const YAML::Mark& mark, std::string message) {
    throw LimitHit{{mark.line + 1, mark.column + 1, std::move(message)}};
  }
  void Add(const YAML::Mark& mark, uint64_t n) {
    total_ += n;
    if (total_ > kMaxYamlNodes) {
      Hit(mark, "the plan has more than " + std::to_string(kMaxYamlNodes) +
                    " values once its aliases (*name) are expanded; the limit keeps a small file from "
                    "standing for an enormous one");
    }
  }
  void Remember(YAML::anchor_t anchor, uint64_t size) {
    if (anchor == YAML::NullAnchor) return;
    if (sizes_.size() <= anchor) sizes_.resize(anchor + 1, 1);
    sizes_[anchor] = size;
  }
  void Leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    Add(mark, 1);
    Remember(anchor, 1);
  }
  void Open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (open_.size() >= size_t(kMaxYamlDepth)) {
      Hit(mark, "lists and mappings nested more than " + std::to_string(kMaxYamlDepth) + " deep");
    }
    open_.push_back({anchor, total_});
    Add(mark, 1);
  }
  void Close() {
    if (open_.empty()) return;
    const Open_ o = open_.back();
    open_.pop_back();
    Remember(o.anchor, total_ - o.total_before);
  }

  uint64_t total_ = 0;
  std::vector<Open_> open_;
  std::vector<uint64_t> sizes_;  // by anchor id: nodes the anchored node stands for
};

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::optional<LimitError> CheckPlanTextLimits(std::string_view text) {
  if (text.size() > kMaxPlanBytes) {
    return LimitError{1, 1, "the plan is larger than the limit of " + std::to_string(kMaxPlanBytes) + " bytes (1 MiB)"};
  }
  std::istringstream in{std::string(text)};
  try {
    YAML::Parser parser(in);
    NodeCounter counter;
    while (parser.HandleNextDocument(counter)) {
    }
  } catch (const LimitHit& hit) {
    return hit.error;
  } catch (const YAML::Exception&) {
    return std::nullopt;  // a syntax error: the loader reports it with its position
  }
  return std::nullopt;
}

bool IsIdentifier(std::string_view s) {
  if (s.empty() || s.size() > kMaxNameLength || !(IsAlpha(s[0]) || s[0] == '_')) return false;
  for (char c : s) {
    if (!IsAlpha(c) && !IsDigit(c) && c != '_') return false;
  }
  return true;
}

bool IsNameOf(std::string_view s, std::string_view extra) {
  if (s.empty() || s.size() > kMaxNameLength) return false;
  for (char c : s) {
    if (!IsAlpha(c) && !IsDigit(c) && extra.find(c) == std::string_view::npos) return false;
  }
  return true;
}

std::string Quoted(std::string_view s, size_t max) {
  if (s.size() <= max) return "'" + std::string(s) + "'";
  return "'" + std::string(s.substr(0, max)) + "...' (" + std::to_string(s.size()) + " characters)";
}

std::string ExpectedInteger(double min, double max) {
  std::string range = "an integer";
  if (min >= 1) range = "a positive integer";
  if (min == 0) range = "a non-negative integer";
  return "expected " + range + (max < 1e18 ? " up to " + std::to_string(int64_t(max)) : "") + ", found ";
}

std::string ExpectedNumber(double min, double max, bool exclusive_min) {
  std::ostringstream os;
  os << "expected a number " << (exclusive_min ? "above " : "from ") << min;
  if (max < 1e18) os << " up to " << max;
  os << ", found ";
  return os.str();
}

}  // namespace stampede::plan
