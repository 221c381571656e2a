package io.docstore.service.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.kafka.local.KafkaProcess;
import io.docstore.service.cli.Main;
import io.docstore.service.torture.ServeJvm;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real broker whose second listener takes only clients that authenticate with SASL/PLAIN as one
 * user: {@code docstore produce --kafka-config} with that user's settings writes the topic there,
 * so does {@code docstore produce --config} with the shards' configuration, and a shard whose
 * {@code updates.kafka.client} holds them ingests it. A wrong password stops the producer and the
 * shard's start with exit 2 and a message naming the setting; so does a setting docstore owns.
 */
class KafkaSecurityTest {

  private static final String USER = "docstore";
  private static final String PASSWORD = "s3cret-pw";
  private static final String TOPIC = "docs";
  private static final int DOCS = 200;

  @TempDir Path dir;

  @Test
  void theProducerAndAShardReachASecuredBrokerWithTheirSettingsAndNothingElseDoes()
      throws Exception {
    try (KafkaProcess kafka = KafkaProcess.startWithSasl(dir.resolve("broker"), USER, PASSWORD)) {
      TopicModel.createTopic(kafka.bootstrap(), TOPIC, 2);
      StringBuilder lines = new StringBuilder();
      for (int id = 0; id < DOCS; id++) {
        lines.append("{\"id\":").append(id).append(",\"doc\":{\"n\":").append(id).append("}}\n");
      }
      Path ndjson = Files.writeString(dir.resolve("docs.ndjson"), lines);

      Path wrong = Files.writeString(dir.resolve("wrong.properties"), properties("not-it"));
      Captured refused = produce(kafka, ndjson, wrong);
      assertThat(refused.exit).as(refused.err).isEqualTo(2);
      assertThat(refused.err).contains("produce: " + kafka.saslBootstrap() + " refused:");
      assertThat(TopicModel.endOffsets(kafka.bootstrap(), TOPIC, 2).values())
          .as("nothing produced with refused credentials")
          .containsOnly(0L);

      Path right = Files.writeString(dir.resolve("right.properties"), properties(PASSWORD));
      Captured produced = produce(kafka, ndjson, right);
      assertThat(produced.exit).as(produced.err).isZero();

      Path conf = dir.resolve("shard.conf");
      Files.writeString(conf, shardConf(kafka.saslBootstrap(), PASSWORD, ""));
      // the shards' configuration gives produce the servers, the topic and the settings
      Path more =
          Files.writeString(
              dir.resolve("more.ndjson"), "{\"id\":" + DOCS + ",\"doc\":{\"n\":" + DOCS + "}}\n");
      Captured fromConf = run("produce", more.toString(), "--config", conf.toString());
      assertThat(fromConf.exit).as(fromConf.err).isZero();
      try (ServeJvm shard =
          ServeJvm.launch(
              dir.resolve("serve.log"),
              List.of(),
              "serve",
              "--data",
              dir.resolve("data").toString(),
              "--config",
              conf.toString())) {
        shard.awaitKafka(p -> ServeJvm.applied(p) == DOCS + 1, 60);
        HttpClient http = HttpClient.newHttpClient();
        for (int id : new int[] {0, 17, DOCS - 1, DOCS}) {
          HttpResponse<String> r =
              http.send(
                  HttpRequest.newBuilder(URI.create(shard.readUrl + "/docs/" + id)).build(),
                  HttpResponse.BodyHandlers.ofString());
          assertThat(r.statusCode()).isEqualTo(200);
          assertThat(r.body()).isEqualTo("{\"n\":" + id + "}");
        }
      }
      assertThat(Files.readString(dir.resolve("serve.log"))).doesNotContain(PASSWORD);

      Files.writeString(conf, shardConf(kafka.saslBootstrap(), "not-it", ""));
      Captured badPassword =
          run("serve", "--config", conf.toString(), "--data", dir.resolve("other").toString());
      assertThat(badPassword.exit).as(badPassword.err).isEqualTo(2);
      assertThat(badPassword.err)
          .contains(
              "docstore.updates.kafka.client: the broker on "
                  + kafka.saslBootstrap()
                  + " refused this shard's credentials");

      Files.writeString(
          conf, shardConf(kafka.saslBootstrap(), PASSWORD, ", \"enable.auto.commit\" = true"));
      Captured owned =
          run("serve", "--config", conf.toString(), "--data", dir.resolve("other").toString());
      assertThat(owned.exit).as(owned.err).isEqualTo(2);
      assertThat(owned.err)
          .contains(
              "docstore.updates.kafka.client.\"enable.auto.commit\": is docstore's to set:"
                  + " positions come from the queue");
    }
  }

  /** A Kafka client properties file for SASL/PLAIN as {@link #USER} with {@code password}. */
  private static String properties(String password) {
    return "security.protocol=SASL_PLAINTEXT\n"
        + "sasl.mechanism=PLAIN\n"
        + "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
        + " username=\""
        + USER
        + "\" password=\""
        + password
        + "\";\n";
  }

  /** A Kafka-mode shard's configuration with the client settings for {@code password}. */
  private static String shardConf(String bootstrap, String password, String moreSettings) {
    return "docstore.http.read.port = 0\n"
        + "docstore.http.admin.port = 0\n"
        + "docstore.rpc.port = 0\n"
        + "docstore.updates.kafka {\n"
        + "  bootstrap-servers = \""
        + bootstrap
        + "\"\n"
        + "  topic = "
        + TOPIC
        + "\n"
        + "  partitions = [0, 1]\n"
        + "  client {\n"
        + "    \"security.protocol\" = SASL_PLAINTEXT, \"sasl.mechanism\" = PLAIN\n"
        + "    \"sasl.jaas.config\" = \"org.apache.kafka.common.security.plain.PlainLoginModule"
        + " required username=\\\""
        + USER
        + "\\\" password=\\\""
        + password
        + "\\\";\""
        + moreSettings
        + "\n"
        + "  }\n"
        + "}\n";
  }

  private record Captured(int exit, String err) {}

  /** {@code docstore produce} of {@code ndjson} to the SASL listener with {@code settings}. */
  private static Captured produce(KafkaProcess kafka, Path ndjson, Path settings) {
    return run(
        "produce",
        ndjson.toString(),
        "--kafka",
        kafka.saslBootstrap(),
        "--topic",
        TOPIC,
        "--kafka-config",
        settings.toString());
  }

  /** {@code docstore args...} in this JVM, its stderr captured. */
  private static Captured run(String... args) {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    int exit;
    try {
      exit = Main.run(args);
    } finally {
      System.setErr(err);
    }
    return new Captured(exit, captured.toString(StandardCharsets.UTF_8));
  }
}
