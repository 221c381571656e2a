/**
 * On-disk index tables: the writer that streams sorted entries into a file, the reader that looks
 * an id up with one page read, and the verifying sequential iterator. Tables are immutable once
 * written. Knows nothing of the WAL, the manifest or compaction policy.
 */
package io.docstore.index.table;
