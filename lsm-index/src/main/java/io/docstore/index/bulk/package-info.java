/**
 * Bulk loading: {@link io.docstore.index.bulk.SortedRun} gathers (id, value) pairs in memory, sorts
 * them (stable radix sort, the last value of an id wins) and hands them to {@link
 * io.docstore.index.LsmIndex#ingestSorted}, which writes them as one index file off the WAL and
 * memory-table path.
 */
package io.docstore.index.bulk;
