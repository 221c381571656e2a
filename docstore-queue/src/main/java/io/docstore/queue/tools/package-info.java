/**
 * Operator tools as library classes (the CLI wires them): {@link
 * io.docstore.queue.tools.SegmentDump} prints a segment file, {@link
 * io.docstore.queue.tools.QueueVerifier} checks a queue directory. Read-only: they must never
 * modify, truncate or repair a file.
 */
package io.docstore.queue.tools;
