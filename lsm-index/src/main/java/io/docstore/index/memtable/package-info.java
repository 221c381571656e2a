/**
 * The in-memory table: a lock-free single-writer, many-reader hash table of primitive longs, frozen
 * when full and then read in id order by the flush. Does no I/O.
 */
package io.docstore.index.memtable;
