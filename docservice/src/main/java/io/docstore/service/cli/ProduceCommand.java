package io.docstore.service.cli;

import io.docstore.client.DocProducer;
import io.docstore.service.Update;
import io.docstore.service.bulk.ChunkReader;
import io.docstore.service.config.DocstoreConfig;
import io.docstore.service.kafka.KafkaOptions;
import io.docstore.service.kafka.TopicSettings;
import io.docstore.service.updater.InvalidUpdateException;
import io.docstore.service.updater.UpdateParser;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code docstore produce FILE.ndjson --kafka BOOTSTRAP --topic T}: produces an NDJSON update file
 * (the {@code _bulk} line format, read by the same {@link UpdateParser} as {@code docstore import})
 * to the Kafka topic that sharded docstores consume, through {@link DocProducer}, in the message
 * format of docs/formats/kafka-messages.md: a put's document byte-exact as the line holds it, its
 * {@code ttl} or {@code expiresAt} as the expiry header, a delete as a tombstone. A progress line
 * on a terminal, a summary line at the end; invalid lines are listed with their numbers and not
 * produced. Exit 1 when some lines were invalid or some records were not acknowledged, 2 when the
 * file or the topic is missing, or the broker refused the credentials of {@code --kafka-config}.
 */
@Command(
    name = "produce",
    mixinStandardHelpOptions = true,
    description =
        "Produce an NDJSON update file ({\"id\":N,\"doc\":{...}} or {\"id\":N,\"op\":\"delete\"} per"
            + " line) to a Kafka topic that docstore shards consume.")
final class ProduceCommand implements Callable<Integer> {

  private static final int SHOWN_ERRORS = 20;
  private static final int CHUNK_BYTES = 1 << 20;
  private static final long TOPIC_CHECK_SECONDS = 15;

  @Parameters(paramLabel = "FILE", description = "NDJSON file.")
  Path file;

  @Option(
      names = "--kafka",
      paramLabel = "BOOTSTRAP",
      description =
          "Kafka bootstrap servers, host:port[,host:port...] (default: the --config's"
              + " updates.kafka.bootstrap-servers).")
  String bootstrap;

  @Option(
      names = "--topic",
      paramLabel = "T",
      description = "Topic (default: the --config's updates.kafka.topic).")
  String topic;

  @Option(
      names = "--kafka-config",
      paramLabel = "FILE",
      description =
          "Kafka client settings (a Java properties file, as Kafka's own tools take): what a"
              + " secured cluster asks for, e.g. security.protocol, sasl.mechanism,"
              + " sasl.jaas.config, ssl.truststore.location (default: the --config's"
              + " updates.kafka.client).")
  Path kafkaConfig;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "Configuration of the shards: a document over their queue.max-body is refused here"
              + " (default: the built-in 1 MiB); in Kafka mode, its updates.kafka section gives"
              + " what --kafka, --topic and --kafka-config leave out.")
  Path config;

  @Override
  public Integer call() throws Exception {
    if (!Files.isRegularFile(file)) {
      System.err.println("produce: not a file: " + file);
      return 2;
    }
    DocstoreConfig cfg = OfflineStore.config(config, null);
    KafkaOptions shards = cfg.kafka();
    if (bootstrap == null && shards != null) {
      bootstrap = shards.bootstrapServers();
    }
    if (topic == null && shards != null) {
      topic = shards.topic();
    }
    if (bootstrap == null || topic == null) {
      System.err.println(
          "produce: --kafka and --topic are required without a --config in Kafka mode"
              + " (updates.kafka)");
      return 2;
    }
    Map<String, Object> client = new HashMap<>();
    if (kafkaConfig == null && shards != null) {
      client.putAll(shards.client());
    } else if (kafkaConfig != null) {
      if (!Files.isRegularFile(kafkaConfig)) {
        System.err.println("produce: not a file: " + kafkaConfig);
        return 2;
      }
      Properties p = new Properties();
      try (InputStream in = Files.newInputStream(kafkaConfig)) {
        p.load(in);
      }
      p.stringPropertyNames().forEach(k -> client.put(k, p.getProperty(k)));
    }
    int partitions;
    try {
      partitions = partitionCount(client);
    } catch (UnknownTopicOrPartitionException e) {
      System.err.println("produce: topic '" + topic + "' does not exist on " + bootstrap);
      return 2;
    } catch (AuthenticationException | AuthorizationException e) {
      System.err.println("produce: " + bootstrap + " refused: " + e.getMessage());
      return 2;
    }
    UpdateParser parser = new UpdateParser(cfg.maxBodyBytes());
    int maxLineBytes = (int) Math.min(Integer.MAX_VALUE - 16, 2L * cfg.maxBodyBytes() + 1024);
    long total = Files.size(file);
    long t0 = System.nanoTime();
    ProgressBar progress = new ProgressBar(total, t0, "MB", 1e6);
    Run run = new Run();
    try (DocProducer producer = DocProducer.create(bootstrap, topic, client);
        InputStream in = Files.newInputStream(file)) {
      ChunkReader reader = new ChunkReader(in, CHUNK_BYTES, maxLineBytes);
      long consumed = 0;
      ChunkReader.Input chunk;
      while ((chunk = reader.next()) != null) {
        byte[] b = chunk.buf();
        int start = 0;
        for (int i = 0; i <= chunk.length(); i++) {
          if (i == chunk.length() || b[i] == '\n') {
            if (i > start || i < chunk.length()) {
              run.line(producer, parser, maxLineBytes, b, start, i - start);
            }
            start = i + 1;
          }
        }
        consumed += chunk.length();
        progress.accept(consumed);
      }
      producer.flush();
    }
    progress.clear();
    List<String> errors = run.errors();
    for (int i = 0; i < Math.min(SHOWN_ERRORS, errors.size()); i++) {
      System.err.println("produce: " + errors.get(i));
    }
    long failed = run.invalid + run.unacknowledged.get();
    if (failed > SHOWN_ERRORS) {
      System.err.println("produce: ... and " + (failed - SHOWN_ERRORS) + " more");
    }
    double secs = Math.max(1e-3, (System.nanoTime() - t0) / 1e9);
    long produced = run.acknowledged.get();
    System.out.printf(
        Locale.ROOT,
        "produced %d records (%d deletes) from %s to topic %s (%d partitions) in %.1f s"
            + " (%.0f records/s, %.1f MB/s); %d invalid lines; %d not acknowledged%n",
        produced,
        run.deletes.get(),
        file,
        topic,
        partitions,
        secs,
        produced / secs,
        total / secs / 1e6,
        run.invalid,
        run.unacknowledged.get());
    return failed == 0 ? 0 : 1;
  }

  /** The topic's partition count; fails fast on a missing topic or an unreachable broker. */
  private int partitionCount(Map<String, Object> client) throws Exception {
    Map<String, Object> settings =
        TopicSettings.adminSettings(
            bootstrap, client, java.time.Duration.ofSeconds(TOPIC_CHECK_SECONDS));
    try (Admin admin = Admin.create(settings)) {
      return admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(TOPIC_CHECK_SECONDS, TimeUnit.SECONDS)
          .get(topic)
          .partitions()
          .size();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException u) {
        throw u;
      }
      if (e.getCause() instanceof AuthenticationException a) {
        throw a;
      }
      if (e.getCause() instanceof AuthorizationException a) {
        throw a;
      }
      throw new java.io.IOException(
          "cannot describe topic '" + topic + "' on " + bootstrap + ": " + e.getCause(), e);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new java.io.IOException(
          "no answer from " + bootstrap + " in " + TOPIC_CHECK_SECONDS + " s", e);
    }
  }

  /** The counts of one file; the acknowledgements arrive on the producer's thread. */
  private static final class Run {
    final AtomicLong acknowledged = new AtomicLong();
    final AtomicLong unacknowledged = new AtomicLong();
    final AtomicLong deletes = new AtomicLong();
    final List<String> errors = Collections.synchronizedList(new ArrayList<>());
    long lines;
    long invalid;

    void line(
        DocProducer producer, UpdateParser parser, int maxLineBytes, byte[] b, int off, int len) {
      long lineNumber = ++lines;
      if (len > 0 && b[off + len - 1] == '\r') {
        len--;
      }
      if (blank(b, off, len)) {
        return;
      }
      Update u;
      try {
        if (len > maxLineBytes) {
          throw new InvalidUpdateException("line longer than " + maxLineBytes + " bytes");
        }
        u = parser.parseLine(b, off, len);
      } catch (InvalidUpdateException e) {
        invalid++;
        addError("line " + lineNumber + ": " + e.getMessage());
        return;
      }
      var sent =
          u.isDelete()
              ? producer.delete(u.id())
              : u.expiresAtMillis() > 0
                  ? producer.put(u.id(), u.body(), u.expiresAtMillis())
                  : producer.put(u.id(), u.body());
      sent.whenComplete(
          (at, e) -> {
            if (e == null) {
              acknowledged.incrementAndGet();
              if (u.isDelete()) {
                deletes.incrementAndGet();
              }
            } else {
              unacknowledged.incrementAndGet();
              addError("line " + lineNumber + ": not acknowledged: " + e.getMessage());
            }
          });
    }

    void addError(String error) {
      if (errors.size() < SHOWN_ERRORS) {
        errors.add(error);
      }
    }

    /** The invalid lines in file order, then the records not acknowledged as they failed. */
    List<String> errors() {
      synchronized (errors) {
        return new ArrayList<>(errors);
      }
    }

    private static boolean blank(byte[] b, int off, int len) {
      for (int i = off; i < off + len; i++) {
        if (b[i] != ' ' && b[i] != '\t') {
          return false;
        }
      }
      return true;
    }
  }
}
