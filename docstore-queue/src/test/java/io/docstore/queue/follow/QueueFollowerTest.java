package io.docstore.queue.follow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.io.TestSupport;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.format.Address;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.replication.ManifestPublisher;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The follower over a copy made the way rsync makes it (whole new file, renamed over the old one),
 * against a model of what the primary acknowledged. The rsync binary itself is exercised by the
 * replica tests in docservice.
 */
class QueueFollowerTest {

  private static final int BLOCK = 1024;
  private static final int EXPECTED = BlockFormat.HEADER_LENGTH + BLOCK;

  @TempDir Path tmp;
  private Path primaryDir;
  private Path replicaDir;
  private DocQueue queue;
  private ManifestPublisher publisher;
  private final List<byte[]> bodies = new ArrayList<>();
  private final List<QueueRecord> got = new ArrayList<>();
  private Random rnd;

  @BeforeEach
  void open() throws Exception {
    rnd = new Random(TestSupport.seed("QueueFollowerTest"));
    primaryDir = tmp.resolve("primary");
    replicaDir = tmp.resolve("replica");
    Files.createDirectories(replicaDir);
    queue =
        DocQueue.open(
            primaryDir, QueueOptions.builder().blockSize(BLOCK).segmentSize(16 * 1024).build());
    publisher =
        new ManifestPublisher(FileSystem.real(), primaryDir, queue::durableSequence, EXPECTED, 0);
  }

  @org.junit.jupiter.api.AfterEach
  void close() throws Exception {
    publisher.close();
    queue.close();
  }

  private long write(int n) throws Exception {
    long last = 0;
    for (int i = 0; i < n; i++) {
      byte[] body = new byte[50 + rnd.nextInt(300)];
      rnd.nextBytes(body);
      boolean delete = bodies.size() > 10 && rnd.nextInt(10) == 0;
      last =
          queue
              .writer()
              .append(
                  bodies.size(),
                  delete ? Op.DELETE : Op.PUT,
                  System.currentTimeMillis(),
                  delete ? new byte[0] : body)
              .sequence();
      bodies.add(delete ? new byte[0] : body);
    }
    queue.writer().awaitDurable(last);
    publisher.publishOnce();
    return last;
  }

  /**
   * What rsync does: the manifest first (names sort that way), then each segment as a whole new
   * file renamed in.
   */
  private void pull() throws Exception {
    List<Path> files;
    try (Stream<Path> s = Files.list(primaryDir)) {
      files = s.sorted().toList();
    }
    for (Path f : files) {
      String name = f.getFileName().toString();
      if (!name.equals("replication.manifest") && SegmentFileName.parse(f).isEmpty()) {
        continue;
      }
      Path target = replicaDir.resolve(name);
      if (Files.exists(target)
          && Files.size(target) == Files.size(f)
          && Files.mismatch(target, f) == -1) {
        continue;
      }
      Path temp = replicaDir.resolve("." + name + ".Xy12Zw");
      Files.copy(f, temp, StandardCopyOption.REPLACE_EXISTING);
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
    try (Stream<Path> s = Files.list(replicaDir)) {
      for (Path r : s.toList()) {
        if (!Files.exists(primaryDir.resolve(r.getFileName()))) {
          Files.delete(r);
        }
      }
    }
  }

  private void checkModel(long through) {
    assertThat(got).hasSize((int) through);
    for (int i = 0; i < through; i++) {
      QueueRecord r = got.get(i);
      assertThat(r.sequence()).isEqualTo(i + 1);
      assertThat(r.id()).isEqualTo(i);
      assertThat(r.body()).isEqualTo(bodies.get(i));
    }
  }

  @Test
  void ingestsEverythingDeclaredDurableInOrderAcrossSegments() throws Exception {
    try (QueueFollower f =
        new QueueFollower(FileSystem.real(), replicaDir, FollowPoint.START, EXPECTED)) {
      assertThat(f.poll(got::add).records()).isZero();
      long last = write(300);
      pull();
      assertThat(f.poll(got::add).error()).isNull();
      checkModel(last);
      assertThat(Files.list(replicaDir).anyMatch(p -> p.toString().endsWith(".sealed"))).isTrue();
      // Appended and copied but not yet declared durable: not ingested.
      for (int i = 0; i < 5; i++) {
        queue.writer().append(bodies.size(), Op.PUT, 1, new byte[] {1});
        bodies.add(new byte[] {1});
      }
      queue.writer().flush();
      pull();
      f.poll(got::add);
      checkModel(last);
      last = write(200);
      pull();
      f.poll(got::add);
      checkModel(last);
      for (QueueRecord r : got) {
        QueueRecord again = f.read(r.address());
        assertThat(again.id()).isEqualTo(r.id());
        assertThat(again.body()).isEqualTo(r.body());
      }
      assertThatThrownBy(
              () -> f.read(Address.of(f.point().segment() + 1, SegmentFormat.HEADER_LENGTH, 0)))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void resumesFromAPersistedPoint() throws Exception {
    long first = write(150);
    pull();
    FollowPoint saved;
    try (QueueFollower f =
        new QueueFollower(FileSystem.real(), replicaDir, FollowPoint.START, EXPECTED)) {
      f.poll(got::add);
      saved = f.point();
      saved.publish(FileSystem.real(), tmp.resolve("point"), 1);
    }
    checkModel(first);
    long last = write(150);
    pull();
    FollowPoint loaded = FollowPoint.read(FileSystem.real(), tmp.resolve("point"));
    assertThat(loaded).isEqualTo(saved);
    try (QueueFollower f = new QueueFollower(FileSystem.real(), replicaDir, loaded, EXPECTED)) {
      f.poll(got::add);
    }
    checkModel(last);
  }

  @Test
  void aFlippedBitInTheCopyStopsIngestionAndIsRefetched() throws Exception {
    try (QueueFollower f =
        new QueueFollower(FileSystem.real(), replicaDir, FollowPoint.START, EXPECTED)) {
      long first = write(40);
      pull();
      f.poll(got::add);
      checkModel(first);
      long last = write(300);
      pull();
      Path active = replicaDir.resolve(new SegmentFileName(f.point().segment(), true).fileName());
      if (!Files.exists(active)) {
        active = replicaDir.resolve(new SegmentFileName(f.point().segment(), false).fileName());
      }
      flip(active, f.point().offset() + 30);
      QueueFollower.Result r = f.poll(got::add);
      assertThat(r.error()).contains("failed verification");
      assertThat(f.counters().checksumFailures.sum()).isEqualTo(1);
      assertThat(active).doesNotExist();
      checkModel(first);
      pull();
      assertThat(f.poll(got::add).error()).isNull();
      checkModel(last);
    }
  }

  @Test
  void aCopyThatShrankIsAnErrorAndIsRefetched() throws Exception {
    try (QueueFollower f =
        new QueueFollower(FileSystem.real(), replicaDir, FollowPoint.START, EXPECTED)) {
      long last = write(20);
      pull();
      f.poll(got::add);
      Path active = replicaDir.resolve(new SegmentFileName(f.point().segment(), false).fileName());
      try (RandomAccessFile raf = new RandomAccessFile(active.toFile(), "rw")) {
        raf.setLength(f.point().offset() - 10);
      }
      assertThat(f.poll(got::add).error()).contains("shrank");
      assertThat(f.counters().shrunkFiles.sum()).isEqualTo(1);
      pull();
      assertThat(f.poll(got::add).error()).isNull();
      checkModel(last);
      QueueRecord r = f.read(got.get(got.size() - 1).address());
      assertThat(r.body()).isEqualTo(bodies.get(bodies.size() - 1));
    }
  }

  @Test
  void damageFoundByAReaderInASealedCopyIsRefetchedAndVerified() throws Exception {
    try (QueueFollower f =
        new QueueFollower(FileSystem.real(), replicaDir, FollowPoint.START, EXPECTED)) {
      long last = write(400);
      pull();
      f.poll(got::add);
      checkModel(last);
      QueueRecord victim = got.get(3);
      assertThat(Address.segment(victim.address())).isLessThan(f.point().segment());
      Path sealed =
          replicaDir.resolve(
              new SegmentFileName(Address.segment(victim.address()), true).fileName());
      // The block's first sequence: covered by the checksum of the block and of each of its
      // records.
      flip(sealed, Address.blockOffset(victim.address()) + BlockFormat.FIRST_SEQUENCE + 7);
      assertThatThrownBy(() -> f.read(victim.address())).isInstanceOf(CorruptionException.class);
      f.poll(got::add);
      assertThat(sealed).doesNotExist();
      assertThat(f.counters().refetches.sum()).isEqualTo(1);
      pull();
      f.poll(got::add);
      assertThat(f.read(victim.address()).body()).isEqualTo(victim.body());
      checkModel(last);
    }
  }

  private static void flip(Path file, long offset) throws Exception {
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek(offset);
      int b = raf.read();
      raf.seek(offset);
      raf.write(b ^ 0x10);
    }
  }
}
