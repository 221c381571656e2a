package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docstore.io.FileSystem;
import io.docstore.io.TestSupport;
import io.docstore.queue.follow.FollowPoint;
import io.docstore.service.torture.ServeJvm;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replication as it runs in production, every part its own process: the primary ({@code docstore
 * serve} JVM), a real {@code rsync --daemon} started by {@code scripts/rsync-primary} on a free
 * loopback port, two replicas ({@code docstore replica --config F} JVMs) and a writer using the
 * primary's admin HTTP API. Reads go over HTTP with a real client. Checked against a model of every
 * acknowledged write:
 *
 * <ul>
 *   <li>every acknowledged document reads back byte-exact from both replicas; deletes give 404;
 *   <li>a replica SIGKILLed mid-stream restarts and resumes from its persisted point (it ingests
 *       only what follows that point, from its {@code /stats});
 *   <li>rsync processes SIGKILLed mid-transfer on both sides (the replica's client, found in the
 *       replica JVM's process tree, and the daemon's per-connection children) do not stop
 *       convergence;
 *   <li>on one replica a sealed segment loses its tail (zeroed, length kept) and another gets a
 *       flipped bit per page of its middle half, both keeping their size and mtime so that rsync's
 *       quick check would skip them: the replica detects the damage on read (500, never wrong
 *       bytes), deletes and re-fetches the copy, and serves the right bytes again.
 * </ul>
 */
class MultiProcessReplicationTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** IDs written once, in order, in phase 1 (they fill the first, sealed, segments). */
  private static final int FIRST = 1600;

  /** IDs updated and deleted at random in phase 2. */
  private static final int SECOND = 600;

  private static final int BATCH = 100;

  /** Small segments, so that several are sealed (max-body must stay below the segment size). */
  private static final List<String> SEGMENTS =
      List.of("-Ddocstore.queue.segment-size=1M", "-Ddocstore.queue.max-body=64K");

  @TempDir Path tmp;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  /**
   * id → body of the newest acknowledged version; null value (absent key) = never written or
   * deleted.
   */
  private final Map<Long, byte[]> model = new ConcurrentHashMap<>();

  private Random rnd;

  @Test
  void twoReplicaJvmsFollowAPrimaryJvmThroughKillsAndDamage() throws Exception {
    long seed = TestSupport.seed(getClass().getSimpleName());
    rnd = new Random(seed);
    List<String> primaryArgs = new ArrayList<>(SEGMENTS);
    primaryArgs.addAll(
        List.of(
            "-Ddocstore.replication.manifest-interval=10ms",
            "-Ddocstore.index.checkpoint-interval=300ms"));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    AtomicBoolean killing = new AtomicBoolean(true);
    Random killerRnd = new Random(seed + 1);
    long t0 = System.nanoTime();
    List<String> phases = new ArrayList<>();
    // The daemon serves the (still empty) queue directory, so that all three JVMs start at once.
    Files.createDirectories(tmp.resolve("primary/queue"));
    List<CompletableFuture<ServeJvm>> replicaStarts = new ArrayList<>();
    try (RsyncDaemon daemon =
        RsyncDaemon.start(tmp.resolve("primary/queue"), tmp.resolve("rsyncd"))) {
      Path confA = replicaConfig("a", daemon.url());
      Path confB = replicaConfig("b", daemon.url());
      replicaStarts.add(CompletableFuture.supplyAsync(() -> startReplica(confA, "a"), pool));
      replicaStarts.add(CompletableFuture.supplyAsync(() -> startReplica(confB, "b"), pool));
      try (ServeJvm primary =
          ServeJvm.start(tmp.resolve("primary"), tmp.resolve("primary.log"), primaryArgs)) {
        ServeJvm a = replicaStarts.get(0).get(120, TimeUnit.SECONDS);
        ServeJvm b = replicaStarts.get(1).get(120, TimeUnit.SECONDS);
        ServeJvm[] replicaB = {b};
        phases.add("start " + millisSince(t0));
        try {
          // rsync killed mid-transfer, on both sides, while the writer runs.
          AtomicInteger clientKills = new AtomicInteger();
          AtomicInteger daemonKills = new AtomicInteger();
          Future<?> killer =
              pool.submit(
                  () -> {
                    for (int i = 0;
                        killing.get() && clientKills.get() + daemonKills.get() < 8;
                        i++) {
                      Thread.sleep(150 + killerRnd.nextInt(100));
                      if (i % 2 == 0) {
                        ServeJvm victim = i % 4 == 0 ? a : replicaB[0];
                        List<ProcessHandle> rsyncs =
                            victim
                                .process
                                .toHandle()
                                .descendants()
                                .filter(MultiProcessReplicationTest::isRsync)
                                .toList();
                        rsyncs.forEach(ProcessHandle::destroyForcibly);
                        clientKills.addAndGet(rsyncs.isEmpty() ? 0 : 1);
                      } else {
                        List<ProcessHandle> conns = daemon.connections();
                        conns.forEach(
                            c -> {
                              c.descendants().forEach(ProcessHandle::destroyForcibly);
                              c.destroyForcibly();
                            });
                        daemonKills.addAndGet(conns.isEmpty() ? 0 : 1);
                      }
                    }
                    return null;
                  });

          // Phase 1: IDs 0..FIRST-1 written once each. B is SIGKILLed after a persisted point
          // exists.
          FollowPoint saved = null;
          for (int id = 0; id < FIRST; id += BATCH) {
            List<long[]> ops = new ArrayList<>();
            for (int i = id; i < id + BATCH; i++) {
              ops.add(new long[] {i, 1});
            }
            write(primary, ops);
            if (id == FIRST / 2) {
              Path point = tmp.resolve("b").resolve(ReplicaNode.POINT_FILE);
              await(
                  "replica b persisted a point",
                  30,
                  () ->
                      Files.exists(point)
                          && FollowPoint.read(FileSystem.real(), point).ingestedThrough() > 0);
              List<ProcessHandle> tree = b.process.toHandle().descendants().toList();
              b.kill9(); // like kill -9 of the process group: the JVM, then its rsync children
              tree.forEach(ProcessHandle::destroyForcibly);
              saved = FollowPoint.read(FileSystem.real(), point);
            }
            if (id == FIRST / 2 + 2 * BATCH) {
              replicaStarts.add(
                  CompletableFuture.supplyAsync(
                      () -> startReplica(confB, "b"), pool)); // while writes go on
            }
          }
          // Phase 2: IDs FIRST..FIRST+SECOND-1 put and deleted at random.
          for (int round = 0; round < 20; round++) {
            List<long[]> ops = new ArrayList<>();
            for (int i = 0; i < BATCH; i++) {
              long id = FIRST + rnd.nextInt(SECOND);
              ops.add(new long[] {id, model.containsKey(id) && rnd.nextInt(4) == 0 ? 0 : 1});
            }
            write(primary, ops);
          }
          replicaB[0] = b = replicaStarts.get(2).get(120, TimeUnit.SECONDS);
          killing.set(false);
          killer.get(30, TimeUnit.SECONDS);
          phases.add("writes " + millisSince(t0));
          System.out.printf(
              "multi-process replication (seed %d): rsync killed %d times in replica trees, %d daemon"
                  + " connections killed%n",
              seed, clientKills.get(), daemonKills.get());
          assertThat(clientKills.get()).as("rsync clients caught mid-transfer").isPositive();
          assertThat(daemonKills.get()).as("daemon connections caught mid-transfer").isPositive();

          long last = stats(primary).get("durableSequence").asLong();
          assertThat(last).isEqualTo((long) FIRST + 20 * BATCH);
          ServeJvm bb = b;
          await(
              "both replicas at sequence " + last,
              60,
              () -> applied(a) >= last && applied(bb) >= last);
          for (ServeJvm r : List.of(a, b)) {
            List<String> wrong = compare(r, range(0, FIRST + SECOND), pool);
            assertThat(wrong).as("reads from %s", r.readUrl).isEmpty();
          }
          phases.add("converged and compared " + millisSince(t0));
          assertThat(model.size()).as("some phase-2 IDs were deleted").isLessThan(FIRST + SECOND);

          // B resumed at its persisted point instead of re-indexing everything.
          JsonNode sb = stats(b);
          assertThat(saved.ingestedThrough()).isPositive();
          assertThat(sb.get("ingestedRecords").asLong())
              .as("records B ingested after its restart: %s", sb)
              .isEqualTo(last - saved.ingestedThrough());

          // Damage two sealed segments of A's copy, keeping size and mtime.
          List<Path> sealed;
          try (Stream<Path> s = Files.list(tmp.resolve("a/queue"))) {
            sealed =
                s.filter(p -> p.getFileName().toString().endsWith(".sealed")).sorted().toList();
          }
          assertThat(sealed.size())
              .as("sealed segments in A's copy: %s", sealed)
              .isGreaterThanOrEqualTo(2);
          keepingSizeAndMtime(
              sealed.get(0),
              f -> {
                long len = f.length();
                f.setLength(len / 2); // the tail is lost (as a torn copy would lose it) ...
                f.setLength(len); // ... and reads back as zeros
              });
          keepingSizeAndMtime(
              sealed.get(1),
              f -> {
                // A flipped bit in the middle of each page of the middle half: one bit alone may
                // land in a block's padding or in a record no read asks for (an older version),
                // which no read would ever see.
                for (long at = f.length() / 4 + 2048; at < f.length() * 3 / 4; at += 4096) {
                  f.seek(at);
                  int v = f.read();
                  f.seek(at);
                  f.write(v ^ 0x10);
                }
              });
          long corruptAnswers = 0;
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
          long[] ids = range(0, FIRST);
          while (ids.length > 0 && System.nanoTime() < deadline) {
            List<String> wrong = compare(a, ids, pool);
            corruptAnswers += wrong.size();
            assertThat(wrong)
                .as("only failed reads, never wrong bytes")
                .allMatch(w -> w.contains("status 500"));
            ids =
                wrong.stream()
                    .mapToLong(w -> Long.parseLong(w.split(" ")[1].replace(":", "")))
                    .toArray();
            if (ids.length > 0) {
              Thread.sleep(
                  200); // re-ask only the failed ones until the re-fetched copies serve them
            }
          }
          assertThat(compare(a, range(0, FIRST + SECOND), pool))
              .as("A serves every document again after the" + " re-fetch; stats %s", stats(a))
              .isEmpty();
          phases.add("repaired " + millisSince(t0));
          System.out.println(
              "multi-process replication: ms since start: "
                  + phases
                  + "; 500s answered during the"
                  + " repair: "
                  + corruptAnswers);
          JsonNode sa = stats(a);
          assertThat(corruptAnswers).as("damaged blocks answered 500").isPositive();
          assertThat(sa.get("readCorruptions").asLong()).as("%s", sa).isGreaterThanOrEqualTo(2);
          assertThat(sa.get("refetches").asLong()).as("%s", sa).isGreaterThanOrEqualTo(2);
        } finally {
          killing.set(false);
        }
      }
    } finally {
      for (CompletableFuture<ServeJvm> f : replicaStarts) {
        f.thenAccept(ServeJvm::close); // now, or when a start still running completes
      }
      pool.shutdownNow();
    }
  }

  private interface FileEdit {
    void apply(RandomAccessFile f) throws IOException;
  }

  /** Edits {@code file} in place, then puts its size and mtime back as they were. */
  private static void keepingSizeAndMtime(Path file, FileEdit edit) throws IOException {
    FileTime mtime = Files.getLastModifiedTime(file);
    long size = Files.size(file);
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      edit.apply(f);
    }
    Files.setLastModifiedTime(file, mtime);
    assertThat(Files.size(file)).isEqualTo(size);
  }

  private static boolean isRsync(ProcessHandle h) {
    return h.info().command().map(c -> c.endsWith("/rsync") || c.equals("rsync")).orElse(false);
  }

  /**
   * Replica A, whose copies get damaged, runs without a document cache (size 0), so its reads go to
   * the damaged blocks; B keeps the default cache.
   */
  private Path replicaConfig(String name, String source) throws IOException {
    Path conf = tmp.resolve(name + ".conf");
    Files.writeString(
        conf,
        "docstore {\n  data-dir = \""
            + tmp.resolve(name)
            + "\"\n"
            + (name.equals("a") ? "  cache.bytes = 0\n" : "")
            + "  replica {\n    source = \""
            + source
            + "\"\n    pull-interval = 100ms\n"
            + "    checkpoint-interval = 200ms\n    rsync-timeout = 5s\n  }\n}\n");
    return conf;
  }

  private ServeJvm startReplica(Path conf, String name) {
    try {
      return ServeJvm.startReplica(conf, tmp.resolve(name + ".log"), SEGMENTS);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * One {@code _bulk} request of puts ({@code op[1] == 1}) and deletes; the model changes once
   * acknowledged.
   */
  private void write(ServeJvm primary, List<long[]> ops) throws Exception {
    StringBuilder body = new StringBuilder();
    List<byte[]> docs = new ArrayList<>();
    for (long[] op : ops) {
      if (op[1] == 1) {
        byte[] doc = document(op[0]);
        docs.add(doc);
        body.append("{\"id\":")
            .append(op[0])
            .append(",\"doc\":")
            .append(new String(doc, StandardCharsets.UTF_8))
            .append("}\n");
      } else {
        docs.add(null);
        body.append("{\"id\":").append(op[0]).append(",\"op\":\"delete\"}\n");
      }
    }
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(primary.adminUrl + "/docs/_bulk"))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    String[] lines = r.body().split("\n");
    assertThat(lines).hasSize(ops.size());
    for (int i = 0; i < ops.size(); i++) {
      assertThat(JSON.readTree(lines[i]).has("seq")).as(lines[i]).isTrue();
      long id = ops.get(i)[0];
      if (docs.get(i) == null) {
        model.remove(id);
      } else {
        model.put(id, docs.get(i));
      }
    }
  }

  private byte[] document(long id) {
    char[] text = new char[1200 + rnd.nextInt(1200)];
    for (int i = 0; i < text.length; i++) {
      text[i] = (char) ('0' + rnd.nextInt(75)); // '0'..'z': barely compressible, so segments fill
      if (text[i] == '\\') {
        text[i] = '_';
      }
    }
    return ("{\"id\":" + id + ",\"text\":\"" + new String(text) + "\"}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Reads {@code ids} from {@code r} over HTTP; one line per answer that differs from the model
   * ("id N: ...").
   */
  private List<String> compare(ServeJvm r, long[] ids, ExecutorService pool) throws Exception {
    List<Future<String>> answers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int part = t;
      answers.add(
          pool.submit(
              () -> {
                StringBuilder wrong = new StringBuilder();
                for (int k = part; k < ids.length; k += 4) {
                  long id = ids[k];
                  HttpResponse<byte[]> resp =
                      http.send(
                          HttpRequest.newBuilder(URI.create(r.readUrl + "/docs/" + id))
                              .timeout(Duration.ofSeconds(10))
                              .build(),
                          HttpResponse.BodyHandlers.ofByteArray());
                  byte[] want = model.get(id);
                  int wantStatus = want == null ? 404 : 200;
                  if (resp.statusCode() != wantStatus) {
                    wrong
                        .append("id ")
                        .append(id)
                        .append(": status ")
                        .append(resp.statusCode())
                        .append(", expected ")
                        .append(wantStatus)
                        .append('\n');
                  } else if (want != null && !Arrays.equals(resp.body(), want)) {
                    wrong
                        .append("id ")
                        .append(id)
                        .append(": different bytes (")
                        .append(resp.body().length)
                        .append(" vs ")
                        .append(want.length)
                        .append(")\n");
                  }
                }
                return wrong.toString();
              }));
    }
    List<String> out = new ArrayList<>();
    for (Future<String> f : answers) {
      for (String line : f.get(120, TimeUnit.SECONDS).split("\n")) {
        if (!line.isEmpty()) {
          out.add(line);
        }
      }
    }
    return out;
  }

  private static long millisSince(long t0) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }

  private static long[] range(int from, int to) {
    return java.util.stream.LongStream.range(from, to).toArray();
  }

  private JsonNode stats(ServeJvm s) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(s.adminUrl + "/stats"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private long applied(ServeJvm replica) throws Exception {
    return stats(replica).get("appliedSequence").asLong();
  }

  private interface Check {
    boolean done() throws Exception;
  }

  private static void await(String what, int seconds, Check check) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!check.done()) {
      assertThat(System.nanoTime()).as("timed out waiting for " + what).isLessThan(deadline);
      Thread.sleep(50);
    }
  }
}
