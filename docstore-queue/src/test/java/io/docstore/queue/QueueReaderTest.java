package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.ColdReads;
import io.docstore.io.SyncPolicy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QueueReaderTest {

  @TempDir Path dir;

  /**
   * Records stored one by one (with a dictionary) are cached whole, decompressed, by address: a
   * second read of one answers from the cache without reading its block, with the same record.
   */
  @Test
  void decompressedRecordsAreCachedByAddress() throws Exception {
    QueueOptions o =
        QueueOptions.builder()
            .syncPolicy(SyncPolicy.NONE)
            .segmentSize(256 * 1024)
            .dictionaryBytes(4096)
            .dictionarySamples(50)
            .blockCacheBytes(1 << 20)
            .build();
    try (DocQueue q = DocQueue.open(dir, o)) {
      List<Appended> a = new ArrayList<>();
      List<byte[]> bodies = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        byte[] body =
            ("{\"id\":"
                    + i
                    + ",\"title\":\"Storage engineer "
                    + (i % 17)
                    + "\",\"city\":\"Austin\",\"text\":\""
                    + "we keep documents small and fast to read. ".repeat(1 + i % 5)
                    + "\"}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        bodies.add(body);
        a.add(q.writer().append(i, Op.PUT, 1000 + i, body));
      }
      q.writer().flush();
      int i = 390; // long after the dictionary was trained: in a block of records stored one by one
      for (int round = 0; round < 3; round++) {
        QueueRecord r = q.reader().get(a.get(i).address());
        assertThat(r.body()).isEqualTo(bodies.get(i));
        assertThat(r.id()).isEqualTo(i);
        assertThat(r.sequence()).isEqualTo(a.get(i).sequence());
        assertThat(r.acceptedAtMillis()).isEqualTo(1000 + i);
        assertThat(r.op()).isEqualTo(Op.PUT);
      }
      QueueStats s = q.stats();
      // Read from its block once (the cache, not full, admits it then), then from the cache twice.
      assertThat(s.blockReads()).as(s.toString()).isEqualTo(1);
      assertThat(s.blockCacheHits()).isEqualTo(2);
    }
  }

  @Test
  void blockCacheAnswersRepeatedReads() throws Exception {
    QueueOptions o =
        QueueOptions.builder()
            .syncPolicy(SyncPolicy.NONE)
            .blockSize(256)
            .blockCacheBytes(1 << 20)
            .build();
    try (DocQueue q = DocQueue.open(dir, o)) {
      List<Appended> a = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        a.add(
            q.writer()
                .append(i, Op.PUT, 1000 + i, i == 7 ? new byte[0] : new byte[] {(byte) i, 2, 3}));
      }
      a.add(q.writer().append(50, Op.DELETE, 1050, new byte[0]));
      q.writer().flush();
      // The cache is asked first: every read after the first of each block is a hit, which copies
      // out just that record. (These small blocks compress; raw ones read through the mapping are
      // not cached, see QueueReader.)
      for (int round = 0; round < 3; round++) {
        for (int i : new int[] {0, 50, 7, 25}) {
          QueueRecord r = q.reader().get(a.get(i).address());
          assertThat(r.id()).isEqualTo(i);
          assertThat(r.sequence()).isEqualTo(a.get(i).sequence());
          assertThat(r.acceptedAtMillis()).isEqualTo(1000 + i);
          assertThat(r.op()).isEqualTo(i == 50 ? Op.DELETE : Op.PUT);
          assertThat(r.body())
              .isEqualTo(i == 50 || i == 7 ? new byte[0] : new byte[] {(byte) i, 2, 3});
          assertThat(r.address()).isEqualTo(a.get(i).address());
        }
      }
      QueueStats s = q.stats();
      assertThat(s.blockReads()).isEqualTo(3); // 0 and 7 share the first block
      // 7 in round 0, then all four in rounds 1 and 2.
      assertThat(s.blockCacheHits()).isEqualTo(9);
      assertThat(s.blockCacheMisses()).isEqualTo(3);
      assertThat(s.blockCacheBytes()).isPositive().isLessThanOrEqualTo(s.blockCacheCapacityBytes());
      long inFirst = a.get(7).address();
      long pastEnd = inFirst + 200; // same block, a record index the block does not have
      q.reader().get(a.get(50).address());
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> q.reader().get(pastEnd))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("names record");
    }
  }

  /** A body of 4,000 random (incompressible) bytes determined by {@code i}. */
  private static byte[] body(int i) {
    byte[] b = new byte[4000];
    new java.util.SplittableRandom(i).nextBytes(b);
    return b;
  }

  @Test
  void mappedAndPositionalReadsServeTheSameRecords() throws Exception {
    // 72 MB of records in one active segment: its first 64 MiB chunk is mapped once written, the
    // rest is read positionally until that chunk is whole or the segment is sealed.
    int n = 18_000;
    long[] addresses = new long[n];
    QueueOptions mapped = QueueOptions.builder().syncPolicy(SyncPolicy.NONE).build();
    try (DocQueue q = DocQueue.open(dir, mapped)) {
      for (int i = 0; i < n; i++) {
        addresses[i] = q.writer().append(i, Op.PUT, i, body(i)).address();
      }
      q.writer().flush();
    }
    int[] picks = new java.util.SplittableRandom(7).ints(3_000, 0, n).toArray();
    for (boolean useMapping : new boolean[] {true, false}) {
      try (DocQueue q =
          DocQueue.open(
              dir,
              QueueOptions.builder().syncPolicy(SyncPolicy.NONE).mappedReads(useMapping).build())) {
        for (int i : picks) {
          QueueRecord r = q.reader().get(addresses[i]);
          assertThat(r.id()).isEqualTo(i);
          assertThat(r.body()).isEqualTo(body(i));
        }
        QueueStats s = q.stats();
        if (useMapping && io.docstore.io.MappedFile.supported()) {
          assertThat(s.blockReadsMapped()).as("reads in the whole first chunk").isPositive();
          assertThat(s.blockReadsMapped())
              .as("reads past it are positional")
              .isLessThan(s.blockReads());
        } else {
          assertThat(s.blockReadsMapped()).isZero();
        }
      }
    }
  }

  @Test
  void aColdMappedReadSendsTheThreadToPositionalReadsForAWhile() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(io.docstore.io.MappedFile.supported());
    QueueOptions o =
        QueueOptions.builder()
            .syncPolicy(SyncPolicy.NONE)
            .blockSize(256)
            .segmentSize(64 << 10)
            .build();
    try (DocQueue q = DocQueue.open(dir, o)) {
      List<Long> a = new ArrayList<>();
      for (int i = 0; i < 4000; i++) {
        a.add(
            q.writer().append(i, Op.PUT, i, new byte[] {(byte) i, 1, 2, 3, 4, 5, 6, 7}).address());
      }
      q.writer().flush();
      assertThat(q.stats().segmentsSealed()).isPositive();
      // Threshold 0 and a fault count that grows at every look: every mapped read after the
      // thread's first counts as one that waited for the disk.
      java.util.concurrent.atomic.AtomicLong faults = new java.util.concurrent.atomic.AtomicLong();
      QueueReader everyReadCold =
          q.reader(new ColdReads(0, ColdReads.BACKOFF, 1, faults::incrementAndGet));
      int reads = ColdReads.BACKOFF + 3;
      long mappedBefore = q.stats().blockReadsMapped();
      for (int i = 0; i < reads; i++) {
        long address =
            a.get((i * 17) % 1000); // sealed segments only; 17 records apart: never the same block
        assertThat(everyReadCold.get(address).id()).isEqualTo((i * 17) % 1000);
      }
      QueueStats s = q.stats();
      assertThat(s.blockReadsMapped() - mappedBefore)
          .as(
              "the first read (which takes the thread's fault count), the second (cold), the probe after the positional run")
          .isEqualTo(3);
      assertThat(s.blockReadsMappedCold()).isEqualTo(2);
      // Slow reads without a major fault (a descheduled thread) are not cold.
      QueueReader slowButWarm = q.reader(new ColdReads(0, ColdReads.BACKOFF, 1, () -> 7));
      long warmBefore = q.stats().blockReadsMapped();
      for (int i = 0; i < 100; i++) {
        slowButWarm.get(a.get((i * 17) % 1000));
      }
      assertThat(q.stats().blockReadsMapped() - warmBefore).isEqualTo(100);
      // The queue's own reader (real threshold and fault count) reads these resident blocks
      // through the mapping, every one unless a page of them had to come from the disk.
      long before = q.stats().blockReadsMapped();
      long coldBefore = q.stats().blockReadsMappedCold();
      for (int i = 0; i < 100; i++) {
        q.reader().get(a.get((i * 17) % 1000));
      }
      long mapped = q.stats().blockReadsMapped() - before;
      assertThat(mapped).isPositive();
      if (q.stats().blockReadsMappedCold() == coldBefore) {
        assertThat(mapped).isEqualTo(100);
      }
    }
  }

  @Test
  void aThreadReusesTheBlockItReadLast() throws Exception {
    try (DocQueue q =
        DocQueue.open(
            dir, QueueOptions.builder().syncPolicy(SyncPolicy.NONE).blockSize(256).build())) {
      List<Appended> a = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        a.add(q.writer().append(i, Op.PUT, i, new byte[] {(byte) i, 1, 2, 3, 4, 5, 6, 7}));
      }
      q.writer().flush();
      long before = q.stats().blockReads();
      q.reader().get(a.get(0).address());
      q.reader().get(a.get(1).address());
      assertThat(q.stats().blockReads()).isEqualTo(before + 1);
      q.reader().get(a.get(39).address());
      q.reader().get(a.get(0).address());
      assertThat(q.stats().blockReads()).isEqualTo(before + 3);
      assertThat(q.reader().get(a.get(2).address()).body()[0]).isEqualTo((byte) 2);
    }
  }

  @Test
  void readsConcurrentlyWithTheWriter() throws Exception {
    QueueOptions o =
        QueueOptions.builder().syncPolicy(SyncPolicy.NONE).blockSize(512).segmentSize(8192).build();
    try (DocQueue q = DocQueue.open(dir, o)) {
      List<Long> addresses = java.util.Collections.synchronizedList(new ArrayList<>());
      Thread reader =
          new Thread(
              () -> {
                try {
                  int seen = 0;
                  while (seen < 2000) {
                    int n = addresses.size();
                    if (n > 0) {
                      long addr = addresses.get(n - 1);
                      assertThat(q.reader().get(addr).id()).isEqualTo(n - 1);
                      seen++;
                    } else {
                      Thread.onSpinWait();
                    }
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      reader.start();
      for (int i = 0; i < 3000; i++) {
        Appended a = q.writer().append(i, Op.PUT, i, new byte[i % 100]);
        q.writer().flush();
        addresses.add(a.address());
      }
      reader.join();
    }
  }
}
