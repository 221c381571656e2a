package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.SyncPolicy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QueueReaderTest {

  @TempDir
  Path dir;

  @Test
  void blockCacheAnswersRepeatedReads() throws Exception {
    QueueOptions o = QueueOptions.builder().syncPolicy(SyncPolicy.NONE).blockCacheBytes(1 << 20).build();
    try (Queue q = Queue.open(dir, o)) {
      List<Appended> a = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        a.add(q.writer().append(i, Op.PUT, i, new byte[] {(byte) i}));
      }
      q.writer().flush();
      for (Appended x : a) {
        assertThat(q.reader().get(x.address()).body()).containsExactly((byte) (x.sequence() - 1));
      }
      assertThat(q.stats().blockReads()).isEqualTo(1);
      assertThat(q.stats().blockCacheHits()).isEqualTo(49);
    }
  }

  @Test
  void aThreadReusesTheBlockItReadLast() throws Exception {
    try (Queue q = Queue.open(dir, QueueOptions.builder().syncPolicy(SyncPolicy.NONE).blockSize(256).build())) {
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
    QueueOptions o = QueueOptions.builder().syncPolicy(SyncPolicy.NONE).blockSize(512).segmentSize(8192).build();
    try (Queue q = Queue.open(dir, o)) {
      List<Long> addresses = java.util.Collections.synchronizedList(new ArrayList<>());
      Thread reader = new Thread(() -> {
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
