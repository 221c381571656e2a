package io.docstore.queue;

import static io.docstore.queue.V3Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FileSystem;
import io.docstore.queue.follow.FollowPoint;
import io.docstore.queue.follow.QueueFollower;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.replication.ManifestPublisher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica's follower over a copy of a format 3 queue (segments starting with the dictionary,
 * records compressed one by one, and LZ4 blocks after it, as a shard catching up appends them):
 * every record is ingested in order and reads back by address.
 */
class QueueDictionaryFollowerTest {

  @TempDir Path tmp;

  /**
   * As rsync copies: each changed segment file (and the manifest) as a whole new file renamed in.
   */
  private static void pull(Path from, Path to) throws Exception {
    try (Stream<Path> s = Files.list(from)) {
      for (Path f : s.sorted().toList()) {
        String name = f.getFileName().toString();
        if (!name.equals("replication.manifest") && !name.startsWith("seg-")) {
          continue;
        }
        Path target = to.resolve(name);
        if (Files.exists(target) && Files.mismatch(target, f) == -1) {
          continue;
        }
        Path temp = to.resolve("." + name + ".tmp1");
        Files.copy(f, temp, StandardCopyOption.REPLACE_EXISTING);
        Files.move(
            temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      }
    }
    try (Stream<Path> s = Files.list(to)) {
      for (Path r : s.toList()) {
        if (!Files.exists(from.resolve(r.getFileName()))) {
          Files.delete(r);
        }
      }
    }
  }

  @Test
  void aFollowerIngestsAndReadsEveryRecordOfAQueueWithDictionaryBlocks() throws Exception {
    Path primary = tmp.resolve("primary");
    Path replica = Files.createDirectories(tmp.resolve("replica"));
    QueueOptions options = options().segmentSize(64 * 1024).build();
    int expectedBlockBytes = BlockFormat.HEADER_LENGTH + options.blockSize();
    Random rnd = new Random(8);
    List<Expected> model = new ArrayList<>();
    List<QueueRecord> got = new ArrayList<>();
    try (DocQueue q = DocQueue.open(primary, options);
        ManifestPublisher publisher =
            new ManifestPublisher(
                FileSystem.real(), primary, q::lastSequence, expectedBlockBytes, 0);
        QueueFollower follower =
            new QueueFollower(FileSystem.real(), replica, FollowPoint.START, expectedBlockBytes)) {
      for (int round = 0; round < 3; round++) {
        q.writer().lz4Appends(round == 1); // LZ4 blocks after the dictionary (a catch-up)
        for (int i = 0; i < 500; i++) {
          model.add(appendRandom(q, rnd, model.size() + 1));
        }
        q.writer().flush();
        publisher.publishOnce();
        pull(primary, replica);
        assertThat(follower.poll(got::add).error()).as("round %d", round).isNull();
        assertThat(got).hasSize(model.size());
        for (int i = 0; i < model.size(); i++) {
          check(got.get(i), model.get(i), "ingested");
          check(follower.read(model.get(i).address()), model.get(i), "read from the replica");
        }
      }
    }
    assertThat(allBlocks(replica).stream().filter(Block::dictionary).count()).isGreaterThan(3);
    assertThat(allBlocks(replica).stream().filter(Block::zstd).count()).isGreaterThan(20);
    assertThat(
            allBlocks(replica).stream()
                .filter(b -> b.lz4() && uncheckedBlocks(b.file()).get(0).dictionary())
                .count())
        .as("LZ4 blocks after a dictionary")
        .isGreaterThan(5);
  }

  private static List<Block> uncheckedBlocks(Path file) {
    try {
      return blocks(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
