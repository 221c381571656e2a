package io.docstore.queue.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.queue.follow.FollowPoint;
import java.io.InputStream;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Version 1 of the replication manifest and of the replica ingestion point, frozen byte for byte.
 */
class GoldenReplicationFormatsTest {

  private static byte[] golden(String name) throws Exception {
    try (InputStream in =
        GoldenReplicationFormatsTest.class.getResourceAsStream("/golden/" + name)) {
      assertThat(in).as("golden file " + name).isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void manifestVersion1() throws Exception {
    byte[] bytes = golden("replication.manifest.v1");
    ReplicationManifest m = ReplicationManifest.decode(Path.of("golden"), bytes);
    assertThat(m)
        .isEqualTo(
            new ReplicationManifest(
                3,
                4097,
                61_234,
                5_120,
                17,
                BlockCrcChain.next(BlockCrcChain.START, 0x1234abcd),
                1_795_000_000_000L));
    assertThat(m.chain()).isEqualTo(0xd781f2f2);
    assertThat(m.encode()).isEqualTo(bytes);
  }

  @Test
  void pointVersion1() throws Exception {
    byte[] bytes = golden("replica.point.v1");
    FollowPoint p = FollowPoint.decode(Path.of("golden"), bytes);
    assertThat(p).isEqualTo(new FollowPoint(3, 61_234, 5_121, 0x0badcafe));
    assertThat(p.encode(1_795_000_000_000L)).isEqualTo(bytes);
  }
}
