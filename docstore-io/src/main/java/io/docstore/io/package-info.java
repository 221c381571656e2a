/**
 * The small shared floor under every docstore module: the file-system seam through which every
 * durable file operation goes ({@link io.docstore.io.FileSystem}), its fault-injecting twin for
 * crash and fault tests (in the test jar, {@code FaultInjectingFileSystem}), checksums, the
 * corruption error type, sync policies with group commit, atomic publication of small state files,
 * named kill points for crash tests, and the two native calls made through JNA: read-only mappings
 * advised for random access ({@link io.docstore.io.MappedFile}, with {@link
 * io.docstore.io.ColdReads} judging when reads through them wait for the disk) and lower CPU
 * priorities for background threads ({@link io.docstore.io.ThreadPriority}); and the memory this
 * process may use ({@link io.docstore.io.MemoryLimit}) with the default sizes of the caches above
 * it ({@link io.docstore.io.MemoryBudgets}); and a loop shared with helper threads for per-item
 * work of a batch ({@link io.docstore.io.ParallelChunks}).
 *
 * <p>It owns no file format and knows nothing of documents, queues or indexes beyond the names of
 * the caches whose default sizes it shares out (one table for the index library and the service,
 * which only meet here). It must not depend on any other docstore module.
 */
package io.docstore.io;
