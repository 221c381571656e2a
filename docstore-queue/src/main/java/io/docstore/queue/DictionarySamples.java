package io.docstore.queue;

import io.docstore.queue.block.RecordDictionary;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies of the first bodies a queue appends, kept until there are enough to train its zstd
 * dictionary ({@link QueueOptions#dictionarySamples}), then trained once, inline (about 90 ms for
 * 1,000 job documents of 1 KB). Not thread-safe: the writer's, under its lock.
 */
final class DictionarySamples {

  private static final Logger LOG = LoggerFactory.getLogger(DictionarySamples.class);

  private final int wanted;
  private final int dictionaryBytes;
  private List<byte[]> samples = new ArrayList<>();

  DictionarySamples(int wanted, int dictionaryBytes) {
    this.wanted = wanted;
    this.dictionaryBytes = dictionaryBytes;
  }

  /** Whether more bodies are wanted (until the training). */
  boolean wanted() {
    return samples != null;
  }

  /**
   * Keeps a copy of {@code body[off, off+len)} while more are wanted. With the last one wanted,
   * trains and returns the dictionary (null if zstd could make none from them; then none is tried
   * again); else returns null.
   */
  RecordDictionary add(byte[] body, int off, int len) {
    if (samples == null || len == 0) {
      return null;
    }
    samples.add(Arrays.copyOfRange(body, off, off + len));
    if (samples.size() < wanted) {
      return null;
    }
    List<byte[]> s = samples;
    samples = null;
    long started = System.nanoTime();
    RecordDictionary d = RecordDictionary.train(s, dictionaryBytes);
    long ms = (System.nanoTime() - started) / 1_000_000;
    if (d == null) {
      LOG.info(
          "queue: no zstd dictionary could be trained from the first {} bodies; blocks stay LZ4-compressed",
          s.size());
    } else {
      LOG.info(
          "queue: trained a zstd dictionary of {} bytes from the first {} bodies in {} ms",
          d.length(),
          s.size(),
          ms);
    }
    return d;
  }
}
