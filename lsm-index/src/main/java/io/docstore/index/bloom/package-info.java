/**
 * Blocked bloom filters stored next to each table, and the pager that keeps the most useful filter
 * pages resident off-heap within one shared memory budget. A key's probes all fall in one 4 KiB
 * page, the unit of loading, residency and checksum; in format version 2, which this build writes,
 * they also fall in one 64-byte block of that page, so a lookup reads one cache line. Version 1
 * files are still read. A non-resident page answers "maybe"; nothing here may ever answer a false
 * "no". Knows nothing of tables, the WAL or the manifest.
 */
package io.docstore.index.bloom;
