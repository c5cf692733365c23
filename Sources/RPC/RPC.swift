// RPC: gRPC over Typeahead's HTTP/2 transport, for the servers (a node, a coordinator) and their
// clients (the coordinator's fan-out, the admin CLI, the load tester).
//
//   Server/   `RPCServer` routes one port's requests — gRPC, the Connect protocol's unary JSON, GET
//             conveniences, grpc.health.v1, /healthz, /readyz, /metrics — to a table of
//             `RPCMethod`s, checks tokens and deadlines, and reports through `ServerTelemetry`.
//   Client/   `GRPCClient` makes unary calls over an `HTTP2ClientConnection`: framing, deadlines,
//             cancellation (RST_STREAM), and the mapping of every transport failure to a status.
//
// Messages and status codes come from Wire; bytes move through HTTP2. This module knows no index
// type: a method's handler does.
