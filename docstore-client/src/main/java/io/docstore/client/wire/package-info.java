/**
 * The binary RPC wire format, version 1 ({@link io.docstore.client.wire.RpcFormat}, spec in {@code
 * docs/formats/rpc.md}): frame constants, encoders ({@link io.docstore.client.wire.RpcFrames}), the
 * frame splitter ({@link io.docstore.client.wire.RpcFrameDecoder}) and the response decoder ({@link
 * io.docstore.client.wire.RpcResponse}). Shared by the client and by the server in docservice
 * ({@code io.docstore.service.rpc}), so both speak exactly the same bytes. It owns framing, limits
 * checked while decoding and error codes; it knows nothing of connections, balancing or storage.
 */
package io.docstore.client.wire;
