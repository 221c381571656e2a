/**
 * {@link io.docstore.service.client.DocClient}, the Java client of the binary RPC: persistent
 * connections to the primary and replicas, Boxcar-style slot balancing, one retry elsewhere,
 * reconnection. It depends only on the wire format in {@code io.docstore.service.rpc} and on {@link
 * io.docstore.service.Document}; it must not depend on the store or the server side, so it can be
 * used on its own.
 */
package io.docstore.service.client;
