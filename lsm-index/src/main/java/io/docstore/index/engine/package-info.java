/**
 * The engine behind {@code LsmIndex}: snapshots and reference counting, the write path, the read
 * path, background flush with size-tiered compaction, and recovery. Internal: callers use the
 * facade in {@code io.docstore.index}. Must not know what a value means.
 */
package io.docstore.index.engine;
