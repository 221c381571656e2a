package io.docstore.service.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.client.BulkWriteException;
import io.docstore.client.DocClient;
import io.docstore.client.DocClientException;
import io.docstore.client.DocClientException.Reason;
import io.docstore.client.Document;
import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.service.ServiceFixture;
import io.docstore.service.testing.TcpProxy;
import io.docstore.service.torture.SeamService;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DocClient}'s writes over the admin port and its failures, each against a real running
 * service (RPC on): the sequence numbers writes return, the future forms, and one test per {@link
 * Reason} a caller must be able to tell apart.
 */
class DocClientWritesTest {

  @TempDir Path dir;

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private <T extends AutoCloseable> T keep(T c) {
    open.add(c);
    return c;
  }

  private ServiceFixture serve(Map<String, Object> extra) throws Exception {
    Map<String, Object> o = new HashMap<>(extra);
    o.put("docstore.rpc.enabled", true);
    return keep(ServiceFixture.start(dir, o));
  }

  private static InetSocketAddress local(int port) {
    return new InetSocketAddress("127.0.0.1", port);
  }

  private DocClient client(ServiceFixture f, DocClient.Builder b) {
    return keep(
        b.servers(List.of(local(f.service.rpcPort()))).admin(local(f.service.adminPort())).build());
  }

  private static byte[] json(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static DocClientException failure(ThrowingCallable call) {
    Throwable[] caught = new Throwable[1];
    assertThatThrownBy(call).isInstanceOf(DocClientException.class).satisfies(t -> caught[0] = t);
    return (DocClientException) caught[0];
  }

  @Test
  void putReturnsTheSequenceReadsSeeAndDeleteRemoves() throws Exception {
    DocClient c = client(serve(Map.of()), DocClient.builder());
    long first = c.put(42, json("{\"title\":\"Line Cook\"}"));
    long second = c.put(42, json("{\"title\":\"Sous Chef\"}"));
    assertThat(second).isGreaterThan(first);
    Document doc = c.getAtLeast(42, second);
    assertThat(doc.sequence()).isEqualTo(second);
    assertThat(new String(doc.body(), StandardCharsets.UTF_8))
        .isEqualTo("{\"title\":\"Sous Chef\"}");
    long deleted = c.delete(42);
    assertThat(deleted).isGreaterThan(second);
    assertThat(c.get(42)).isNull();
    assertThat(c.delete(43)).as("deleting an absent ID is recorded").isGreaterThan(deleted);
    c.close();
    assertThat(failure(() -> c.get(42)).reason()).isEqualTo(Reason.CLOSED);
    assertThat(failure(() -> c.put(42, json("{}"))).reason()).isEqualTo(Reason.CLOSED);
    ExecutionException read =
        org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class, () -> c.getAsync(42).get(5, TimeUnit.SECONDS));
    assertThat(((DocClientException) read.getCause()).reason()).isEqualTo(Reason.CLOSED);
  }

  @Test
  void futureFormsOfReadsAndWrites() throws Exception {
    DocClient c = client(serve(Map.of()), DocClient.builder());
    List<CompletableFuture<Long>> puts = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      puts.add(c.putAsync(i, json("{\"n\":" + i + "}")));
    }
    long[] seqs = new long[20];
    for (int i = 0; i < 20; i++) {
      seqs[i] = puts.get(i).get(10, TimeUnit.SECONDS);
    }
    assertThat(seqs).doesNotHaveDuplicates();
    Document[] docs = c.getAllAsync(new long[] {3, 19, 99}).get(10, TimeUnit.SECONDS);
    assertThat(docs[0].sequence()).isEqualTo(seqs[3]);
    assertThat(docs[1].body()).isEqualTo(json("{\"n\":19}"));
    assertThat(docs[2]).isNull();
    assertThat(c.getAtLeastAsync(5, seqs[5]).get(10, TimeUnit.SECONDS).sequence())
        .isEqualTo(seqs[5]);
    long del = c.deleteAsync(5).get(10, TimeUnit.SECONDS);
    assertThat(del).isGreaterThan(seqs[19]);
    assertThat(c.getAsync(5).get(10, TimeUnit.SECONDS)).isNull();
    Map<Long, Long> bulk = c.putAllAsync(Map.of(7L, json("{\"b\":1}"))).get(10, TimeUnit.SECONDS);
    assertThat(bulk.get(7L)).isGreaterThan(del);
  }

  @Test
  void putAllAppliesEveryDocumentInOneRequestAndReturnsEachSequence() throws Exception {
    ServiceFixture f = serve(Map.of());
    DocClient c = client(f, DocClient.builder());
    Map<Long, byte[]> docs = new LinkedHashMap<>();
    for (long id = 100; id < 150; id++) {
      docs.put(id, json("{\"id\":" + id + ",\"s\":\"a\\nb\"}"));
    }
    Map<Long, Long> seqs = c.putAll(docs);
    assertThat(seqs).hasSize(50);
    assertThat(seqs.values()).doesNotHaveDuplicates();
    for (long id = 100; id < 150; id++) {
      Document d = c.get(id);
      assertThat(d.sequence()).isEqualTo(seqs.get(id));
      assertThat(d.body()).isEqualTo(docs.get(id));
    }
    assertThat(c.putAll(Map.of())).isEmpty();
    assertThatThrownBy(() -> c.putAll(Map.of(1L, json("{\n\"a\":1}"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("line break");
  }

  @Test
  void aRefusedDocumentInPutAllIsNamedAndTheOthersAreApplied() throws Exception {
    DocClient c = client(serve(Map.of()), DocClient.builder());
    Map<Long, byte[]> docs = new LinkedHashMap<>();
    docs.put(1L, json("{\"ok\":1}"));
    docs.put(2L, json("[1,2]"));
    docs.put(3L, json("{\"ok\":3}"));
    DocClientException e = failure(() -> c.putAll(docs));
    assertThat(e).isInstanceOf(BulkWriteException.class);
    assertThat(e.reason()).isEqualTo(Reason.REJECTED);
    BulkWriteException b = (BulkWriteException) e;
    assertThat(b.applied()).containsOnlyKeys(1L, 3L);
    assertThat(b.refused()).containsOnlyKeys(2L);
    assertThat(b.refused().get(2L)).isNotBlank();
    assertThat(e.getMessage()).contains("2: " + b.refused().get(2L));
    assertThat(c.get(3).sequence()).isEqualTo(b.applied().get(3L));
    assertThat(c.get(2)).isNull();
  }

  @Test
  void invalidDocumentIsRejectedWithTheServersReason() throws Exception {
    DocClient c = client(serve(Map.of()), DocClient.builder());
    DocClientException e = failure(() -> c.put(1, json("not json")));
    assertThat(e.reason()).isEqualTo(Reason.REJECTED);
    assertThat(e.httpStatus()).isEqualTo(400);
    assertThat(e.serverMessage()).isNotBlank();
    assertThat(e.getMessage()).contains("400").contains(e.serverMessage());
    assertThat(c.get(1)).isNull();
  }

  @Test
  void theAdminTokenIsSentAndWithoutItWritesAreRejected() throws Exception {
    ServiceFixture f = serve(Map.of("docstore.http.admin.token", "s3cret"));
    DocClient with = client(f, DocClient.builder().adminToken("s3cret"));
    long seq = with.put(9, json("{\"a\":1}"));
    DocClient without = client(f, DocClient.builder());
    DocClientException e = failure(() -> without.put(9, json("{\"a\":2}")));
    assertThat(e.reason()).isEqualTo(Reason.REJECTED);
    assertThat(e.httpStatus()).isEqualTo(401);
    assertThat(with.get(9).sequence()).isEqualTo(seq);
  }

  @Test
  void aFailedWriteIsAServerErrorWithTheServersReason() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    SeamService s = keep(SeamService.start(dir, fs));
    DocClient c =
        keep(DocClient.builder().admin(local(URI.create(s.adminUrl()).getPort())).build());
    c.put(1, json("{\"a\":1}"));
    fs.failAfter(FaultInjectingFileSystem.Op.FORCE, 0);
    DocClientException e = failure(() -> c.put(2, json("{\"a\":2}")));
    assertThat(e.reason()).isEqualTo(Reason.SERVER_ERROR);
    assertThat(e.httpStatus()).isEqualTo(503);
    assertThat(e.serverMessage()).startsWith("write failed, nothing acknowledged");
    assertThat(e.getMessage()).contains(e.serverMessage());
    assertThatThrownBy(() -> c.get(1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("RPC server");
  }

  @Test
  void aServerThatIsNotThereIsUnreachable() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    DocClient c =
        keep(
            DocClient.builder()
                .servers(List.of(local(port)))
                .admin(local(port))
                .requestTimeout(Duration.ofMillis(300))
                .build());
    DocClientException w = failure(() -> c.put(1, json("{}")));
    assertThat(w.reason()).isEqualTo(Reason.UNREACHABLE);
    assertThat(w.getMessage()).contains("cannot connect to").contains(String.valueOf(port));
    ExecutionException async =
        org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class, () -> c.deleteAsync(1).get(5, TimeUnit.SECONDS));
    assertThat(((DocClientException) async.getCause()).reason()).isEqualTo(Reason.UNREACHABLE);
    long start = System.nanoTime();
    DocClientException r = failure(() -> c.get(1));
    assertThat(r.reason()).isEqualTo(Reason.UNREACHABLE);
    assertThat(r.getMessage()).contains("no server connected");
    assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(2));
  }

  @Test
  void aServerThatStopsAnsweringTimesOut() throws Exception {
    ServiceFixture f = serve(Map.of());
    TcpProxy admin = keep(new TcpProxy(local(f.service.adminPort())));
    TcpProxy rpc = keep(new TcpProxy(local(f.service.rpcPort())));
    DocClient c =
        keep(
            DocClient.builder()
                .servers(List.of(rpc.address()))
                .admin(admin.address())
                .requestTimeout(Duration.ofMillis(300))
                .writeTimeout(Duration.ofMillis(300))
                .build());
    long seq = c.put(1, json("{\"a\":1}"));
    assertThat(c.getAtLeast(1, seq).sequence()).isEqualTo(seq);
    admin.stall();
    rpc.stall();
    long start = System.nanoTime();
    DocClientException w = failure(() -> c.put(2, json("{\"a\":2}")));
    assertThat(w.reason()).isEqualTo(Reason.TIMEOUT);
    assertThat(w.getMessage()).contains("may or may not have been applied");
    DocClientException r = failure(() -> c.get(1));
    assertThat(r.reason()).isEqualTo(Reason.TIMEOUT);
    assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(5));
    admin.unstall();
    rpc.unstall();
  }

  @Test
  void batchesOverTheLimitsAreTooLargeBeforeAnythingIsSent() throws Exception {
    ServiceFixture f = serve(Map.of());
    DocClient c = client(f, DocClient.builder());
    Map<Long, byte[]> many = new HashMap<>();
    for (long id = 0; id <= 10_000; id++) {
      many.put(id, json("{}"));
    }
    DocClientException lines = failure(() -> c.putAll(many));
    assertThat(lines.reason()).isEqualTo(Reason.TOO_LARGE);
    assertThat(lines.getMessage()).contains("10001 documents").contains("limit is 10000");
    DocClient small = client(f, DocClient.builder().maxBulkBytes(100));
    Map<Long, byte[]> big = new LinkedHashMap<>();
    big.put(1L, json("{\"a\":\"" + "x".repeat(60) + "\"}"));
    big.put(2L, json("{\"a\":\"" + "x".repeat(60) + "\"}"));
    DocClientException bytes = failure(() -> small.putAll(big));
    assertThat(bytes.reason()).isEqualTo(Reason.TOO_LARGE);
    assertThat(bytes.getMessage()).contains("exceeds 100 bytes").contains("bulk.max-body");
    assertThat(c.getAll(new long[] {0, 1, 2})).containsOnlyNulls();
  }

  @Test
  void batchesTheServerFindsTooLargeAreTooLargeWithItsReason() throws Exception {
    ServiceFixture f =
        serve(
            Map.of(
                "docstore.bulk.max-lines", 2,
                "docstore.queue.max-body", "1K",
                "docstore.rpc.max-batch", 10));
    DocClient c = client(f, DocClient.builder().maxIdsPerRequest(20));
    Map<Long, byte[]> three = new LinkedHashMap<>();
    for (long id = 1; id <= 3; id++) {
      three.put(id, json("{}"));
    }
    DocClientException bulk = failure(() -> c.putAll(three));
    assertThat(bulk.reason()).isEqualTo(Reason.TOO_LARGE);
    assertThat(bulk.httpStatus()).isEqualTo(413);
    assertThat(bulk.serverMessage()).contains("more than 2 lines");
    DocClientException doc = failure(() -> c.put(1, json("{\"a\":\"" + "x".repeat(2000) + "\"}")));
    assertThat(doc.reason()).isEqualTo(Reason.TOO_LARGE);
    assertThat(doc.httpStatus()).isEqualTo(413);
    DocClientException ids = failure(() -> c.getAll(new long[15]));
    assertThat(ids.reason()).isEqualTo(Reason.TOO_LARGE);
    assertThat(ids.getMessage()).contains("too_many_ids");
    assertThat(ids.serverMessage()).isNotBlank();
  }
}
