/**
 * The manifest: which tables are live, which WALs are obsolete, the next file number; encoded,
 * checksummed and published atomically. Knows nothing of how tables are read or merged.
 */
package io.docstore.index.manifest;
