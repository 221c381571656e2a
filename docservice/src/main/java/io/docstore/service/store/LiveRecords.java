package io.docstore.service.store;

import io.docstore.index.IndexCursor;
import io.docstore.index.LsmIndex;
import io.docstore.queue.SegmentSummary;
import io.docstore.queue.format.Address;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How many index entries point into each queue segment: the segment's live records. Everything else
 * in a segment is garbage that space reclamation can give back: overwritten versions, deletes (a
 * tombstone has no address, so a delete counts as garbage here; the GC keeps the ones older
 * versions could show through) and, later, expired versions. See docs/design/space-reclamation.md,
 * "Garbage accounting".
 *
 * <p>Kept exact by the one index writer: each entry it replaces takes one from the segment of the
 * old address, each address it writes adds one to its segment ({@link Indexer}). Built at open by
 * one scan of the index, so it equals the index whatever a crash left (re-applying a record the
 * index already holds takes one and adds one to the same segment).
 *
 * <p>Thread-safe: the indexer changes it, stats and metrics read it.
 */
public final class LiveRecords {

  /** Live records by segment number. */
  private long[] live = new long[64];

  private long total;

  /** Counts the entries of {@code index} (a scan of its live entries). */
  public static LiveRecords scan(LsmIndex index) throws IOException {
    LiveRecords r = new LiveRecords();
    try (IndexCursor c = index.scan(0)) {
      while (c.next()) {
        long v = c.value();
        if (v > 0) {
          r.add(Address.segment(v), 1);
        }
      }
    }
    return r;
  }

  private void add(long segment, long delta) {
    int s = (int) segment;
    if (s >= live.length) {
      live = Arrays.copyOf(live, Math.max(s + 1, live.length * 2));
    }
    live[s] += delta;
    total += delta;
  }

  /**
   * One applied batch: entry {@code i} replaced {@code previous[i]} (an address, or a negative
   * value for none or a tombstone) by {@code next[i]} (likewise).
   */
  synchronized void replaced(long[] previous, long[] next, int n) {
    for (int i = 0; i < n; i++) {
      if (previous[i] > 0) {
        add(Address.segment(previous[i]), -1);
      }
      if (next[i] > 0) {
        add(Address.segment(next[i]), 1);
      }
    }
  }

  /** Live records in {@code segment}. */
  public synchronized long live(long segment) {
    return segment < live.length ? live[(int) segment] : 0;
  }

  /** Live records in every segment. */
  public synchronized long total() {
    return total;
  }

  /** A segment with its live share: what space reclamation would give back by relocating it. */
  public record SegmentLiveness(SegmentSummary segment, long liveRecords) {

    /** Live records over records (1 for a segment without records). */
    public double liveFraction() {
      long records = segment.records();
      return records == 0 ? 1 : (double) liveRecords / records;
    }

    /**
     * Bytes of live records, estimated as the segment's bytes times its live fraction (a record's
     * size is not kept per address).
     */
    public long liveBytesEstimate() {
      return Math.round(segment.blockBytes() * liveFraction());
    }
  }

  /** Each of {@code segments} with its live records. */
  public synchronized List<SegmentLiveness> of(List<SegmentSummary> segments) {
    List<SegmentLiveness> out = new ArrayList<>(segments.size());
    for (SegmentSummary s : segments) {
      out.add(new SegmentLiveness(s, live(s.number())));
    }
    return out;
  }

  /**
   * The queue's garbage for {@code /stats}: records and live records over {@code segments}, their
   * bytes and estimated live bytes, the space amplification (stored bytes over live stored bytes)
   * and the ten sealed segments with the lowest live share.
   */
  public Map<String, Object> report(List<SegmentSummary> segments) {
    List<SegmentLiveness> all = of(segments);
    long records = 0;
    long live = 0;
    long bytes = 0;
    long liveBytes = 0;
    for (SegmentLiveness s : all) {
      records += s.segment().records();
      live += s.liveRecords();
      bytes += s.segment().blockBytes();
      liveBytes += s.liveBytesEstimate();
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("records", records);
    m.put("liveRecords", live);
    m.put("bytes", bytes);
    m.put("liveBytesEstimate", liveBytes);
    m.put("spaceAmplification", liveBytes == 0 ? 0.0 : (double) bytes / liveBytes);
    List<Map<String, Object>> worst = new ArrayList<>();
    all.stream()
        .filter(s -> s.segment().sealed())
        .sorted(Comparator.comparingDouble(SegmentLiveness::liveFraction))
        .limit(10)
        .forEach(
            s -> {
              Map<String, Object> e = new LinkedHashMap<>();
              e.put("segment", s.segment().number());
              e.put("records", s.segment().records());
              e.put("liveRecords", s.liveRecords());
              e.put("bytes", s.segment().blockBytes());
              e.put("liveBytesEstimate", s.liveBytesEstimate());
              worst.add(e);
            });
    m.put("mostGarbage", worst);
    return m;
  }
}
