package io.docstore.service.cache;

/** Counters of a {@link DocCache} since it started. */
public record CacheStats(long hits, long misses, long fills, long sets, long errors, long bytes) {

  /** hits / (hits + misses), 0 when nothing was asked yet. */
  public double hitRatio() {
    long total = hits + misses;
    return total == 0 ? 0 : (double) hits / total;
  }
}
