package io.docstore.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.service.DocStore;
import io.docstore.service.DocStore.LoggedUpdate;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.Update;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.testing.DamagedStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docstore import} refuses a Kafka-fed shard, by its configuration or by the positions its
 * queue records, and leaves it as it was: a document imported there would be in no partition of the
 * topic, so the shard and the topic would disagree.
 */
class ImportIntoKafkaShardTest {

  @TempDir Path dir;

  @Test
  void aShardFedByKafkaIsNotImportedInto() throws Exception {
    Path data = dir.resolve("shard");
    try (DocStore store =
        DocStore.open(data, DocStoreOptions.builder(new OffHeapDocCache(1 << 20)).build())) {
      store.applyFromLog(
          0,
          2,
          List.of(
              new LoggedUpdate(1, Update.put(7, "{\"a\":1}".getBytes(StandardCharsets.UTF_8)))));
    }
    Path file = dir.resolve("more.ndjson");
    Files.writeString(file, "{\"id\":8,\"doc\":{\"b\":2}}\n");
    for (String mode : new String[] {"--bulk", null}) {
      DamagedStore.Run r =
          mode == null
              ? DamagedStore.run("import", file.toString(), "--data", data.toString())
              : DamagedStore.run("import", file.toString(), "--data", data.toString(), mode);
      assertThat(r.exit()).as("%s: %s", mode, r.err()).isEqualTo(2);
      assertThat(r.err()).contains("shard fed by Kafka").contains("docstore produce");
    }
    Path conf = dir.resolve("kafka.conf");
    Files.writeString(
        conf,
        "docstore.updates.kafka { bootstrap-servers = \"127.0.0.1:1\", topic = docs,"
            + " partitions = [0] }\n");
    DamagedStore.Run r =
        DamagedStore.run(
            "import",
            file.toString(),
            "--config",
            conf.toString(),
            "--data",
            dir.resolve("new").toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("Kafka topic docs");
    try (DocStore store =
        DocStore.open(data, DocStoreOptions.builder(new OffHeapDocCache(1 << 20)).build())) {
      assertThat(store.get(8)).as("nothing imported").isNull();
      assertThat(store.get(7)).isNotNull();
      assertThat(store.logPosition(0)).isEqualTo(2);
    }
  }
}
