package io.docstore.kafka.local;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.properties.MetaPropertiesEnsemble;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node Apache Kafka (broker and KRaft controller in this JVM) on loopback ports:
 *
 * <pre>
 * java -Xmx512m -cp CLASSPATH io.docstore.kafka.local.LocalKafka \
 *     --dir DIR --port P --controller-port C [--partitions-default N] [--topic NAME]
 *     [--sasl-port S --sasl-user NAME:PASSWORD] [--stop-when-stdin-closes]
 * </pre>
 *
 * formats {@code DIR/logs} as a KRaft log directory unless it is formatted already, starts the
 * server, and prints exactly one line to stdout, {@code kafka ready bootstrap=127.0.0.1:P}, once an
 * Admin client could create a topic (a validate-only creation, which needs a registered, unfenced
 * broker), having first created {@code --topic} (compacted, {@code --partitions-default}
 * partitions) if it was given and does not exist yet. It then runs until SIGTERM (a clean shutdown:
 * exit 0) or SIGKILL. Logging (WARN and above) goes to stderr. With {@code
 * --stop-when-stdin-closes} it also shuts down cleanly when its standard input reaches its end:
 * {@link KafkaProcess} keeps a pipe open there, so a broker whose parent died (a test JVM killed by
 * a timeout) does not outlive it.
 *
 * <p>The settings are those of a test and development box with two cores: small thread pools, one
 * replica everywhere (offsets topic with one partition), a broker session of 3 s (a broker
 * restarted after SIGKILL waits for its old session to time out before it serves), no automatic
 * topic creation (a shard must see an unknown topic as one), the log cleaner on with a small dedupe
 * buffer (compacted topics compact, checked every second), 64 MiB segments, time retention of one
 * day for non-compacted topics, and messages up to 2 MiB (docstore's default document limit is 1
 * MiB, docs/formats/kafka-messages.md). Ports are the caller's: restarting on the same directory
 * needs the same controller port (static quorum).
 *
 * <p>With {@code --sasl-port} the broker also listens there for clients that authenticate with
 * SASL/PLAIN (no TLS: {@code security.protocol = SASL_PLAINTEXT}, {@code sasl.mechanism = PLAIN})
 * as the one user {@code --sasl-user} names, so that a client's security settings can be tried
 * against a real broker; every other client is refused there. The plain port stays open (topics are
 * created through it).
 */
public final class LocalKafka {

  /** The line printed once the broker serves clients; followed by the bootstrap address. */
  public static final String READY = "kafka ready bootstrap=";

  private static final String HOST = "127.0.0.1";
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

  private LocalKafka() {}

  public static void main(String[] args) throws Exception {
    Args a;
    try {
      a = Args.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("LocalKafka: " + e.getMessage());
      System.err.println(
          "usage: LocalKafka --dir DIR --port P --controller-port C [--partitions-default N]"
              + " [--topic NAME] [--sasl-port S --sasl-user NAME:PASSWORD]"
              + " [--stop-when-stdin-closes]");
      System.exit(2);
      return;
    }
    Properties props = serverProperties(a);
    KafkaConfig config = KafkaConfig.fromProps(props, false);
    format(a.dir.resolve("logs"));
    KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown, "local-kafka-shutdown"));
    server.startup();
    String bootstrap = HOST + ":" + a.port;
    awaitReady(bootstrap);
    if (a.topic != null) {
      createTopic(bootstrap, a.topic, a.partitionsDefault);
    }
    System.out.println(READY + bootstrap);
    System.out.flush();
    if (a.stopWhenStdinCloses) {
      Thread watch =
          new Thread(
              () -> {
                try {
                  while (System.in.read() >= 0) {
                    // nothing is ever sent; only the end of the pipe matters
                  }
                } catch (java.io.IOException e) {
                  // a broken pipe is an end too
                }
                System.exit(0); // runs the shutdown hook: a clean shutdown
              },
              "local-kafka-stdin-watch");
      watch.setDaemon(true);
      watch.start();
    }
    server.awaitShutdown();
  }

  private static Properties serverProperties(Args a) {
    Properties p = new Properties();
    p.putAll(plainProperties(a));
    if (a.saslPort > 0) {
      p.put("listeners", p.get("listeners") + ",SASL_PLAINTEXT://" + HOST + ":" + a.saslPort);
      p.put(
          "advertised.listeners",
          p.get("advertised.listeners") + ",SASL_PLAINTEXT://" + HOST + ":" + a.saslPort);
      p.put(
          "listener.security.protocol.map",
          p.get("listener.security.protocol.map") + ",SASL_PLAINTEXT:SASL_PLAINTEXT");
      p.put("sasl.enabled.mechanisms", "PLAIN");
      p.put(
          "listener.name.sasl_plaintext.plain.sasl.jaas.config",
          "org.apache.kafka.common.security.plain.PlainLoginModule required user_"
              + a.saslUser
              + "=\""
              + a.saslPassword
              + "\";");
    }
    return p;
  }

  private static Map<String, String> plainProperties(Args a) {
    return Map.ofEntries(
        Map.entry("process.roles", "broker,controller"),
        Map.entry("node.id", "1"),
        Map.entry("controller.quorum.voters", "1@" + HOST + ":" + a.controllerPort),
        Map.entry(
            "listeners",
            "PLAINTEXT://"
                + HOST
                + ":"
                + a.port
                + ",CONTROLLER://"
                + HOST
                + ":"
                + a.controllerPort),
        Map.entry("advertised.listeners", "PLAINTEXT://" + HOST + ":" + a.port),
        Map.entry("controller.listener.names", "CONTROLLER"),
        Map.entry("inter.broker.listener.name", "PLAINTEXT"),
        Map.entry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"),
        Map.entry("log.dirs", a.dir.resolve("logs").toString()),
        Map.entry("num.partitions", Integer.toString(a.partitionsDefault)),
        Map.entry("default.replication.factor", "1"),
        Map.entry("auto.create.topics.enable", "false"),
        Map.entry("offsets.topic.replication.factor", "1"),
        Map.entry("offsets.topic.num.partitions", "1"),
        Map.entry("transaction.state.log.replication.factor", "1"),
        Map.entry("transaction.state.log.min.isr", "1"),
        Map.entry("share.coordinator.state.topic.replication.factor", "1"),
        Map.entry("share.coordinator.state.topic.min.isr", "1"),
        Map.entry("group.initial.rebalance.delay.ms", "0"),
        // A broker restarted after SIGKILL registers again only once its old session timed
        // out: 3 s instead of 9 s.
        Map.entry("broker.session.timeout.ms", "3000"),
        Map.entry("broker.heartbeat.interval.ms", "1000"),
        Map.entry("num.network.threads", "2"),
        Map.entry("num.io.threads", "2"),
        Map.entry("background.threads", "2"),
        Map.entry("num.recovery.threads.per.data.dir", "1"),
        Map.entry("log.cleaner.enable", "true"),
        Map.entry("log.cleaner.threads", "1"),
        Map.entry("log.cleaner.dedupe.buffer.size", Integer.toString(16 << 20)),
        Map.entry("log.cleaner.backoff.ms", "1000"),
        Map.entry("log.segment.bytes", Integer.toString(64 << 20)),
        Map.entry("log.retention.hours", "24"),
        Map.entry("message.max.bytes", Integer.toString(2 << 20)),
        Map.entry("replica.fetch.max.bytes", Integer.toString(2 << 20)));
  }

  /**
   * Formats {@code logs} for node 1 of a new cluster, unless it is formatted already (it holds
   * {@code meta.properties}, which names the cluster it belongs to).
   */
  private static void format(Path logs) throws Exception {
    if (Files.exists(logs.resolve(MetaPropertiesEnsemble.META_PROPERTIES_NAME))) {
      return;
    }
    Files.createDirectories(logs);
    new Formatter()
        .setPrintStream(System.err)
        .setClusterId(Uuid.randomUuid().toString())
        .setNodeId(1)
        .setControllerListenerName("CONTROLLER")
        .setMetadataLogDirectory(logs.toString())
        .setDirectories(Set.of(logs.toString()))
        .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
        .run();
  }

  /**
   * Creates {@code topic} as docstore's update topic wants it (docs/formats/kafka-messages.md):
   * compacted, {@code partitions} partitions, one replica; nothing if it exists already.
   */
  private static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(p)) {
      if (admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)) {
        return;
      }
      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, partitions, (short) 1)
                      .configs(Map.of("cleanup.policy", "compact"))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  /** Waits until a topic could be created (validate only: nothing is created). */
  private static void awaitReady(String bootstrap) throws InterruptedException {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    try (Admin admin = Admin.create(p)) {
      while (true) {
        try {
          admin
              .createTopics(
                  List.of(new NewTopic("local-kafka-ready-probe", 1, (short) 1)),
                  new CreateTopicsOptions().validateOnly(true))
              .all()
              .get(10, TimeUnit.SECONDS);
          return;
        } catch (ExecutionException | java.util.concurrent.TimeoutException notYet) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "the broker on " + bootstrap + " did not accept a topic in " + READY_TIMEOUT,
                notYet);
          }
          Thread.sleep(200); // the broker registers with its controller in the background
        }
      }
    }
  }

  /** The command line. */
  record Args(
      Path dir,
      int port,
      int controllerPort,
      int partitionsDefault,
      String topic,
      int saslPort,
      String saslUser,
      String saslPassword,
      boolean stopWhenStdinCloses) {

    static Args parse(String[] args) {
      Path dir = null;
      int port = -1;
      int controllerPort = -1;
      int partitions = 1;
      String topic = null;
      int saslPort = -1;
      String saslUser = null;
      boolean stdin = false;
      for (int i = 0; i < args.length; i++) {
        String name = args[i];
        if (name.equals("--stop-when-stdin-closes")) {
          stdin = true;
          continue;
        }
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("missing value after " + name);
        }
        String value = args[++i];
        switch (name) {
          case "--dir" -> dir = Path.of(value);
          case "--port" -> port = number(name, value, 1, 65535);
          case "--controller-port" -> controllerPort = number(name, value, 1, 65535);
          case "--partitions-default" -> partitions = number(name, value, 1, 10_000);
          case "--topic" -> topic = value;
          case "--sasl-port" -> saslPort = number(name, value, 1, 65535);
          case "--sasl-user" -> saslUser = value;
          default -> throw new IllegalArgumentException("unknown option " + name);
        }
      }
      if (dir == null || port < 0 || controllerPort < 0) {
        throw new IllegalArgumentException("--dir, --port and --controller-port are required");
      }
      if (port == controllerPort) {
        throw new IllegalArgumentException("--port and --controller-port must differ");
      }
      if ((saslPort > 0) != (saslUser != null)) {
        throw new IllegalArgumentException("--sasl-port and --sasl-user go together");
      }
      String user = null;
      String password = null;
      if (saslUser != null) {
        int colon = saslUser.indexOf(':');
        user = colon > 0 ? saslUser.substring(0, colon) : "";
        password = colon > 0 ? saslUser.substring(colon + 1) : "";
        if (!user.matches("[A-Za-z0-9_-]+") || !password.matches("[^\"\\\\]+")) {
          throw new IllegalArgumentException(
              "--sasl-user must be NAME:PASSWORD (a name of letters, digits, _ and -; a password"
                  + " without quotes or backslashes)");
        }
        if (saslPort == port || saslPort == controllerPort) {
          throw new IllegalArgumentException("--sasl-port must differ from the other ports");
        }
      }
      return new Args(
          dir, port, controllerPort, partitions, topic, saslPort, user, password, stdin);
    }

    private static int number(String name, String value, int min, int max) {
      int v;
      try {
        v = Integer.parseInt(value);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(name + " must be a number, got '" + value + "'");
      }
      if (v < min || v > max) {
        throw new IllegalArgumentException(name + " must be in " + min + ".." + max + ", got " + v);
      }
      return v;
    }
  }
}
