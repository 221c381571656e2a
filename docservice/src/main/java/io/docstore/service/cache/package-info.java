/**
 * The cache tier in front of the disk path: {@link io.docstore.service.cache.OffHeapDocCache} (off
 * the heap, bounded by bytes, the embedded default) or {@link
 * io.docstore.service.cache.MemcachedDocCache} (real memcached servers hashed consistently). The
 * cache is never the source of truth: memcached values carry the document's ID, sequence number and
 * a checksum, and anything that does not verify is a miss; fills never overwrite and ingest writes
 * always do, so no stale version is served. A cache failure is never an error for the caller. This
 * package must not read the store.
 */
package io.docstore.service.cache;
