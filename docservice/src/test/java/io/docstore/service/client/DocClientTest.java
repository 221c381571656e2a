package io.docstore.service.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.client.DocClient;
import io.docstore.client.DocClientException;
import io.docstore.client.DocClientException.Reason;
import io.docstore.client.Document;
import io.docstore.io.TestSupport;
import io.docstore.service.rpc.RpcServer;
import io.docstore.service.rpc.TestSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DocClientTest {

  private final List<RpcServer> servers = new ArrayList<>();
  private final List<DocClient> clients = new ArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @AfterEach
  void stop() {
    clients.forEach(DocClient::close);
    servers.forEach(RpcServer::close);
  }

  private RpcServer serve(TestSource source, int port, RpcServer.Options.Builder options)
      throws IOException {
    RpcServer s = new RpcServer(source, options.port(port).build(), registry);
    s.start();
    servers.add(s);
    return s;
  }

  private RpcServer serve(TestSource source) throws IOException {
    return serve(source, 0, RpcServer.Options.builder());
  }

  private DocClient client(DocClient.Builder b, RpcServer... targets) {
    List<InetSocketAddress> addrs = new ArrayList<>();
    for (RpcServer s : targets) {
      addrs.add(new InetSocketAddress("127.0.0.1", s.port()));
    }
    DocClient c = b.servers(addrs).build();
    clients.add(c);
    return c;
  }

  private DocClient client(RpcServer... targets) {
    return client(DocClient.builder(), targets);
  }

  private static void assertSame(Document got, Document want) {
    assertThat(got).isNotNull();
    assertThat(got.id()).isEqualTo(want.id());
    assertThat(got.sequence()).isEqualTo(want.sequence());
    assertThat(got.acceptedAtMillis()).isEqualTo(want.acceptedAtMillis());
    assertThat(got.body()).isEqualTo(want.body());
  }

  @Test
  void getAndGetAllRoundTrip() throws IOException {
    TestSource source = new TestSource().fill(100);
    DocClient c = client(serve(source));
    assertSame(c.get(42), source.doc(42));
    assertThat(c.get(1_000_000)).isNull();
    Document[] docs = c.getAll(new long[] {3, 500, 3, 99});
    assertSame(docs[0], source.doc(3));
    assertThat(docs[1]).isNull();
    assertSame(docs[2], source.doc(3));
    assertSame(docs[3], source.doc(99));
    assertThat(c.getAll(new long[0])).isEmpty();
    assertThatThrownBy(() -> c.get(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aSlowRequestDoesNotHoldUpLaterOnesOnTheSameConnection() throws Exception {
    TestSource source = new TestSource().fill(10);
    java.util.concurrent.CountDownLatch gate = source.block(1);
    DocClient c = client(serve(source));
    java.util.concurrent.CompletableFuture<Document> slow =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> c.get(1));
    while (source.calls() == 0) {
      Thread.onSpinWait(); // until the slow request is at the server
    }
    assertSame(c.get(2), source.doc(2));
    assertThat(slow).isNotDone();
    gate.countDown();
    assertSame(slow.get(5, TimeUnit.SECONDS), source.doc(1));
  }

  @Test
  void largeBatchesAreSplitAtTheLimit() throws IOException {
    TestSource source = new TestSource().fill(2600);
    DocClient c = client(serve(source));
    for (int n : new int[] {1000, 1001, 2600}) {
      long before = source.calls();
      long[] ids = LongStream.range(0, n).toArray();
      Document[] docs = c.getAll(ids);
      for (int i = 0; i < n; i++) {
        assertSame(docs[i], source.doc(i));
      }
      assertThat(source.calls() - before).as("%d ids", n).isEqualTo((n + 999) / 1000);
    }
  }

  @Test
  void entriesCutByTheResponseLimitAreFetchedAgain() throws IOException {
    TestSource source = new TestSource();
    for (int i = 0; i < 40; i++) {
      source.put(i, i + 1, 500);
    }
    DocClient c = client(serve(source, 0, RpcServer.Options.builder().maxResponseBytes(2048)));
    Document[] docs = c.getAll(LongStream.range(0, 40).toArray());
    for (int i = 0; i < 40; i++) {
      assertSame(docs[i], source.doc(i));
    }
    assertThat(source.calls()).isGreaterThan(5);
  }

  @Test
  void corruptCopyIsReadFromAnotherServer() throws IOException {
    TestSource bad = new TestSource().fill(10);
    bad.corrupt(4);
    TestSource good = new TestSource().fill(10);
    DocClient both = client(serve(bad), serve(good));
    for (int i = 0; i < 10; i++) {
      assertSame(both.get(4), good.doc(4));
    }
    DocClient onlyBad = client(servers.get(0));
    assertThatThrownBy(() -> onlyBad.get(4))
        .isInstanceOf(DocClientException.class)
        .hasMessageContaining("corrupt")
        .satisfies(
            e -> assertThat(((DocClientException) e).reason()).isEqualTo(Reason.SERVER_ERROR));
  }

  @Test
  void noServerUpFailsWithinTheTimeout() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    DocClient c =
        DocClient.builder()
            .servers(List.of(new InetSocketAddress("127.0.0.1", port)))
            .requestTimeout(Duration.ofMillis(300))
            .build();
    clients.add(c);
    long start = System.nanoTime();
    assertThatThrownBy(() -> c.get(1))
        .isInstanceOf(DocClientException.class)
        .hasMessageContaining("no server connected")
        .satisfies(
            e -> assertThat(((DocClientException) e).reason()).isEqualTo(Reason.UNREACHABLE));
    assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(2));
  }

  @Test
  void serverKilledMidRunLosesNoReadsAndIsReconnectedWhenBack() throws Exception {
    TestSource source = new TestSource().fill(1000);
    RpcServer a = serve(source);
    RpcServer b = serve(source);
    int portB = b.port();
    DocClient c = client(DocClient.builder().slotsPerServer(2), a, b);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong reads = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> readers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int seed = t;
        readers.add(
            pool.submit(
                () -> {
                  long id = seed;
                  while (!stop.get()) {
                    id = (id * 31 + 7) % 1000;
                    long[] ids = {id, (id + 1) % 1000, (id + 2) % 1000};
                    Document[] docs = c.getAll(ids);
                    for (int i = 0; i < ids.length; i++) {
                      assertSame(docs[i], source.doc(ids[i]));
                    }
                    reads.incrementAndGet();
                  }
                  return null;
                }));
      }
      awaitReads(reads, 300);
      b.close();
      long atKill = reads.get();
      awaitReads(reads, atKill + 300);
      // Back on the same port: the client reconnects and sends it work again.
      long callsBefore = source.calls();
      RpcServer b2 = serve(source, portB, RpcServer.Options.builder());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!c.isConnected(new InetSocketAddress("127.0.0.1", b2.port()))) {
        assertThat(System.nanoTime()).as("reconnect within 10 s").isLessThan(deadline);
        Thread.onSpinWait();
      }
      awaitReads(reads, reads.get() + 300);
      assertThat(source.calls()).isGreaterThan(callsBefore);
      stop.set(true);
      for (Future<?> f : readers) {
        f.get(10, TimeUnit.SECONDS); // rethrows any failed read
      }
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
  }

  @Test
  void serverProcessKilledWithSigkillLosesNoReads() throws Exception {
    TestSource expected = new TestSource().fill(1000);
    List<Process> children = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    AtomicBoolean stop = new AtomicBoolean();
    try {
      List<InetSocketAddress> addrs = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        Process p = TestSupport.startJvm(RpcServerMain.class, List.of(), "1000");
        children.add(p);
        addrs.add(new InetSocketAddress("127.0.0.1", childPort(p)));
      }
      DocClient c = DocClient.builder().servers(addrs).slotsPerServer(2).build();
      clients.add(c);
      AtomicLong reads = new AtomicLong();
      List<Future<?>> readers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int seed = t;
        readers.add(
            pool.submit(
                () -> {
                  long id = seed;
                  while (!stop.get()) {
                    id = (id * 31 + 7) % 1000;
                    long[] ids = {id, (id + 500) % 1000};
                    Document[] docs = c.getAll(ids);
                    for (int i = 0; i < ids.length; i++) {
                      assertSame(docs[i], expected.doc(ids[i]));
                    }
                    reads.incrementAndGet();
                  }
                  return null;
                }));
      }
      awaitReads(reads, 500);
      TestSupport.kill9(children.get(0));
      awaitReads(reads, reads.get() + 500);
      stop.set(true);
      for (Future<?> f : readers) {
        f.get(10, TimeUnit.SECONDS); // rethrows any failed read
      }
    } finally {
      stop.set(true);
      pool.shutdownNow();
      for (Process p : children) {
        TestSupport.kill9(p);
      }
    }
  }

  /** Reads the child's "PORT n" line, then keeps draining its stdout so it never blocks. */
  private static int childPort(Process p) throws IOException {
    java.io.BufferedReader out = TestSupport.stdout(p);
    String line;
    while ((line = out.readLine()) != null && !line.startsWith("PORT ")) {
      // Log lines printed before the port.
    }
    assertThat(line).as("child server printed its port").isNotNull();
    Thread drain =
        new Thread(
            () -> {
              try {
                while (out.readLine() != null) {
                  // Discard.
                }
              } catch (IOException closed) {
                // The child is gone.
              }
            });
    drain.setDaemon(true);
    drain.start();
    return Integer.parseInt(line.substring(5));
  }

  private static void awaitReads(AtomicLong reads, long target) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (reads.get() < target) {
      assertThat(System.nanoTime()).as("reads stalled at %d", reads.get()).isLessThan(deadline);
      Thread.onSpinWait();
    }
  }

  @Test
  void slowServerShedsLoadToTheFastOne() throws Exception {
    // The slow server hangs until released, so the split does not depend on machine load: it
    // holds exactly its own slots while every other request goes to the fast one.
    TestSource slow = new TestSource().fill(100);
    java.util.concurrent.CountDownLatch release = slow.blockAll();
    TestSource fast = new TestSource().fill(100);
    DocClient c =
        client(
            DocClient.builder().slotsPerServer(2).requestTimeout(Duration.ofSeconds(60)),
            serve(slow),
            serve(fast));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 100; i++) {
                    assertThat(c.get(i % 100).body()).isEqualTo(fast.doc(i % 100).body());
                  }
                  return null;
                }));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (fast.calls() < 190) {
        assertThat(System.nanoTime())
            .as("fast server progress: %d", fast.calls())
            .isLessThan(deadline);
        Thread.onSpinWait();
      }
      System.out.printf("slow server: %d requests, fast server: %d%n", slow.calls(), fast.calls());
      assertThat(slow.calls())
          .as("the hung server got only its own slots' worth")
          .isLessThanOrEqualTo(2);
      release.countDown();
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
    assertThat(slow.calls() + fast.calls()).isEqualTo(400);
  }

  @Test
  void getAtLeastSkipsAStaleReplica() throws IOException {
    TestSource replica = new TestSource().put(7, 5, 10);
    TestSource primary = new TestSource().put(7, 9, 10);
    DocClient c =
        client(
            DocClient.builder().requestTimeout(Duration.ofMillis(500)),
            serve(replica),
            serve(primary));
    for (int i = 0; i < 20; i++) {
      assertThat(c.getAtLeast(7, 9).sequence()).isEqualTo(9);
      assertThat(c.getAtLeast(7, 5).sequence()).isIn(5L, 9L);
    }
    assertThatThrownBy(() -> c.getAtLeast(7, 10))
        .isInstanceOf(DocClientException.class)
        .hasMessageContaining("sequence >= 10");
  }
}
