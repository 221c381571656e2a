package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.Document;
import io.docstore.io.FileSystem;
import io.docstore.io.SyncPolicy;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.replication.ManifestPublisher;
import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.Update;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.gc.GcOptions;
import io.docstore.service.groups.FieldGroups;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica with the primary's {@code docstore.groups} serves the same projections as its primary,
 * copying the queue with the real rsync: after writes, updates and deletes, and after the primary's
 * space reclamation relocated and dropped GROUPS records, every group of every document reads the
 * same on both (same bytes, same version), and the full documents too.
 */
class GroupsReplicaTest {

  private static final int BLOCK = 4096;
  private static final FieldGroups GROUPS;

  static {
    Map<String, List<String>> g = new LinkedHashMap<>();
    g.put("summary", List.of("title", "company"));
    g.put("pay", List.of("salary"));
    GROUPS = new FieldGroups(g);
  }

  @TempDir Path tmp;

  /** Random letters, so that segments fill and the reclamation finds garbage. */
  private static String text(Random rnd) {
    char[] c = new char[200 + rnd.nextInt(400)];
    for (int i = 0; i < c.length; i++) {
      c[i] = (char) ('a' + rnd.nextInt(26));
    }
    return new String(c);
  }

  @Test
  void aReplicaServesTheSameGroupsAsItsPrimary() throws Exception {
    Path primaryDir = tmp.resolve("primary");
    Path queueDir = primaryDir.resolve("queue");
    Random rnd = new Random(11);
    try (DocStore primary =
            DocStore.open(
                primaryDir,
                DocStoreOptions.builder(new OffHeapDocCache(1 << 20))
                    .queueOptions(
                        QueueOptions.builder()
                            .syncPolicy(SyncPolicy.NONE)
                            .blockSize(BLOCK)
                            .segmentSize(32 << 10)
                            .build())
                    .groups(GROUPS)
                    .gc(GcOptions.defaults().withEnabled(false).withReserveBytes(0))
                    .checkpointInterval(Duration.ofHours(1))
                    .build());
        ManifestPublisher publisher =
            new ManifestPublisher(
                FileSystem.real(),
                queueDir,
                primary::durableSequence,
                BlockFormat.HEADER_LENGTH + BLOCK,
                0);
        RsyncDaemon daemon = RsyncDaemon.start(queueDir, tmp.resolve("rsyncd"));
        ReplicaNode replica =
            ReplicaNode.start(
                ReplicaOptions.builder(
                        "rsync://127.0.0.1:" + daemon.port() + "/docstore/", tmp.resolve("r"))
                    .pullInterval(Duration.ofMillis(50))
                    .checkpointInterval(Duration.ofMillis(300))
                    .expectedBlockBytes(BlockFormat.HEADER_LENGTH + BLOCK)
                    .groups(GROUPS)
                    .build(),
                new SimpleMeterRegistry())) {
      for (int round = 0; round < 3; round++) {
        for (int b = 0; b < 20; b++) {
          List<Update> batch = new ArrayList<>();
          for (int i = 0; i < 40; i++) {
            long id = rnd.nextInt(200);
            batch.add(
                rnd.nextInt(8) == 0
                    ? Update.delete(id)
                    : Update.put(
                        id,
                        ("{\"title\":\"t"
                                + rnd.nextInt()
                                + "\",\"salary\":"
                                + rnd.nextInt(100)
                                + ",\"text\":\""
                                + text(rnd)
                                + "\"}")
                            .getBytes(StandardCharsets.UTF_8)));
          }
          primary.apply(batch);
        }
        if (round == 1) {
          primary.checkpoint();
          assertThat(primary.reclamation().run(1.0, Long.MAX_VALUE).segments()).isPositive();
        }
        publisher.publishOnce();
        long target = primary.durableSequence();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (replica.appliedThrough() < target) {
          assertThat(System.nanoTime()).as("replica caught up").isLessThan(deadline);
          Thread.sleep(20);
        }
        long[] ids = new long[200];
        for (int i = 0; i < ids.length; i++) {
          ids[i] = i;
        }
        for (String group : GROUPS.names()) {
          Document[] p = primary.getAll(ids, group);
          Document[] r = replica.getAll(ids, group);
          int found = 0;
          for (int i = 0; i < ids.length; i++) {
            if (p[i] == null) {
              assertThat(r[i]).as("round %d group %s id %d", round, group, i).isNull();
            } else {
              found++;
              assertThat(r[i]).as("round %d group %s id %d", round, group, i).isNotNull();
              assertThat(r[i].body()).isEqualTo(p[i].body());
              assertThat(r[i].sequence()).isEqualTo(p[i].sequence());
            }
          }
          assertThat(found).isPositive();
        }
        Document[] full = primary.getAll(ids);
        Document[] copy = replica.getAll(ids);
        for (int i = 0; i < ids.length; i++) {
          assertThat(copy[i] == null).isEqualTo(full[i] == null);
        }
      }
    }
  }
}
