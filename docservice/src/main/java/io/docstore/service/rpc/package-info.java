/**
 * The binary RPC read API: the wire format ({@link io.docstore.service.rpc.RpcFormat}, spec in
 * {@code docs/formats/rpc.md}), its encoders and decoders (shared with the client), and the Netty
 * {@link io.docstore.service.rpc.RpcServer} that answers batched lookups from a {@link
 * io.docstore.service.DocumentSource}. It owns framing, limits and per-document status; it must not
 * know how documents are stored, must never block an event loop on a lookup, and has no write
 * paths.
 */
package io.docstore.service.rpc;
