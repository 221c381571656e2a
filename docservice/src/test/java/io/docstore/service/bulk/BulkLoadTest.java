package io.docstore.service.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.Document;
import io.docstore.io.TestSupport;
import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.Update;
import io.docstore.service.cache.OffHeapDocCache;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link BulkLoad} over an existing store against a TreeMap model: puts, deletes, an id updated
 * several times within the load (the last line wins), invalid and over-long lines (reported, not
 * applied), input over several parse chunks; then ordinary writes after it, and a reopen.
 */
class BulkLoadTest {

  @TempDir Path dir;

  private static DocStoreOptions options() {
    return DocStoreOptions.builder(new OffHeapDocCache(1 << 20)).maxBodyBytes(4096).build();
  }

  @Test
  void bulkLoadOverExistingDataMatchesTheModel() throws Exception {
    long seed = TestSupport.seed("BulkLoadTest");
    SplittableRandom rnd = new SplittableRandom(seed);
    TreeMap<Long, String> model = new TreeMap<>();
    try (DocStore s = DocStore.open(dir, options())) {
      List<Update> ups = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        long id = rnd.nextLong(5_000);
        String doc = "{\"old\":" + i + "}";
        ups.add(Update.put(id, doc.getBytes(StandardCharsets.UTF_8)));
        model.put(id, doc);
      }
      s.apply(ups);
    }
    StringBuilder in = new StringBuilder();
    long invalid = 0;
    int lines = 9_000;
    long loaded = 0;
    for (int i = 0; i < lines; i++) {
      long id = rnd.nextLong(5_000);
      int r = rnd.nextInt(100);
      if (r < 3) {
        in.append("{\"id\":").append(id).append(",\"doc\":[1]}\n");
        invalid++;
      } else if (r < 4) {
        in.append("{\"id\":")
            .append(id)
            .append(",\"doc\":{\"pad\":\"")
            .append("x".repeat(9_000))
            .append("\"}}\n");
        invalid++;
      } else if (r < 12) {
        in.append("{\"id\":").append(id).append(",\"op\":\"delete\"}\r\n");
        model.put(id, null);
        loaded++;
      } else {
        String doc = "{\"v\":" + i + ",\"text\":\"" + "abc ".repeat(rnd.nextInt(100)) + "\"}";
        in.append("{\"id\":").append(id).append(",\"doc\":").append(doc).append("}\n");
        model.put(id, doc);
        loaded++;
      }
    }
    in.append("{\"id\":1,\"doc\":{\"last\":true}}");
    model.put(1L, "{\"last\":true}");
    loaded++;
    byte[] bytes = in.toString().getBytes(StandardCharsets.UTF_8);
    assertThat(bytes.length).isGreaterThan(2 * BulkLoad.CHUNK_BYTES);
    long[] progress = {0};
    BulkLoad.Result r =
        BulkLoad.load(
            dir,
            options(),
            new ByteArrayInputStream(bytes),
            1 + rnd.nextInt(3),
            p -> progress[0] = p);
    assertThat(r.failed()).as("seed %d", seed).isEqualTo(invalid);
    assertThat(r.loaded()).as("seed %d", seed).isEqualTo(loaded);
    assertThat(r.lines()).isEqualTo(lines + 1);
    assertThat(r.firstSequence()).isEqualTo(301);
    assertThat(r.lastSequence()).isEqualTo(300 + loaded);
    assertThat(progress[0]).isEqualTo(bytes.length);
    assertThat(r.errors()).allMatch(e -> e.startsWith("line "));
    try (DocStore s = DocStore.open(dir, options())) {
      assertThat(s.appliedThrough()).isEqualTo(r.lastSequence());
      check(s, model, seed);
      s.apply(
          List.of(
              Update.put(1, "{\"after\":1}".getBytes(StandardCharsets.UTF_8)), Update.delete(2)));
      model.put(1L, "{\"after\":1}");
      model.put(2L, null);
      check(s, model, seed);
    }
    try (DocStore s = DocStore.open(dir, options())) {
      check(s, model, seed);
    }
  }

  private static void check(DocStore s, TreeMap<Long, String> model, long seed) throws Exception {
    for (Map.Entry<Long, String> e : model.entrySet()) {
      Document d = s.get(e.getKey());
      if (e.getValue() == null) {
        assertThat(d).as("id %d deleted, seed %d", e.getKey(), seed).isNull();
      } else {
        assertThat(d).as("id %d, seed %d", e.getKey(), seed).isNotNull();
        assertThat(new String(d.body(), StandardCharsets.UTF_8))
            .as("id %d, seed %d", e.getKey(), seed)
            .isEqualTo(e.getValue());
      }
    }
    assertThat(s.get(5_001)).isNull();
  }
}
