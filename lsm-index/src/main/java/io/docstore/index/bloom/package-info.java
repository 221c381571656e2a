/**
 * Blocked bloom filters stored next to each table, and the pager that keeps the most useful filter
 * pages resident off-heap within one shared memory budget. A non-resident page answers "maybe";
 * nothing here may ever answer a false "no". Knows nothing of tables, the WAL or the manifest.
 */
package io.docstore.index.bloom;
