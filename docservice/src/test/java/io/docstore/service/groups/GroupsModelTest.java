package io.docstore.service.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.docstore.client.Document;
import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.RecordBody;
import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.Update;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.gc.GcOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Field groups against a model: for random documents, updates, deletes, expiring puts, space
 * reclamation passes, restarts and writes torn between a document's projections and the document,
 * every group's projection read back equals the projection of the current full document (computed
 * here with a plain JSON map), and a deleted or expired document has none. Replays by seed.
 */
class GroupsModelTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, List<String>> GROUPS = new LinkedHashMap<>();

  static {
    GROUPS.put("summary", List.of("title", "company", "salary"));
    GROUPS.put("where", List.of("location", "company"));
  }

  private static final String[] FIELDS = {"title", "company", "salary", "location", "text", "n"};

  @TempDir Path dir;

  private static DocStoreOptions options() {
    return DocStoreOptions.builder(new OffHeapDocCache(1L << 20))
        .queueOptions(
            QueueOptions.builder()
                .syncPolicy(SyncPolicy.NONE)
                .segmentSize(32 << 10)
                .blockSize(4096)
                .build())
        .groups(new FieldGroups(GROUPS))
        .gc(GcOptions.defaults().withEnabled(false).withReserveBytes(0))
        .checkpointInterval(Duration.ofHours(1))
        .build();
  }

  private static byte[] document(Random rnd, int round) throws Exception {
    Map<String, Object> doc = new LinkedHashMap<>();
    for (String f : FIELDS) {
      if (rnd.nextInt(4) > 0) {
        doc.put(
            f,
            switch (rnd.nextInt(3)) {
              case 0 -> "v" + rnd.nextInt(1000) + "x".repeat(rnd.nextInt(300));
              case 1 -> rnd.nextInt();
              default -> Map.of("nested", List.of(round, "é"));
            });
      }
    }
    return JSON.writeValueAsBytes(doc);
  }

  /** The projection of {@code doc} for {@code group}, as a map, by the plain rule. */
  private static Map<String, Object> projection(byte[] doc, String group) throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, Object> all = JSON.readValue(doc, LinkedHashMap.class);
    Map<String, Object> out = new HashMap<>();
    for (String f : GROUPS.get(group)) {
      if (all.containsKey(f)) {
        out.put(f, all.get(f));
      }
    }
    return out;
  }

  private record Version(byte[] body, long expiresAt) {}

  @Test
  void everyGroupReadsAsTheProjectionOfTheCurrentDocument() throws Exception {
    Random rnd = new Random(TestSupport.seed("GroupsModelTest"));
    Map<Long, Version> model = new HashMap<>();
    DocStore store = DocStore.open(dir, options());
    try {
      for (int round = 0; round < 30 * TestSupport.scale(); round++) {
        List<Update> batch = new ArrayList<>();
        Map<Long, Version> next = new HashMap<>();
        for (int i = 0; i < 40; i++) {
          long id = rnd.nextInt(150);
          if (next.containsKey(id)) {
            continue;
          }
          int kind = rnd.nextInt(10);
          if (kind == 0) {
            batch.add(Update.delete(id));
            next.put(id, null);
          } else {
            byte[] body = document(rnd, round);
            long expires =
                kind == 1 ? System.currentTimeMillis() + (rnd.nextBoolean() ? 1 : 3_600_000) : 0;
            batch.add(expires == 0 ? Update.put(id, body) : Update.put(id, body, expires));
            next.put(id, new Version(body, expires));
          }
        }
        store.apply(batch);
        model.putAll(next);
        switch (rnd.nextInt(7)) {
          case 0 -> {
            store.close();
            store = DocStore.open(dir, options());
          }
          case 1 -> store.reclamation().run(1.0, Long.MAX_VALUE);
          case 2 -> {
            store.close();
            tearAWrite(rnd.nextInt(150));
            store = DocStore.open(dir, options());
          }
          case 3 -> {
            // The index rebuilt from the queue's first record, over hollow segments too.
            store.close();
            deleteIndex();
            store = DocStore.open(dir, options());
          }
          default -> {}
        }
        Thread.sleep(2); // lets the expiring puts of 1 ms expire
        check(store, model);
      }
    } finally {
      store.close();
    }
  }

  /**
   * What a crash between a document's projections and the document leaves: a GROUPS record at the
   * queue's end without its PUT. It must take no effect.
   */
  private void tearAWrite(long id) throws Exception {
    try (DocQueue q = DocQueue.open(dir.resolve("queue"), QueueOptions.builder().build())) {
      byte[] torn =
          RecordBody.groups(
              -1,
              RecordBody.NEVER,
              new String[] {"summary", "where"},
              new byte[][] {
                "{\"title\":\"torn\"}".getBytes(StandardCharsets.UTF_8),
                "{}".getBytes(StandardCharsets.UTF_8)
              });
      q.writer().append(id, Op.GROUPS, System.currentTimeMillis(), torn);
      q.writer().sync();
    }
  }

  private void deleteIndex() throws Exception {
    try (var files = java.nio.file.Files.walk(dir.resolve("index"))) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
    java.nio.file.Files.deleteIfExists(
        dir.resolve(io.docstore.service.store.CheckpointFormat.FILE_NAME));
  }

  private static void check(DocStore store, Map<Long, Version> model) throws Exception {
    long[] ids = model.keySet().stream().mapToLong(Long::longValue).toArray();
    long now = System.currentTimeMillis();
    for (String group : GROUPS.keySet()) {
      Document[] got = store.getAll(ids, group);
      for (int i = 0; i < ids.length; i++) {
        Version v = model.get(ids[i]);
        boolean live = v != null && (v.expiresAt() == 0 || v.expiresAt() > now + 1000);
        boolean gone = v == null || (v.expiresAt() != 0 && v.expiresAt() <= now);
        if (live) {
          assertThat(got[i]).as("group %s of %d", group, ids[i]).isNotNull();
          assertThat(JSON.readValue(got[i].body(), HashMap.class))
              .as("group %s of %d", group, ids[i])
              .isEqualTo(projection(v.body(), group));
          Document full = store.get(ids[i]);
          assertThat(got[i].sequence()).isEqualTo(full.sequence());
        } else if (gone) {
          assertThat(got[i]).as("group %s of deleted or expired %d", group, ids[i]).isNull();
        }
      }
    }
  }

  @Test
  void badInputIsRefusedWithItsReasonAndMissingFieldsProjectToAnEmptyObject() throws Exception {
    try (DocStore store = DocStore.open(dir, options())) {
      assertThatThrownBy(() -> store.apply(List.of(Update.put(1, "[1,2]".getBytes()))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not a JSON object");
      assertThatThrownBy(() -> store.apply(List.of(Update.put(1, "{\"a\":1} x".getBytes()))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not a JSON object");
      assertThatThrownBy(() -> store.apply(List.of(Update.put(1L << 62, "{}".getBytes()))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("2^62");
      store.apply(List.of(Update.put(2, "{\"text\":\"no group field\"}".getBytes())));
      assertThat(store.getAll(new long[] {2}, "summary")[0].body()).asString().isEqualTo("{}");
      assertThatThrownBy(() -> store.getAll(new long[] {2}, "nope"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("summary, where");
      assertThat(store.get(1)).as("nothing of a refused batch was written").isNull();
    }
    DocStoreOptions small =
        DocStoreOptions.builder(new OffHeapDocCache(1L << 20))
            .maxBodyBytes(100)
            .groups(new FieldGroups(Map.of("all", List.of("a", "b"))))
            .gc(GcOptions.defaults().withEnabled(false))
            .build();
    try (DocStore store = DocStore.open(dir.resolve("small"), small)) {
      String big = "{\"a\":\"" + "x".repeat(55) + "\",\"b\":\"" + "y".repeat(30) + "\"}";
      assertThat(big.length()).isLessThanOrEqualTo(100);
      store.apply(List.of(Update.put(1, big.getBytes())));
      // Two groups of the same fields would double it: one group of both fits exactly.
      assertThat(store.getAll(new long[] {1}, "all")[0].body()).asString().isEqualTo(big);
    }
    DocStoreOptions twice =
        DocStoreOptions.builder(new OffHeapDocCache(1L << 20))
            .maxBodyBytes(100)
            .groups(new FieldGroups(Map.of("one", List.of("a"), "two", List.of("a"))))
            .gc(GcOptions.defaults().withEnabled(false))
            .build();
    try (DocStore store = DocStore.open(dir.resolve("twice"), twice)) {
      String doc = "{\"a\":\"" + "x".repeat(60) + "\"}";
      assertThatThrownBy(() -> store.apply(List.of(Update.put(1, doc.getBytes()))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("over the limit of 100");
    }
  }
}
