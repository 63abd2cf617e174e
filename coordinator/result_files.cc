#include "coordinator/result_files.h"

#include <algorithm>
#include <filesystem>
#include <vector>

namespace stampede::coordinator {
namespace fs = std::filesystem;

bool IsRunId(const std::string& run_id) {
  if (run_id.empty() || run_id.size() > 255 || run_id == "." || run_id == "..") return false;
  return std::all_of(run_id.begin(), run_id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
  });
}

StatusOr<std::string> MakeRunDir(const std::string& results_root, const std::string& exact, const std::string& run_id,
                                 const std::string& plan_yaml) {
  std::error_code ec;
  std::string dir = exact;
  if (dir.empty()) {
    dir = results_root + "/" + run_id;
    for (int n = 2; fs::exists(dir, ec); ++n) dir = results_root + "/" + run_id + "-" + std::to_string(n);
  } else if (fs::file_size(dir + "/journal.jsonl", ec) > 0 && !ec) {
    // Another run's journal: appending to it would mix two runs' numbers.
    return Status::Exists("results: " + dir +
                          " already holds a run (journal.jsonl); name a new or empty directory with --results");
  }
  fs::create_directories(dir, ec);
  if (ec) return Status::Error("results: cannot create " + dir + ": " + ec.message());
  std::ofstream out(dir + "/plan.yaml");
  out << plan_yaml;
  out.close();
  if (!out) return Status::Error("results: cannot write " + dir + "/plan.yaml");
  return dir;
}

namespace {

bool IsFileName(const std::string& name) { return IsRunId(name); }

Status SendFile(const fs::path& path, const std::function<bool(const v1::ResultChunk&)>& send) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error("cannot read " + path.string());
  v1::ResultChunk chunk;
  chunk.set_file(path.filename().string());
  std::string buf(kResultChunkBytes, '\0');
  uint64_t offset = 0;
  do {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto n = static_cast<size_t>(in.gcount());
    if (n == 0 && offset > 0) break;
    chunk.set_offset(offset);
    chunk.set_data(buf.data(), n);
    if (!send(chunk)) return Status::Error("the caller went away");
    offset += n;
  } while (in);
  return Status::Ok();
}

}  // namespace

Status SendResultFiles(const std::string& results_root, const std::string& run_id,
                       const std::function<bool(const v1::ResultChunk&)>& send) {
  if (!IsRunId(run_id)) return Status::Invalid("not a run id: '" + run_id + "'");
  const fs::path dir = fs::path(results_root) / run_id;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::NotFound("no results for run " + run_id);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && !e.is_symlink() && IsFileName(e.path().filename().string())) files.push_back(e.path());
  }
  if (ec) return Status::Error("cannot list the results of run " + run_id + ": " + ec.message());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    if (Status s = SendFile(f, send); !s.ok()) return s;
  }
  return Status::Ok();
}

Status ResultFileWriter::Write(const v1::ResultChunk& chunk) {
  if (!IsFileName(chunk.file())) return Status::Error("the coordinator sent a file named '" + chunk.file() + "'");
  if (chunk.file() != current_ || chunk.offset() == 0) {
    if (chunk.offset() != 0) return Status::Error("the coordinator sent " + chunk.file() + " out of order");
    if (Status s = Finish(); !s.ok()) return s;
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec) return Status::Error("cannot create " + dir_ + ": " + ec.message());
    const std::string path = dir_ + "/" + chunk.file();
    out_.open(path, std::ios::binary | std::ios::trunc);
    if (!out_) return Status::Error("cannot write " + path);
    current_ = chunk.file();
    next_offset_ = 0;
    ++files_;
  }
  if (chunk.offset() != next_offset_) return Status::Error("the coordinator sent " + chunk.file() + " out of order");
  out_.write(chunk.data().data(), static_cast<std::streamsize>(chunk.data().size()));
  if (!out_) return Status::Error("cannot write " + dir_ + "/" + chunk.file() + " (disk full?)");
  next_offset_ += chunk.data().size();
  return Status::Ok();
}

Status ResultFileWriter::Finish() {
  if (!out_.is_open()) return Status::Ok();
  out_.close();
  if (!out_) return Status::Error("cannot write " + dir_ + "/" + current_ + " (disk full?)");
  return Status::Ok();
}

}  // namespace stampede::coordinator
