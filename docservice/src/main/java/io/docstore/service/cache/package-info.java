/**
 * The cache tier in front of the disk path: an in-process cache bounded by bytes (the embedded
 * default) or memcached servers hashed consistently. The cache is never the source of truth: every
 * entry carries the document's sequence number and a checksum, and a mismatch counts as a miss.
 */
package io.docstore.service.cache;
