package io.docstore.service.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FileSystem;
import io.docstore.service.testing.MemcachedProcess;
import io.docstore.service.testing.TcpProxy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the contract and the failure cases against a real memcached. */
class MemcachedDocCacheTest extends DocCacheContractTest {

  private static final Duration TIMEOUT = Duration.ofMillis(200);
  private static MemcachedProcess memcached;

  /**
   * One store's data directory: every cache of these tests is that store's (they share its
   * generation).
   */
  @TempDir static Path dataDir;

  @BeforeAll
  static void startMemcached() throws Exception {
    memcached = MemcachedProcess.start();
  }

  @AfterAll
  static void stopMemcached() throws Exception {
    memcached.close();
  }

  @Override
  protected DocCache newCache() throws IOException {
    return open(List.of(memcached));
  }

  /** A cache over {@code servers}, once it trusts them (its start-up flush is done). */
  static MemcachedDocCache open(List<MemcachedProcess> servers) throws IOException {
    return openAt(servers.stream().map(MemcachedProcess::address).toList());
  }

  static MemcachedDocCache openAt(List<InetSocketAddress> servers) throws IOException {
    return openAt(servers, TIMEOUT);
  }

  static MemcachedDocCache openAt(List<InetSocketAddress> servers, Duration timeout)
      throws IOException {
    return openAt(servers, timeout, CacheEpoch.open(FileSystem.real(), dataDir));
  }

  static MemcachedDocCache openAt(
      List<InetSocketAddress> servers, Duration timeout, CacheEpoch epoch) {
    MemcachedDocCache c = MemcachedDocCache.create(servers, timeout, epoch);
    await(c::isTrusted, "cache trusted");
    return c;
  }

  static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
      Thread.onSpinWait();
    }
  }

  /** Talks the memcached text protocol directly, bypassing the client and its checks. */
  static String raw(MemcachedProcess m, String command, byte[] data) throws IOException {
    try (Socket s = new Socket("127.0.0.1", m.port())) {
      s.setSoTimeout(2000);
      OutputStream out = s.getOutputStream();
      out.write(command.getBytes(StandardCharsets.US_ASCII));
      out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
      if (data != null) {
        out.write(data);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
      }
      out.flush();
      InputStream in = s.getInputStream();
      StringBuilder sb = new StringBuilder();
      int c;
      while ((c = in.read()) >= 0) {
        sb.append((char) c);
        String got = sb.toString();
        if (got.endsWith("END\r\n") || got.endsWith("STORED\r\n") || got.endsWith("ERROR\r\n")) {
          break;
        }
      }
      return sb.toString();
    }
  }

  static void rawSet(MemcachedProcess m, String key, byte[] value) throws IOException {
    assertThat(raw(m, "set " + key + " 0 0 " + value.length, value)).isEqualTo("STORED\r\n");
  }

  static boolean rawHas(MemcachedProcess m, String key) throws IOException {
    return raw(m, "get " + key, null).startsWith("VALUE ");
  }

  @Test
  void damagedValuesAreMissesAndGetReplaced() throws IOException {
    MemcachedDocCache c = (MemcachedDocCache) cache;
    byte[] good = CacheEntryFormat.encode(1, 5, body("doc one"));
    byte[] flipped = good.clone();
    flipped[CacheEntryFormat.BODY_OFFSET + 2] ^= 0x10;
    byte[] badCrc = good.clone();
    badCrc[good.length - 1] ^= 1;
    byte[] otherId = CacheEntryFormat.encode(2, 5, body("doc one"));
    byte[] truncated = java.util.Arrays.copyOf(good, good.length - 3);
    byte[] newerVersion = good.clone();
    newerVersion[CacheEntryFormat.VERSION_OFFSET] = CacheEntryFormat.VERSION + 1;
    byte[][] damage = {
      flipped,
      badCrc,
      otherId,
      truncated,
      newerVersion,
      new byte[0],
      "garbage from someone else".getBytes(StandardCharsets.US_ASCII)
    };
    for (int i = 0; i < damage.length; i++) {
      rawSet(memcached, c.key(1), damage[i]);
      assertThat(c.get(1)).as("damage %d", i).isNull();
      assertThat(c.corruptValues()).isEqualTo(i + 1);
      // The bad value was deleted, so a fill can store the real document again.
      await(
          () -> {
            try {
              return !rawHas(memcached, c.key(1));
            } catch (IOException e) {
              throw new AssertionError(e);
            }
          },
          "delete of damaged value");
      c.fill(1, 5, body("doc one"));
      assertThat(c.get(1).body()).isEqualTo(body("doc one"));
    }
    rawSet(memcached, c.key(1), good);
    assertThat(c.get(1).sequence()).isEqualTo(5);
  }

  @Test
  void keysSpreadOverTwoServersConsistently() throws Exception {
    CacheEpoch epoch = CacheEpoch.open(FileSystem.real(), dataDir);
    try (MemcachedProcess second = MemcachedProcess.start();
        MemcachedDocCache writer =
            openAt(List.of(memcached.address(), second.address()), Duration.ofSeconds(5), epoch)) {
      for (long id = 0; id < 200; id++) {
        writer.set(id, id + 1, body("v" + id));
      }
      int onFirst = 0;
      int onSecond = 0;
      for (long id = 0; id < 200; id++) {
        boolean a = rawHas(memcached, writer.key(id));
        boolean b = rawHas(second, writer.key(id));
        assertThat(a ^ b).as("id %d on exactly one server", id).isTrue();
        onFirst += a ? 1 : 0;
        onSecond += b ? 1 : 0;
      }
      assertThat(onFirst).isBetween(40, 160);
      assertThat(onSecond).isEqualTo(200 - onFirst);
      // Another client of the same store (same servers, other order) maps every key the same way,
      // so it hits. A generous timeout: this checks where keys go, not how fast (a timed-out get
      // reads as a miss and would fail it on a loaded machine).
      try (MemcachedDocCache reader =
          openAt(List.of(second.address(), memcached.address()), Duration.ofSeconds(5), epoch)) {
        for (long id = 0; id < 200; id++) {
          writer.set(
              id, id + 1, body("v" + id)); // the reader's start moved the keys to a new generation
        }
        CachedDoc[] docs = reader.getAll(java.util.stream.LongStream.range(0, 200).toArray());
        for (int id = 0; id < 200; id++) {
          assertThat(docs[id]).as("id %d", id).isNotNull();
          assertThat(docs[id].body()).isEqualTo(body("v" + id));
        }
      }
    }
  }

  @Test
  void killedMemcachedMeansFastMissesAndItReconnectsWhenBack() throws Exception {
    try (MemcachedProcess own = MemcachedProcess.start();
        MemcachedDocCache c = open(List.of(own))) {
      c.set(1, 1, body("one"));
      assertThat(c.get(1)).isNotNull();
      own.kill();
      long worst = 0;
      for (int i = 0; i < 20; i++) {
        long start = System.nanoTime();
        assertThat(c.getAll(new long[] {1, 2})).containsOnlyNulls();
        c.set(3, 10 + i, body("three")); // must not throw
        c.fill(4, 1, body("four"));
        worst = Math.max(worst, System.nanoTime() - start);
      }
      // Each call waits at most the timeout (three calls per round), never hangs.
      assertThat(worst).isLessThan(3 * TIMEOUT.toNanos() + TimeUnit.MILLISECONDS.toNanos(1000));
      assertThat(c.stats().errors() + c.droppedWrites()).isPositive();
      own.restart();
      await(() -> c.isTrusted() && probe(c), "reconnect after restart");
      c.set(5, 1, body("five"));
      assertThat(c.get(5).body()).isEqualTo(body("five"));
      assertThat(c.get(1)).as("memcached came back empty").isNull();
    }
  }

  private static boolean probe(MemcachedDocCache c) {
    c.set(999, 1, body("probe"));
    return c.get(999) != null;
  }

  @Test
  void slowServerBoundsWriteLatencyAndNeverServesTheOldVersion() throws Exception {
    try (MemcachedProcess own = MemcachedProcess.start();
        MemcachedDocCache c = open(List.of(own))) {
      c.set(1, 1, body("old"));
      assertThat(c.get(1).sequence()).isEqualTo(1);
      own.pause(true);
      long start = System.nanoTime();
      c.set(1, 2, body("new")); // times out: dropped
      assertThat(System.nanoTime() - start)
          .isLessThan(TIMEOUT.toNanos() + TimeUnit.MILLISECONDS.toNanos(1000));
      assertThat(c.droppedWrites()).isPositive();
      own.pause(false);
      // Until the cache is flushed, reads bypass it; afterwards the old version is gone.
      for (int i = 0; i < 50; i++) {
        CachedDoc doc = c.get(1);
        assertThat(doc == null || doc.sequence() == 2).as("read %d: %s", i, doc).isTrue();
      }
      await(c::isTrusted, "flush after the dropped write");
      CachedDoc after = c.get(1);
      assertThat(after == null || after.sequence() == 2).isTrue();
    }
  }

  @Test
  void writeDroppedDuringAPartitionNeverResurfaces() throws Exception {
    try (MemcachedProcess own = MemcachedProcess.start();
        TcpProxy proxy = new TcpProxy(own.address());
        MemcachedDocCache c = openAt(List.of(proxy.address()))) {
      c.set(1, 1, body("old"));
      assertThat(c.get(1).sequence()).isEqualTo(1);
      proxy.cut(); // memcached keeps "old"; the client loses its connection
      c.set(1, 2, body("new"));
      assertThat(c.droppedWrites()).isPositive();
      proxy.restore();
      await(() -> c.isTrusted() && probe(c), "reconnect and flush");
      for (int i = 0; i < 20; i++) {
        CachedDoc doc = c.get(1);
        assertThat(doc).as("stale version after the partition healed").isNull();
      }
      assertThat(rawHas(own, c.key(1))).isFalse();
    }
  }

  @Test
  void keysMovedByAnOutageNeverServeTheOldServersCopy() throws Exception {
    try (MemcachedProcess a = MemcachedProcess.start();
        MemcachedProcess b = MemcachedProcess.start();
        TcpProxy proxyA = new TcpProxy(a.address());
        MemcachedDocCache c = openAt(List.of(proxyA.address(), b.address()))) {
      long onA = -1;
      for (long id = 0; id < 100 && onA < 0; id++) {
        c.set(id, 1, body("old"));
        if (rawHas(a, c.key(id))) {
          onA = id;
        }
      }
      assertThat(onA).as("some key hashes to server A").isNotNegative();
      long key = onA;
      proxyA.cut(); // A keeps its copy; ketama moves A's keys to B
      CachedDoc[] fromB = new CachedDoc[1];
      await(
          () -> {
            c.set(key, 2, body("new"));
            fromB[0] = c.isTrusted() ? c.get(key) : null;
            return fromB[0] != null;
          },
          "the key served from B at version 2");
      // The get that saw it (a second one may time out on a busy machine: a miss, not an answer).
      assertThat(fromB[0].sequence()).isEqualTo(2);
      proxyA.restore(); // the key maps back to A, which still holds version 1
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
      while (!c.isTrusted() || !probe(c) || c.getAvailableServerCount() < 2) {
        CachedDoc doc = c.get(key);
        assertThat(doc == null || doc.sequence() == 2)
            .as("read during reconnect: %s", doc)
            .isTrue();
        assertThat(System.nanoTime()).isLessThan(deadline);
      }
      CachedDoc doc = c.get(key);
      assertThat(doc == null || doc.sequence() == 2).as("after reconnect: %s", doc).isTrue();
    }
  }

  /**
   * Other services' keys in a shared pool survive docstore's start, a dropped write and a restart.
   */
  @Test
  void aSharedPoolKeepsOtherServicesKeys(@TempDir Path ownDir) throws Exception {
    try (MemcachedProcess own = MemcachedProcess.start()) {
      rawSet(own, "other-service:session:42", "theirs".getBytes(StandardCharsets.US_ASCII));
      long before;
      try (MemcachedDocCache c =
          openAt(List.of(own.address()), TIMEOUT, CacheEpoch.open(FileSystem.real(), ownDir))) {
        c.set(1, 1, body("old"));
        assertThat(c.get(1).sequence()).isEqualTo(1);
        before = c.renewals();
        own.pause(true);
        c.set(1, 2, body("new")); // times out: dropped, the cache is suspect
        own.pause(false);
        assertThat(c.droppedWrites()).isPositive();
        await(
            () -> c.isTrusted() && c.renewals() > before,
            "a new generation after the dropped write");
        assertThat(c.get(1)).as("the version before the dropped write is out of reach").isNull();
        c.fill(1, 1, body("old"));
        assertThat(c.get(1)).as("a fill older than the dropped write is refused").isNull();
        c.fill(1, 2, body("new"));
        assertThat(c.get(1).sequence()).isEqualTo(2);
      }
      try (MemcachedDocCache restarted =
          openAt(List.of(own.address()), TIMEOUT, CacheEpoch.open(FileSystem.real(), ownDir))) {
        assertThat(restarted.get(1)).as("a restart starts a new generation").isNull();
      }
      assertThat(raw(own, "get other-service:session:42", null)).contains("theirs");
    }
  }

  /** The memcached of these tests is started by the operator's script: UDP off, loopback only. */
  @Test
  void theOperatorsScriptRunsMemcachedSafely() throws IOException {
    String settings = raw(memcached, "stats settings", null);
    assertThat(settings).contains("STAT udpport 0");
    assertThat(memcached.address().getAddress().isLoopbackAddress()).isTrue();
    try (java.net.Socket other = new java.net.Socket()) {
      java.net.InetAddress external = nonLoopbackAddress();
      if (external != null) {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> other.connect(new InetSocketAddress(external, memcached.port()), 1000))
            .as("memcached reachable on %s", external)
            .isInstanceOf(IOException.class);
      }
    }
  }

  private static java.net.InetAddress nonLoopbackAddress() throws IOException {
    for (var nif : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
      for (var a : java.util.Collections.list(nif.getInetAddresses())) {
        if (!a.isLoopbackAddress() && a instanceof java.net.Inet4Address) {
          return a;
        }
      }
    }
    return null;
  }
}
