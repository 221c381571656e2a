package io.docstore.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.Document;
import io.docstore.service.DocStore;
import io.docstore.service.Update;
import io.docstore.service.config.DocstoreConfig;
import io.docstore.service.testing.DamagedStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docstore regroup} as an operator runs it after changing {@code docstore.groups}: documents
 * imported or written before a group existed read as missing in it, and after the command every
 * live document has its projection (deleted ones none); without groups it refuses with exit 2.
 */
class RegroupCommandTest {

  @TempDir Path dir;

  private static String[] run(String... args) {
    DamagedStore.Run r = DamagedStore.run(args);
    return new String[] {Integer.toString(r.exit()), r.out(), r.err()};
  }

  @Test
  void regroupProjectsEveryLiveDocumentOntoTheNewGroups() throws Exception {
    Path data = dir.resolve("data");
    Path before = dir.resolve("before.conf");
    Files.writeString(before, "docstore.groups { summary = [title] }\n");
    Path after = dir.resolve("after.conf");
    Files.writeString(after, "docstore.groups { summary = [title, company], pay = [salary] }\n");
    StringBuilder b = new StringBuilder();
    for (int id = 0; id < 3000; id++) {
      b.append("{\"id\":")
          .append(id)
          .append(",\"doc\":{\"title\":\"t")
          .append(id)
          .append("\",\"company\":\"c\",\"salary\":")
          .append(id)
          .append("}}\n");
    }
    Path file = dir.resolve("in.ndjson");
    Files.writeString(file, b);
    String[] r =
        run("import", file.toString(), "--config", before.toString(), "--data", data.toString());
    assertThat(r[0]).as(r[2]).isEqualTo("0");

    DocstoreConfig cfg = OfflineStore.config(after, data);
    try (DocStore store = OfflineStore.open(cfg)) {
      store.apply(
          List.of(
              Update.delete(7),
              Update.put(8, "{\"title\":\"new\",\"salary\":1}".getBytes(StandardCharsets.UTF_8))));
      assertThat(store.getAll(new long[] {1}, "pay")[0]).as("imported: no projection yet").isNull();
      assertThat(store.getAll(new long[] {8}, "pay")[0].body())
          .asString()
          .isEqualTo("{\"salary\":1}");
    }

    r = run("regroup", "--config", after.toString(), "--data", data.toString());
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    assertThat(r[1]).contains("regroup: projected 2999 documents onto [summary, pay]");

    try (DocStore store = OfflineStore.open(cfg)) {
      long[] ids = new long[3000];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = i;
      }
      Document[] summary = store.getAll(ids, "summary");
      Document[] pay = store.getAll(ids, "pay");
      Document[] full = store.getAll(ids);
      List<Long> wrong = new ArrayList<>();
      for (int id = 0; id < 3000; id++) {
        if (id == 7) {
          assertThat(summary[id]).isNull();
          assertThat(pay[id]).isNull();
          continue;
        }
        String expectSummary =
            id == 8 ? "{\"title\":\"new\"}" : "{\"title\":\"t" + id + "\",\"company\":\"c\"}";
        if (!new String(summary[id].body(), StandardCharsets.UTF_8).equals(expectSummary)
            || summary[id].sequence() != full[id].sequence()) {
          wrong.add((long) id);
        }
        assertThat(new String(pay[id].body(), StandardCharsets.UTF_8))
            .isEqualTo("{\"salary\":" + (id == 8 ? 1 : id) + "}");
      }
      assertThat(wrong).isEmpty();
    }
    assertThat(run("verify", data.toString())[0]).isEqualTo("0");

    Path none = dir.resolve("none.conf");
    Files.writeString(none, "docstore.queue.max-body = 1M\n");
    assertThat(run("regroup", "--config", none.toString(), "--data", data.toString())[0])
        .isEqualTo("2");
  }
}
