package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FileSystem;
import io.docstore.queue.replication.ManifestFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RsyncPuller} with the real rsync binary, over a daemon started by scripts/rsync-primary.
 */
class RsyncPullerTest {

  @TempDir Path tmp;

  /**
   * Regression (the replication-manifest stall of TortureReplicaTest, docs/reliability.md): the
   * primary rewrites its manifest at a fixed size, possibly twice within one mtime tick. rsync's
   * quick check (same size, same mtime) then skipped the new manifest on every later pull, so the
   * replica stopped advancing and a restart did not help. The puller must fetch it every time.
   */
  @Test
  void aManifestRewrittenWithTheSameSizeAndMtimeIsFetchedAgain() throws Exception {
    Path primary = tmp.resolve("primary/queue");
    Files.createDirectories(primary);
    Path manifest = primary.resolve(ManifestFormat.FILE_NAME);
    Files.writeString(manifest, "manifest version 1");
    FileTime mtime = Files.getLastModifiedTime(manifest);
    try (RsyncDaemon daemon = RsyncDaemon.start(primary, tmp.resolve("rsyncd"))) {
      Path copy = tmp.resolve("replica/queue");
      RsyncPuller puller = new RsyncPuller(FileSystem.real(), "rsync", daemon.url(), copy, 10);
      assertThat(puller.pull().ok()).isTrue();
      assertThat(Files.readString(copy.resolve(ManifestFormat.FILE_NAME)))
          .isEqualTo("manifest version 1");

      Files.writeString(manifest, "manifest version 2"); // same length
      Files.setLastModifiedTime(
          manifest, mtime); // and the same mtime: the quick check sees no change
      RsyncPuller.Pull second = puller.pull();
      assertThat(second.ok()).as(second.output()).isTrue();
      assertThat(Files.readString(copy.resolve(ManifestFormat.FILE_NAME), StandardCharsets.UTF_8))
          .as("the manifest is fetched on every pull")
          .isEqualTo("manifest version 2");
    }
  }
}
