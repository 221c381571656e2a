/**
 * Off-heap caches shared by the index (table pages) and the queue (decoded blocks): {@link
 * io.docstore.io.cache.SlotCache}, fixed-size slots with CLOCK eviction and admission on a key's
 * second miss.
 */
package io.docstore.io.cache;
