#include "report/append_parse.h"

#include <simdjson.h>

namespace stampede::report {

namespace od = simdjson::ondemand;

struct AppendLineParser::Impl {
  od::parser parser;
};

AppendLineParser::AppendLineParser() : impl_(std::make_unique<Impl>()) {}
AppendLineParser::~AppendLineParser() = default;

namespace {

// Room for the bytes the parser may read past the line's end.
void Pad(std::string& line) {
  if (line.capacity() < line.size() + simdjson::SIMDJSON_PADDING)
    line.reserve(line.size() + simdjson::SIMDJSON_PADDING);
}

// A read's list: its integers (anything else in it is skipped).
bool ParseList(od::value v, AppendMop* mop) {
  od::array list;
  if (v.get_array().get(list)) return false;
  for (auto item : list) {
    od::value x;
    int64_t n = 0;
    if (item.get(x)) return false;
    if (!x.get_int64().get(n)) mop->list.push_back(n);
  }
  return true;
}

// ["r", key, list-or-null] or ["append", key, value].
bool ParseMop(od::value v, AppendMop* mop) {
  od::array m;
  if (v.get_array().get(m)) return false;
  int i = 0;
  for (auto item : m) {
    od::value e;
    if (item.get(e)) return false;
    if (i == 0) {
      std::string_view f;
      if (e.get_string().get(f)) return false;
      mop->read = f == "r";
    } else if (i == 1) {
      if (e.get_int64().get(mop->key)) return false;
    } else if (i == 2) {
      if (mop->read) {
        bool null = false;
        if (e.is_null().get(null)) return false;
        if (!null && !ParseList(e, mop)) return false;
      } else {
        int64_t n = 0;
        if (!e.get_int64().get(n)) mop->value = n;
      }
    }
    ++i;
  }
  return i == 3;
}

bool ParseMops(od::value v, AppendOp* op) {
  od::array mops;
  if (v.get_array().get(mops)) return false;
  size_t n = 0;
  for (auto item : mops) {
    od::value m;
    if (item.get(m)) return false;
    if (n == op->mops.size()) op->mops.emplace_back();
    AppendMop& mop = op->mops[n++];
    mop = AppendMop{false, 0, 0, std::move(mop.list)};
    mop.list.clear();
    if (!ParseMop(m, &mop)) return false;
  }
  op->mops.resize(n);
  return true;
}

bool String(od::value v, std::string* out) {
  std::string_view s;
  if (v.get_string().get(s)) return false;
  out->assign(s);
  return true;
}

}  // namespace

bool AppendLineParser::Parse(std::string& line, std::string_view phase, AppendOp* op) {
  Pad(line);
  od::document doc;
  od::object obj;
  if (impl_->parser.iterate(line.data(), line.size(), line.capacity()).get(doc) || doc.get_object().get(obj)) {
    return false;
  }
  bool has_phase = false, has_type = false, has_value = false;
  op->process = 0;
  op->time = 0;
  op->final = false;
  op->endpoint.clear();
  op->agent.clear();
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    od::value v = field.value();
    bool ok = true;
    if (key == "phase") {
      std::string_view p;
      if (v.get_string().get(p) || p != phase) return false;
      has_phase = true;
    } else if (key == "type") {
      ok = has_type = String(v, &op->type);
    } else if (key == "value") {
      ok = has_value = ParseMops(v, op);
    } else if (key == "process") {
      uint64_t p = 0;
      ok = !v.get_uint64().get(p);
      op->process = uint32_t(p);
    } else if (key == "time") {
      ok = !v.get_int64().get(op->time);
    } else if (key == "final") {
      ok = !v.get_bool().get(op->final);
    } else if (key == "endpoint") {
      ok = String(v, &op->endpoint);
    } else if (key == "agent") {
      ok = String(v, &op->agent);
    }
    if (!ok) return false;
  }
  return has_phase && has_type && has_value;
}

std::string AppendLineParser::Phase(std::string& line) {
  Pad(line);
  od::document doc;
  std::string_view p;
  if (impl_->parser.iterate(line.data(), line.size(), line.capacity()).get(doc)) return "";
  if (doc.find_field_unordered("phase").get_string().get(p)) return "";
  return std::string(p);
}

}  // namespace stampede::report
