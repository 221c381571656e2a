/**
 * The binary RPC read API's server: the Netty {@link io.docstore.service.rpc.RpcServer} that
 * answers batched lookups, and how far reads see a partition of the update log (POSITION), from a
 * {@link io.docstore.service.DocumentSource}, speaking the wire format of {@code
 * io.docstore.client.wire} (module docstore-client, spec in {@code docs/formats/rpc.md}). It owns
 * connection handling, server limits and per-document status; it must not know how documents are
 * stored, must never block an event loop on a lookup, and has no write paths.
 */
package io.docstore.service.rpc;
