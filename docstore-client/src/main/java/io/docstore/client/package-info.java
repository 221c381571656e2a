/**
 * The Java client of docstore, usable without the rest of the service: {@link
 * io.docstore.client.DocClient} reads over the binary RPC (persistent connections to the primary
 * and replicas, Boxcar-style slot balancing, one retry elsewhere, reconnection) and writes over the
 * primary's admin HTTP port; {@link io.docstore.client.Document} is what a read returns and {@link
 * io.docstore.client.DocClientException} (with its {@link
 * io.docstore.client.DocClientException.Reason}) what a failure throws. It owns the public API and
 * the client's connection handling; it depends only on the wire format in {@link
 * io.docstore.client.wire}, Netty, SLF4J and the JDK, and must not depend on the store or the
 * server side.
 */
package io.docstore.client;
