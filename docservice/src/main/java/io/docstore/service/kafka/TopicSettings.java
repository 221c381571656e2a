package io.docstore.service.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;

/**
 * What a shard checks of its update topic's settings at start (docs/formats/kafka-messages.md,
 * "Topic"): that Kafka keeps every document's last version, so that a shard rebuilt from the topic,
 * or a partition moved to another shard, gets every document. A topic whose cleanup deletes old
 * messages (cleanup.policy without {@code compact}, or with {@code delete} too, under a finite
 * retention) is reported, not refused: the running shard already holds what it consumed. The check
 * needs the DescribeConfigs right on the topic; without it, or without an answer, it reports that
 * it could not check.
 */
public final class TopicSettings {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private TopicSettings() {}

  /**
   * An admin client's settings: the bootstrap servers, then those of {@code client} that an admin
   * client knows (the security settings; a producer's or a consumer's own are left out), then the
   * request timeouts.
   */
  public static Map<String, Object> adminSettings(
      String bootstrapServers, Map<String, ?> client, Duration timeout) {
    Map<String, Object> settings = new HashMap<>();
    for (Map.Entry<String, ?> e : client.entrySet()) {
      if (AdminClientConfig.configNames().contains(e.getKey())) {
        settings.put(e.getKey(), e.getValue());
      }
    }
    settings.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    settings.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    settings.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    return settings;
  }

  /** The warnings about {@code options.topic()}'s settings; empty when it keeps every document. */
  static List<String> check(KafkaOptions options) {
    String topic = options.topic();
    Config config;
    try (Admin admin =
        Admin.create(adminSettings(options.bootstrapServers(), options.client(), TIMEOUT))) {
      ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      config =
          admin.describeConfigs(List.of(r)).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).get(r);
    } catch (ExecutionException | KafkaException e) {
      Throwable why = e instanceof ExecutionException ? e.getCause() : e;
      return List.of("topic '" + topic + "': its settings could not be checked: " + why);
    } catch (TimeoutException e) {
      return List.of(
          "topic '" + topic + "': its settings could not be checked (no answer in 10 s)");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of("topic '" + topic + "': its settings were not checked (interrupted)");
    }
    return check(topic, config);
  }

  /** The warnings about a topic of settings {@code config}. */
  static List<String> check(String topic, Config config) {
    List<String> warnings = new ArrayList<>();
    String policy = value(config, TopicConfig.CLEANUP_POLICY_CONFIG, "delete");
    String retentionMs = value(config, TopicConfig.RETENTION_MS_CONFIG, "604800000");
    String retentionBytes = value(config, TopicConfig.RETENTION_BYTES_CONFIG, "-1");
    boolean deletes =
        List.of(policy.split(",")).stream().map(String::trim).anyMatch("delete"::equals);
    if (deletes && !(retentionMs.equals("-1") && retentionBytes.equals("-1"))) {
      warnings.add(
          "topic '"
              + topic
              + "' has cleanup.policy="
              + policy
              + " with retention.ms="
              + retentionMs
              + " and retention.bytes="
              + retentionBytes
              + ": Kafka deletes old messages, so a shard rebuilt from the topic, or a partition"
              + " moved to another shard, would lack the documents they held; the update topic"
              + " wants cleanup.policy=compact (docs/formats/kafka-messages.md)");
    }
    return warnings;
  }

  private static String value(Config config, String name, String otherwise) {
    ConfigEntry e = config == null ? null : config.get(name);
    return e == null || e.value() == null ? otherwise : e.value();
  }
}
