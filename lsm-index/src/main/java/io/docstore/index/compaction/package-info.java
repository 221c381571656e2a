/**
 * Compaction policy and the streaming merge: the picker is a pure function of index sizes; the
 * merging iterator combines sorted sources newest-first. Does no file I/O of its own and must not
 * touch the manifest; the engine applies the picker's decisions.
 */
package io.docstore.index.compaction;
