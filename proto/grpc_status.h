// A Status across the wire: its kind as a gRPC code and back, the one place
// that maps them (the coordinator answers with ToGrpc; an agent or a
// submitter reads an answer with FromGrpc and decides on its kind).
#ifndef STAMPEDE_PROTO_GRPC_STATUS_H_
#define STAMPEDE_PROTO_GRPC_STATUS_H_

#include <grpcpp/support/status.h>

#include "common/status.h"

namespace stampede {

grpc::Status ToGrpc(const Status& s);
// A gRPC code no kind has (CANCELLED, DEADLINE_EXCEEDED, INTERNAL ...) is
// kFailed; UNAVAILABLE is kUnavailable: the peer may answer later.
Status FromGrpc(const grpc::Status& s);

}  // namespace stampede

#endif  // STAMPEDE_PROTO_GRPC_STATUS_H_
