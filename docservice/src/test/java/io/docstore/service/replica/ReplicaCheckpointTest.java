package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.index.IndexOptions;
import io.docstore.index.LsmIndex;
import io.docstore.io.FileSystem;
import io.docstore.io.SyncPolicy;
import io.docstore.queue.follow.FollowPoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ReplicaCheckpoint}: {@code replica.point} is written only for a point that moved, and read
 * back at start.
 */
class ReplicaCheckpointTest {

  @TempDir Path tmp;

  @Test
  void aMovedPointIsPersistedAndReadBackAndAnUnchangedOneIsNotRewritten() throws Exception {
    Path file = tmp.resolve(ReplicaNode.POINT_FILE);
    ReplicaCheckpoint c = new ReplicaCheckpoint(FileSystem.real(), file, Duration.ofHours(1));
    assertThat(c.point()).as("no file yet").isEqualTo(FollowPoint.START);
    try (LsmIndex index =
        LsmIndex.open(
            tmp.resolve("index"), IndexOptions.builder().syncPolicy(SyncPolicy.NONE).build())) {
      c.publish(FollowPoint.START, index);
      assertThat(file).as("the start is not worth a file").doesNotExist();

      FollowPoint p = new FollowPoint(2, 4096, 300, 77);
      c.publish(p, index);
      assertThat(c.point()).isEqualTo(p);
      assertThat(FollowPoint.read(FileSystem.real(), file)).isEqualTo(p);

      byte[] written = Files.readAllBytes(file);
      Thread.sleep(2); // a rewrite would carry a later savedAt
      c.publish(p, index);
      assertThat(Files.readAllBytes(file)).as("unchanged point, file untouched").isEqualTo(written);
    }
    assertThat(new ReplicaCheckpoint(FileSystem.real(), file, Duration.ofHours(1)).point())
        .isEqualTo(new FollowPoint(2, 4096, 300, 77));
  }

  @Test
  void dueOnceTheIntervalHasPassed() throws Exception {
    Path file = tmp.resolve(ReplicaNode.POINT_FILE);
    assertThat(new ReplicaCheckpoint(FileSystem.real(), file, Duration.ofHours(1)).due()).isFalse();
    assertThat(new ReplicaCheckpoint(FileSystem.real(), file, Duration.ofNanos(1)).due()).isTrue();
  }
}
