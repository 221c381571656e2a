package io.docstore.queue.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.io.UnsupportedFormatException;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.format.BlockFormat;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicationManifestTest {

  @TempDir Path dir;

  private static final ReplicationManifest SAMPLE =
      new ReplicationManifest(3, 101, 9000, 150, 7, 0x1234abcd, 1_700_000_000_000L);

  @Test
  void roundTripsThroughTheFile() throws Exception {
    SAMPLE.publish(FileSystem.real(), dir);
    assertThat(ReplicationManifest.read(FileSystem.real(), dir)).isEqualTo(SAMPLE);
    assertThat(ReplicationManifest.read(FileSystem.real(), dir.resolve("absent"))).isNull();
  }

  @Test
  void everyFlippedBitAndEveryTruncationIsCorruption() {
    byte[] good = SAMPLE.encode();
    for (int i = 0; i < good.length; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] bad = good.clone();
        bad[i] ^= (byte) (1 << bit);
        assertThatThrownBy(() -> ReplicationManifest.decode(dir, bad))
            .isInstanceOf(CorruptionException.class);
      }
    }
    for (int len = 0; len < good.length; len++) {
      byte[] shortCopy = java.util.Arrays.copyOf(good, len);
      assertThatThrownBy(() -> ReplicationManifest.decode(dir, shortCopy))
          .isInstanceOf(CorruptionException.class);
    }
    assertThatThrownBy(() -> ReplicationManifest.decode(dir, new byte[good.length]))
        .isInstanceOf(CorruptionException.class);
  }

  @Test
  void aNewerVersionIsUnsupportedNotCorrupt() {
    ByteBuffer b = ByteBuffer.wrap(SAMPLE.encode());
    b.putInt(io.docstore.queue.format.StateFileLayout.FORMAT_VERSION, 2);
    b.putInt(ManifestFormat.CRC, io.docstore.io.Checksums.crc32c(b.array(), 0, ManifestFormat.CRC));
    assertThatThrownBy(() -> ReplicationManifest.decode(dir, b.array()))
        .isInstanceOf(UnsupportedFormatException.class);
  }

  @Test
  void publisherDeclaresOnlyDurableWholeBlocksAndFollowsRolls() throws Exception {
    QueueOptions o = QueueOptions.builder().blockSize(512).segmentSize(8 * 1024).build();
    try (DocQueue q = DocQueue.open(dir.resolve("q"), o);
        ManifestPublisher pub =
            new ManifestPublisher(
                FileSystem.real(),
                q.directory(),
                q::durableSequence,
                BlockFormat.HEADER_LENGTH + 512,
                0)) {
      assertThat(pub.publishOnce().durableLength())
          .isEqualTo(io.docstore.queue.format.SegmentFormat.HEADER_LENGTH);
      long last = 0;
      java.util.Random rnd = new java.util.Random(7);
      for (int i = 0; i < 400; i++) {
        byte[] body = new byte[60];
        rnd.nextBytes(body);
        last = q.writer().append(i, Op.PUT, 1, body).sequence();
      }
      q.writer().flush();
      ReplicationManifest before = pub.publishOnce();
      // Nothing of the active segment is fsynced yet: only the sealed segments (forced by the seal)
      // count.
      assertThat(before.blockCount()).isZero();
      assertThat(before.lastSequence()).isEqualTo(before.baseSequence() - 1);
      q.writer().awaitDurable(last);
      ReplicationManifest m = pub.publishOnce();
      assertThat(m.segment()).isGreaterThan(1);
      assertThat(m.lastSequence()).isEqualTo(last);
      assertThat(ReplicationManifest.read(FileSystem.real(), q.directory())).isEqualTo(m);
      assertThat(pub.publishOnce()).isSameAs(m); // unchanged: not rewritten
    }
  }

  @Test
  void chainDependsOnOrderAndValues() {
    int a = BlockCrcChain.next(BlockCrcChain.next(BlockCrcChain.START, 1), 2);
    int b = BlockCrcChain.next(BlockCrcChain.next(BlockCrcChain.START, 2), 1);
    assertThat(a).isNotEqualTo(b);
    assertThat(BlockCrcChain.next(BlockCrcChain.START, 0)).isNotZero();
  }
}
