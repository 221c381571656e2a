package io.docstore.service.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.docstore.client.DocClient;
import io.docstore.client.DocClientException;
import io.docstore.client.DocClientException.Reason;
import io.docstore.client.Document;
import io.docstore.service.ServiceFixture;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Field groups read over the binary RPC (GET_MANY_GROUP) through {@link DocClient}, against a real
 * service with {@code docstore.groups} configured and documents written over HTTP: the projections
 * with their documents' sequences, null for absent, deleted and expired documents, batches split
 * like whole-document reads, the future form, and an unknown group refused as {@link
 * Reason#REJECTED} with the server's message naming the known groups, on a connection that keeps
 * serving.
 */
class GroupsRpcTest {

  private static final Pattern SEQ = Pattern.compile("\"seq\":(\\d+)");

  @TempDir Path dir;

  private static long seq(HttpResponse<String> put) {
    assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
    Matcher m = SEQ.matcher(put.body());
    assertThat(m.find()).as(put.body()).isTrue();
    return Long.parseLong(m.group(1));
  }

  private static String text(Document d) {
    return new String(d.body(), StandardCharsets.UTF_8);
  }

  private static DocClient.Builder client(ServiceFixture s) {
    return DocClient.builder()
        .servers(List.of(new InetSocketAddress("127.0.0.1", s.service.rpcPort())))
        .requestTimeout(Duration.ofSeconds(5));
  }

  private static DocClientException failure(Throwable t) {
    Throwable c = t instanceof ExecutionException ? t.getCause() : t;
    assertThat(c).isInstanceOf(DocClientException.class);
    return (DocClientException) c;
  }

  @Test
  void groupReadsAnswerProjectionsWithTheDocumentsSequences() throws Exception {
    try (ServiceFixture s =
            ServiceFixture.start(
                dir,
                Map.of(
                    "docstore.rpc.enabled", true,
                    "docstore.groups.summary", List.of("title", "company"),
                    "docstore.groups.pay", List.of("salary")));
        DocClient client = client(s).build();
        DocClient small = client(s).maxIdsPerRequest(2).build()) {
      String doc1 = "{\"title\":\"Engineer\",\"text\":\"long description\",\"company\":\"ACME\"}";
      long seq1 = seq(s.put(1, doc1));
      long seq2 = seq(s.put(2, "{\"salary\":100,\"title\":\"Cook\"}"));
      seq(s.put(3, "{\"title\":\"Gone\"}"));
      assertThat(s.delete(3).statusCode()).isEqualTo(200);
      long expiresAt = System.currentTimeMillis() + 1500;
      long seq4 =
          seq(
              s.send(
                  HttpRequest.newBuilder(s.admin("/docs/4"))
                      .header("X-Expires-At", Long.toString(expiresAt))
                      .PUT(HttpRequest.BodyPublishers.ofString("{\"title\":\"Soon\",\"x\":1}"))
                      .build()));
      long[] ids = {1, 2, 3, 4, 5};

      Document[] summary = client.getAll(ids, "summary");
      assertThat(summary).hasSize(5);
      assertThat(summary[0].id()).isEqualTo(1);
      assertThat(text(summary[0])).isEqualTo("{\"title\":\"Engineer\",\"company\":\"ACME\"}");
      assertThat(summary[0].sequence()).isEqualTo(seq1);
      assertThat(summary[1].id()).isEqualTo(2);
      assertThat(text(summary[1])).isEqualTo("{\"title\":\"Cook\"}");
      assertThat(summary[1].sequence()).isEqualTo(seq2);
      assertThat(summary[2]).as("deleted").isNull();
      assertThat(text(summary[3])).isEqualTo("{\"title\":\"Soon\"}");
      assertThat(summary[3].sequence()).isEqualTo(seq4);
      assertThat(summary[4]).as("never written").isNull();

      // Another group; the whole documents are unchanged and carry the same versions.
      Document[] pay = client.getAll(new long[] {2, 1}, "pay");
      assertThat(text(pay[0])).isEqualTo("{\"salary\":100}");
      assertThat(pay[0].sequence()).isEqualTo(seq2);
      assertThat(text(pay[1])).isEqualTo("{}");
      Document[] whole = client.getAll(new long[] {1, 2});
      assertThat(text(whole[0])).isEqualTo(doc1);
      assertThat(whole[0].sequence()).isEqualTo(seq1);
      assertThat(whole[1].sequence()).isEqualTo(seq2);

      // Split into requests of two IDs, answered in the caller's order, duplicates included.
      Document[] split = small.getAll(new long[] {5, 2, 1, 3, 2}, "summary");
      assertThat(split[0]).isNull();
      assertThat(split[1].sequence()).isEqualTo(seq2);
      assertThat(split[2].sequence()).isEqualTo(seq1);
      assertThat(split[3]).isNull();
      assertThat(text(split[4])).isEqualTo("{\"title\":\"Cook\"}");

      // The future form.
      Document[] async = client.getAllAsync(ids, "summary").get(10, TimeUnit.SECONDS);
      assertThat(text(async[0])).isEqualTo(text(summary[0]));
      assertThat(async[1].sequence()).isEqualTo(seq2);
      assertThat(async[2]).isNull();
      assertThat(async[4]).isNull();

      // An update re-projects: the new projection at the new version.
      long seq1b = seq(s.put(1, "{\"title\":\"Senior Engineer\",\"salary\":7}"));
      assertThat(seq1b).isGreaterThan(seq1);
      Document updated = client.getAll(new long[] {1}, "summary")[0];
      assertThat(text(updated)).isEqualTo("{\"title\":\"Senior Engineer\"}");
      assertThat(updated.sequence()).isEqualTo(seq1b);

      // Expired: gone from the group as from the document.
      while (System.currentTimeMillis() <= expiresAt) {
        Thread.sleep(50);
      }
      assertThat(client.getAll(new long[] {4}, "summary")[0]).isNull();
      assertThat(client.get(4)).isNull();
    }
  }

  @Test
  void anUnknownGroupIsRejectedWithTheKnownGroupsAndTheConnectionKeepsServing() throws Exception {
    try (ServiceFixture s =
            ServiceFixture.start(
                dir,
                Map.of(
                    "docstore.rpc.enabled", true,
                    "docstore.groups.summary", List.of("title", "company"),
                    "docstore.groups.pay", List.of("salary")));
        DocClient client = client(s).build()) {
      long seq1 = seq(s.put(1, "{\"title\":\"Engineer\",\"company\":\"ACME\"}"));

      DocClientException e = failure(catchThrowable(() -> client.getAll(new long[] {1}, "nope")));
      assertThat(e.reason()).isEqualTo(Reason.REJECTED);
      assertThat(e.serverMessage()).contains("nope").contains("summary, pay");
      assertThat(e.getMessage()).contains("unknown_group").contains("summary, pay");
      assertThat(e.httpStatus()).isZero();

      Throwable async =
          catchThrowable(
              () -> client.getAllAsync(new long[] {1}, "nope").get(10, TimeUnit.SECONDS));
      assertThat(failure(async).reason()).isEqualTo(Reason.REJECTED);
      assertThat(failure(async).serverMessage()).contains("summary, pay");

      // Still connected; the same connection serves the next reads.
      InetSocketAddress rpc = new InetSocketAddress("127.0.0.1", s.service.rpcPort());
      assertThat(client.isConnected(rpc)).isTrue();
      assertThat(client.getAll(new long[] {1}, "summary")[0].sequence()).isEqualTo(seq1);
      assertThat(client.get(1).sequence()).isEqualTo(seq1);
      assertThat(s.adminGet("/metrics").body())
          .containsPattern("docstore_rpc_errors_total\\{code=\"unknown_group\"[^}]*} 2");

      // Names that cannot be sent are refused before anything is sent.
      assertThatThrownBy(() -> client.getAll(new long[] {1}, ""))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> client.getAll(new long[] {1}, "g".repeat(65)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> client.getAll(new long[] {-1}, "summary"))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void withoutGroupsEveryGroupIsRejected() throws Exception {
    try (ServiceFixture s = ServiceFixture.start(dir, Map.of("docstore.rpc.enabled", true));
        DocClient client = client(s).build()) {
      seq(s.put(1, "{\"title\":\"Engineer\"}"));
      DocClientException e =
          failure(catchThrowable(() -> client.getAll(new long[] {1}, "summary")));
      assertThat(e.reason()).isEqualTo(Reason.REJECTED);
      assertThat(e.serverMessage()).contains("no field groups are configured");
      assertThat(client.get(1)).isNotNull();
    }
  }
}
