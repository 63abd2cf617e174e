#include "workloads/geo_workload.h"

#include <charconv>
#include <cmath>

#include "common/rng.h"
#include "workloads/redis_scripts.h"

namespace stampede::workloads {
namespace {

using drivers::Dialect;
using drivers::Param;
using Type = ParamSpec::Type;
using G = GeoWorkload;

class GeoWorker : public WorkerOps {
 public:
  GeoWorker(const G::Config& c, uint32_t worker, uint32_t total_workers, uint64_t insert_base, uint64_t seed)
      : c_(c), worker_(worker), stride_(total_workers), insert_base_(insert_base), rng_(seed) {
    uint64_t acc = 0;
    for (int i = 0; i < G::kNumOps; ++i) cumulative_[i] = acc += c_.weights[i];
  }

  int Next(drivers::OpRequest* req) override {
    req->nparams = 0;
    int op = G::kInsert;
    if (!c_.load) {
      const uint64_t pick = rng_.Uniform(cumulative_[G::kNumOps - 1]);
      while (pick >= cumulative_[op]) ++op;
    }
    req->stmt = op;
    switch (op) {
      case G::kInsert: {
        const uint64_t id = c_.load ? worker_ + loaded_++ * stride_ : insert_base_ + worker_ + inserted_++ * stride_;
        req->Set(0, Param::Int(int64_t(id)));
        SetPlace(req, 1);
        break;
      }
      case G::kMove:
        req->Set(0, Param::Int(int64_t(rng_.Uniform(c_.points))));
        SetPlace(req, 1);
        break;
      default:  // search: place, radius, count
        SetPlace(req, 0);
        req->Set(2, Param::Str(Format(2, c_.radius_m)));
        req->Set(3, Param::Int(c_.nearest));
        break;
    }
    return op;
  }

 private:
  // lat, lon at params i, i+1 (the statements' order; Redis wants lon
  // first, which its templates take care of).
  void SetPlace(drivers::OpRequest* req, int i) {
    const double lat = c_.center_lat + (2 * rng_.NextDouble() - 1) * c_.half_lat_deg;
    const double lon = c_.center_lon + (2 * rng_.NextDouble() - 1) * c_.half_lon_deg;
    req->Set(i, Param::Str(Format(0, lat)));
    req->Set(i + 1, Param::Str(Format(1, lon)));
  }

  std::string_view Format(int slot, double v) {
    char* b = buffers_[slot];
    auto [end, ec] = std::to_chars(b, b + sizeof(buffers_[slot]), v, std::chars_format::fixed, 6);
    (void)ec;
    return std::string_view(b, size_t(end - b));
  }

  const G::Config& c_;
  uint64_t worker_;
  uint64_t stride_;
  uint64_t insert_base_;
  uint64_t loaded_ = 0;
  uint64_t inserted_ = 0;
  Rng rng_;
  uint64_t cumulative_[G::kNumOps];
  char buffers_[3][48];
};

}  // namespace

const std::vector<ParamSpec>& GeoWorkload::ParamSpecs() {
  static const std::vector<ParamSpec> kSpecs = {
      {"points", Type::kInt, "100000", "points loaded", {}, 1, 1e12},
      {"nearest", Type::kInt, "500", "a search returns at most this many, nearest first", {}, 1, 100000},
      {"radius_m", Type::kDouble, "5000", "search radius in metres", {}, 1, 2e7},
      {"center_lat", Type::kDouble, "52.52", "centre of the area", {}, -85, 85},
      {"center_lon", Type::kDouble, "13.405", "centre of the area", {}, -180, 180},
      {"span_km", Type::kDouble, "50", "width and height of the area", {}, 0.1, 5000},
      {"search", Type::kInt, "8", "weight of searches", {}, 0, 1e9},
      {"move", Type::kInt, "2", "weight of moves", {}, 0, 1e9},
      {"insert", Type::kInt, "0", "weight of inserts in the run step", {}, 0, 1e9},
      {"load", Type::kBool, "true", "insert every point in a load step first", {}, 0, 0},
      {"reset", Type::kBool, "true", "empty the table (key) before loading", {}, 0, 0},
      {"table", Type::kString, "geo_points", "table (Redis: the geo key)", {}, 0, 0},
  };
  return kSpecs;
}

std::vector<StepSpec> GeoWorkload::Steps(const Params& params, uint32_t workers) {
  if (!params.Bool("load")) return {};
  return {{"load", workers, static_cast<uint64_t>(params.Int("points")), false}, {"run", workers, 0, false}};
}

StatusOr<std::unique_ptr<Workload>> GeoWorkload::Create(const WorkloadContext& ctx, const Params& params) {
  if (ctx.dialect == Dialect::kMysql) {
    return Status::Error("geo: needs PostgreSQL (cube, earthdistance) or Redis");
  }
  std::unique_ptr<GeoWorkload> w(new GeoWorkload());
  w->ctx_ = ctx;
  Config& c = w->config_;
  c.points = static_cast<uint64_t>(params.Int("points"));
  c.nearest = params.Int("nearest");
  c.radius_m = params.Double("radius_m");
  c.center_lat = params.Double("center_lat");
  c.center_lon = params.Double("center_lon");
  const double half_km = params.Double("span_km") / 2;
  c.half_lat_deg = half_km / 111.32;
  c.half_lon_deg = half_km / (111.32 * std::cos(c.center_lat * M_PI / 180));
  c.weights[kInsert] = static_cast<uint64_t>(params.Int("insert"));
  c.weights[kSearch] = static_cast<uint64_t>(params.Int("search"));
  c.weights[kMove] = static_cast<uint64_t>(params.Int("move"));
  c.load = ctx.step == "load";
  c.redis = ctx.dialect == Dialect::kRedis;
  if (!c.load && c.weights[kInsert] + c.weights[kSearch] + c.weights[kMove] == 0) {
    return Status::Error("geo: at least one of search, move, insert must be > 0");
  }
  w->ops_ = {"insert", "search", "move"};
  const std::string& t = params.Str("table");
  const bool first_step = ctx.step.empty() || c.load;
  if (c.redis) {
    w->statements_ = {{"GEOADD " + t + " $3 $2 $1", true, false},
                      {"GEOSEARCH " + t + " FROMLONLAT $2 $1 BYRADIUS $3 m ASC COUNT $4", false, false},
                      {"GEOADD " + t + " XX $3 $2 $1", true, false}};
    if (c.load && params.Bool("reset")) w->setup_.push_back("DEL " + t);
  } else {
    const std::string here = "ll_to_earth($1, $2)";
    w->statements_ = {
        {"INSERT INTO " + t + " (id, lat, lon) VALUES ($1, $2, $3)", true, false},
        {"SELECT id FROM " + t + " WHERE earth_box(" + here + ", $3) @> ll_to_earth(lat, lon) AND earth_distance(" +
             here + ", ll_to_earth(lat, lon)) <= $3 ORDER BY earth_distance(" + here +
             ", ll_to_earth(lat, lon)) LIMIT $4",
         false, false},
        {"UPDATE " + t + " SET lat = $2, lon = $3 WHERE id = $1", true, false}};
    if (first_step) {
      // earthdistance is not a trusted extension: on a managed server an
      // administrator creates it once; IF NOT EXISTS then needs no rights.
      w->setup_ = {"CREATE EXTENSION IF NOT EXISTS cube", "CREATE EXTENSION IF NOT EXISTS earthdistance",
                   "CREATE TABLE IF NOT EXISTS " + t +
                       " (id BIGINT PRIMARY KEY, lat DOUBLE PRECISION NOT NULL, lon DOUBLE PRECISION NOT NULL)",
                   "CREATE INDEX IF NOT EXISTS " + t + "_earth ON " + t + " USING gist (ll_to_earth(lat, lon))"};
      if (c.load && params.Bool("reset")) w->setup_.push_back("TRUNCATE TABLE " + t);
    }
  }
  return std::unique_ptr<Workload>(std::move(w));
}

std::unique_ptr<WorkerOps> GeoWorkload::MakeWorker(uint32_t global_worker) const {
  const uint64_t seed = MixSeed(MixSeed(ctx_.seed, ctx_.phase_index), global_worker);
  const uint64_t insert_base = config_.points + uint64_t{ctx_.phase_index} * kPhaseIdSpan;
  return std::make_unique<GeoWorker>(config_, global_worker, ctx_.total_workers, insert_base, seed);
}

}  // namespace stampede::workloads
