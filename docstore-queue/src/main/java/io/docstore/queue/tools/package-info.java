/**
 * Operator tools as library classes (the CLI wires them): {@link
 * io.docstore.queue.tools.SegmentDump} prints a segment file, {@link
 * io.docstore.queue.tools.QueueVerifier} checks a queue directory, {@link
 * io.docstore.queue.tools.SalvageScan} reads every record that verifies past damage (for a rebuild
 * of the index that skips damage), {@link io.docstore.queue.tools.SegmentCopyCheck} judges a copy
 * of a damaged sealed segment. Read-only: they must never modify, truncate or repair a file (the
 * CLI's repair replaces a file itself, once a copy passed {@link
 * io.docstore.queue.tools.SegmentCopyCheck}).
 */
package io.docstore.queue.tools;
