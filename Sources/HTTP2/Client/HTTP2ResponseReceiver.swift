/// What gets the outcome of requests sent with ``HTTP2ClientConnection/send(_:to:tag:)``: an object
/// of the connection's loop, called there once per request, the request told apart by its tag.
///
/// Why not a completion closure: each closure, with its captures, is an allocation per request,
/// and a coordinator sends four requests per client call. An object that sends many requests
/// (a fan-out's shard call, one per shard) receives all their answers for nothing.
public protocol HTTP2ResponseReceiver: AnyObject {
    /// The complete response, or why there is none (``HTTP2ClientError``); on the connection's loop.
    func received(_ result: Result<HTTP2Response, HTTP2ClientError>, tag: Int)
}
