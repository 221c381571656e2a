package io.docstore.queue.block;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bounded cache of decoded blocks, by raw payload bytes, least recently used evicted first. Keys
 * are block keys ({@link io.docstore.queue.format.Address#blockKey}). Off by default: the OS page
 * cache already holds the stored blocks, and a hit here only saves a positional read, a checksum
 * and a decompression (see docs/decisions.md for the measurement).
 *
 * <p>Thread-safe (one lock; the critical sections are a map lookup or insert). Cached blocks are
 * immutable copies.
 */
public final class BlockCache {

  private final long maxBytes;
  private final LinkedHashMap<Long, DecodedBlock> map = new LinkedHashMap<>(256, 0.75f, true);
  private long bytes;

  public BlockCache(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  public synchronized DecodedBlock get(long key) {
    return map.get(key);
  }

  /** Caches a copy of {@code block} unless it alone exceeds the budget. */
  public void put(long key, DecodedBlock block) {
    if (block.rawLength() > maxBytes) {
      return;
    }
    DecodedBlock copy = block.copy();
    synchronized (this) {
      DecodedBlock old = map.put(key, copy);
      if (old != null) {
        bytes -= old.rawLength();
      }
      bytes += copy.rawLength();
      var it = map.entrySet().iterator();
      while (bytes > maxBytes && it.hasNext()) {
        Map.Entry<Long, DecodedBlock> e = it.next();
        bytes -= e.getValue().rawLength();
        it.remove();
      }
    }
  }

  public synchronized long bytes() {
    return bytes;
  }
}
