/**
 * The docstore queue's facade: {@link io.docstore.queue.DocQueue} opens a directory of segments and
 * hands out the {@link io.docstore.queue.QueueWriter}, {@link io.docstore.queue.QueueReader} and
 * {@link io.docstore.queue.QueueTailer}. The public record types here are the contract other
 * modules code against. It must not know about the LSM index or the service; addresses are opaque
 * positive longs to everyone else.
 */
package io.docstore.queue;
