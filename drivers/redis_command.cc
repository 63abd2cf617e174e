#include "drivers/redis_command.h"

#include <array>
#include <charconv>

#include "common/strings.h"

namespace stampede::drivers {
namespace {

constexpr std::array<uint16_t, 256> MakeCrcTable() {
  std::array<uint16_t, 256> t{};
  for (int i = 0; i < 256; ++i) {
    uint16_t crc = static_cast<uint16_t>(i << 8);
    for (int b = 0; b < 8; ++b) crc = (crc & 0x8000) ? uint16_t((crc << 1) ^ 0x1021) : uint16_t(crc << 1);
    t[i] = crc;
  }
  return t;
}
constexpr std::array<uint16_t, 256> kCrcTable = MakeCrcTable();

uint16_t Crc16(std::string_view s) {
  uint16_t crc = 0;
  for (unsigned char c : s) crc = uint16_t((crc << 8) ^ kCrcTable[((crc >> 8) ^ c) & 0xff]);
  return crc;
}

void AppendNumber(std::string* out, char prefix, size_t n) {
  char buf[24];
  buf[0] = prefix;
  auto [end, ec] = std::to_chars(buf + 1, buf + sizeof(buf) - 2, n);
  *end++ = '\r';
  *end++ = '\n';
  out->append(buf, end);
}

// A parameter's text: a string's own bytes, an integer's digits in *buf.
std::string_view ParamText(const Param& p, char (&buf)[24]) {
  if (!p.is_int) return p.s;
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), p.i);
  (void)ec;
  return std::string_view(buf, size_t(end - buf));
}

}  // namespace

void EncodeResp(const std::vector<std::string>& args, int argc, std::string* out) {
  AppendNumber(out, '*', size_t(argc));
  for (int i = 0; i < argc; ++i) {
    const std::string& a = args[size_t(i)];
    AppendNumber(out, '$', a.size());
    out->append(a);
    out->append("\r\n", 2);
  }
}

int RedisKeySlot(std::string_view key) {
  size_t open = key.find('{');
  if (open != std::string_view::npos) {
    size_t close = key.find('}', open + 1);
    if (close != std::string_view::npos && close > open + 1) key = key.substr(open + 1, close - open - 1);
  }
  return Crc16(key) & 16383;
}

Status RedisCommands::Compile(const std::vector<StatementSpec>& statements) {
  commands_.clear();
  for (const StatementSpec& spec : statements) {
    Command c;
    c.write = spec.write;
    c.scalar = spec.scalar;
    for (const std::string& word : SplitWords(spec.text)) {
      auto segments = ParsePlaceholders(word, kMaxStatementParams);
      if (!segments.ok()) return segments.status().WithContext(spec.text);
      c.words.push_back(std::move(*segments));
    }
    if (c.words.empty() || c.words.size() > kMaxCommandWords) {
      return Status::Error("bad command '" + spec.text + "'");
    }
    commands_.push_back(std::move(c));
  }
  return Status::Ok();
}

void RedisCommands::Encode(const OpRequest& req, std::string* out) const {
  const Command& c = commands_[req.stmt];
  AppendNumber(out, '*', c.words.size());
  char buf[24];
  for (const std::vector<Segment>& word : c.words) {
    // The length first (an integer's digits are written twice: cheaper
    // than a copy of the word).
    size_t n = 0;
    for (const Segment& s : word) n += s.param < 0 ? s.literal.size() : ParamText(req.param(s.param), buf).size();
    AppendNumber(out, '$', n);
    for (const Segment& s : word)
      out->append(s.param < 0 ? std::string_view(s.literal) : ParamText(req.param(s.param), buf));
    out->append("\r\n", 2);
  }
}

int RedisCommands::Render(const OpRequest& req, std::vector<std::string>* args) const {
  const Command& c = commands_[req.stmt];
  // Once per connection for a command wider than kMaxWords (a batched MSET).
  if (args->size() < c.words.size()) args->resize(c.words.size());
  for (size_t w = 0; w < c.words.size(); ++w) {
    std::string& out = (*args)[w];
    out.clear();
    for (const Segment& s : c.words[w]) {
      if (s.param < 0) {
        out.append(s.literal);
        continue;
      }
      AppendParam(req.param(s.param), &out);
    }
  }
  return static_cast<int>(c.words.size());
}

std::vector<RedisLoginStep> RedisLogin(const ConnectOptions& o) {
  std::vector<RedisLoginStep> steps;
  if (!o.password.empty()) {
    RedisLoginStep auth{{"AUTH"}, "authentication"};
    if (!o.user.empty()) auth.words.push_back(o.user);
    auth.words.push_back(o.password);
    steps.push_back(std::move(auth));
  }
  if (!o.database.empty() && o.database != "0") steps.push_back({{"SELECT", o.database}, "SELECT " + o.database});
  return steps;
}

}  // namespace stampede::drivers
