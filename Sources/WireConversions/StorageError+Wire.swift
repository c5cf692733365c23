import Storage
import Wire

/// The status a storage failure answers with, when it reaches a client without the index layer
/// restating it: the conditions an operator or a client can act on get their own code and reason
/// (`google.rpc.ErrorInfo`, domain "typeahead"); the rest are INTERNAL.
extension StorageError: GRPCStatusConvertible {
    public var grpcStatus: GRPCStatus {
        func info(_ reason: String) -> Google_Rpc_ErrorInfo { Google_Rpc_ErrorInfo(reason: reason, domain: "typeahead") }
        // The write was rolled back: the index serves what it served before.
        if isNoSpace { return GRPCStatus(.resourceExhausted, description, errorInfo: info("NO_SPACE")) }
        if isMapFull { return GRPCStatus(.resourceExhausted, description, errorInfo: info("MAP_FULL")) }
        // Every reader slot is taken for the moment: worth a retry.
        if isReadersFull { return GRPCStatus(.unavailable, description, errorInfo: info("READERS_FULL")) }
        return GRPCStatus(.internal, description)
    }
}
