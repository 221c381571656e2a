package io.docstore.queue.segment;

import io.docstore.queue.format.SegmentFormat;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The queue's segments by number. Thread-safe: readers look segments up while the writer adds a new
 * one at a roll; segments are never removed while the queue is open.
 */
public final class SegmentSet {

  private final ConcurrentSkipListMap<Long, SegmentInfo> byNumber = new ConcurrentSkipListMap<>();

  public void add(SegmentInfo info) {
    byNumber.put(info.number(), info);
  }

  /** The segment with this number, or null. */
  public SegmentInfo get(long number) {
    return byNumber.get(number);
  }

  /** The newest segment, or null if none. */
  public SegmentInfo last() {
    Map.Entry<Long, SegmentInfo> e = byNumber.lastEntry();
    return e == null ? null : e.getValue();
  }

  /** The first segment, or null if none. */
  public SegmentInfo first() {
    Map.Entry<Long, SegmentInfo> e = byNumber.firstEntry();
    return e == null ? null : e.getValue();
  }

  /**
   * The segment that holds (or, for the active one, will hold) {@code sequence}: the last whose
   * base is not above it.
   */
  public SegmentInfo forSequence(long sequence) {
    SegmentInfo found = null;
    for (SegmentInfo s : byNumber.values()) {
      if (s.baseSequence() <= sequence) {
        found = s;
      } else {
        break;
      }
    }
    return found != null ? found : first();
  }

  /** Every segment, oldest first (a copy). */
  public java.util.List<SegmentInfo> all() {
    return java.util.List.copyOf(byNumber.values());
  }

  /** Segments (sealed and active). */
  public int count() {
    return byNumber.size();
  }

  /** Bytes of the segments' blocks: what they hold on disk, headers and footers aside. */
  public long blockBytes() {
    long sum = 0;
    for (SegmentInfo s : byNumber.values()) {
      sum += s.blocksEnd() - SegmentFormat.HEADER_LENGTH;
    }
    return sum;
  }

  public void closeAll() throws IOException {
    IOException first = null;
    for (SegmentInfo s : byNumber.values()) {
      try {
        s.close();
      } catch (IOException e) {
        if (first == null) {
          first = e;
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
