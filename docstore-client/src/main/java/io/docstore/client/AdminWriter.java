package io.docstore.client;

import io.docstore.client.DocClientException.Reason;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/**
 * The writes of {@link DocClient}, over the primary's admin HTTP port with the JDK's {@link
 * HttpClient}: {@code PUT /docs/{id}}, {@code DELETE /docs/{id}} (answered {@code {"id":N,"seq":S}}
 * once durable) and {@code POST /docs/_bulk} (NDJSON in, one result line per input line out). Every
 * failure becomes a {@link DocClientException} with its reason. Thread-safe.
 */
final class AdminWriter {

  private final HttpClient http;
  private final InetSocketAddress address;
  private final URI base;
  private final String token;
  private final Duration timeout;
  private final int maxBulkDocuments;
  private final int maxBulkBytes;
  private volatile boolean closed;

  /**
   * @param token the admin token, or null for none
   */
  AdminWriter(
      InetSocketAddress address,
      String token,
      Duration connectTimeout,
      Duration timeout,
      int maxBulkDocuments,
      int maxBulkBytes) {
    this.address = address;
    this.base = URI.create("http://" + address.getHostString() + ":" + address.getPort());
    this.token = token;
    this.timeout = timeout;
    this.maxBulkDocuments = maxBulkDocuments;
    this.maxBulkBytes = maxBulkBytes;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(connectTimeout)
            .build();
  }

  CompletableFuture<Long> put(long id, byte[] json) {
    checkId(id);
    if (json == null) {
      throw new IllegalArgumentException("null document body for ID " + id);
    }
    HttpRequest req =
        request("/docs/" + id)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofByteArray(json))
            .build();
    return send(req, "put " + id, r -> sequence(r.body()));
  }

  CompletableFuture<Long> delete(long id) {
    checkId(id);
    return send(request("/docs/" + id).DELETE().build(), "delete " + id, r -> sequence(r.body()));
  }

  /**
   * One {@code _bulk} request with a put line per entry, in the map's iteration order.
   *
   * @throws IllegalArgumentException for a negative ID, a null body or a body holding a line break
   *     (a bulk line cannot carry one; {@link #put} can)
   */
  CompletableFuture<Map<Long, Long>> putAll(Map<Long, byte[]> docs) {
    int n = docs.size();
    if (n == 0) {
      return CompletableFuture.completedFuture(Map.of());
    }
    if (n > maxBulkDocuments) {
      return CompletableFuture.failedFuture(
          new DocClientException(
              Reason.TOO_LARGE,
              "putAll of "
                  + n
                  + " documents: the limit is "
                  + maxBulkDocuments
                  + " per call (the server's bulk.max-lines); split the batch"));
    }
    long[] ids = new long[n];
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    int i = 0;
    for (Map.Entry<Long, byte[]> e : docs.entrySet()) {
      long id = e.getKey();
      byte[] doc = e.getValue();
      checkId(id);
      if (doc == null) {
        throw new IllegalArgumentException("null document body for ID " + id);
      }
      for (byte b : doc) {
        if (b == '\n') {
          throw new IllegalArgumentException(
              "document " + id + " holds a line break; a bulk line cannot (use put)");
        }
      }
      ids[i++] = id;
      body.writeBytes(("{\"id\":" + id + ",\"doc\":").getBytes(StandardCharsets.US_ASCII));
      body.writeBytes(doc);
      body.writeBytes(new byte[] {'}', '\n'});
      if (body.size() > maxBulkBytes) {
        return CompletableFuture.failedFuture(
            new DocClientException(
                Reason.TOO_LARGE,
                "putAll body exceeds "
                    + maxBulkBytes
                    + " bytes after "
                    + i
                    + " of "
                    + n
                    + " documents (the server's bulk.max-body); split the batch"));
      }
    }
    HttpRequest req =
        request("/docs/_bulk")
            .header("Content-Type", "application/x-ndjson")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()))
            .build();
    return send(req, "putAll of " + n, r -> bulkResults(ids, r.body()));
  }

  void close() {
    closed = true;
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout);
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }

  /** Sends {@code req}; a 200 answer goes through {@code answer}, anything else fails. */
  private <T> CompletableFuture<T> send(
      HttpRequest req, String what, Function<HttpResponse<String>, T> answer) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new DocClientException(Reason.CLOSED, what + ": the client is closed"));
    }
    CompletableFuture<T> out = new CompletableFuture<>();
    http.sendAsync(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
        .whenComplete(
            (r, t) -> {
              try {
                if (t != null) {
                  out.completeExceptionally(transportFailure(what, t));
                } else if (r.statusCode() != 200) {
                  out.completeExceptionally(refusal(what, r));
                } else {
                  out.complete(answer.apply(r));
                }
              } catch (DocClientException e) {
                out.completeExceptionally(e);
              } catch (RuntimeException e) {
                out.completeExceptionally(
                    new DocClientException(
                        Reason.SERVER_ERROR,
                        what + ": " + address + " answered what the client cannot read: " + e,
                        200,
                        null,
                        e));
              }
            });
    return out;
  }

  private DocClientException transportFailure(String what, Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    if (c instanceof HttpConnectTimeoutException || c instanceof ConnectException) {
      return new DocClientException(
          Reason.UNREACHABLE, what + ": cannot connect to " + address + ": " + c, c);
    }
    if (c instanceof HttpTimeoutException) {
      return new DocClientException(
          Reason.TIMEOUT,
          what
              + ": no answer from "
              + address
              + " within "
              + timeout.toMillis()
              + " ms; it may or may not have been applied",
          c);
    }
    if (c instanceof IOException) {
      return new DocClientException(
          Reason.UNREACHABLE,
          what
              + ": connection to "
              + address
              + " failed ("
              + c
              + "); it may or may not have been applied",
          c);
    }
    return new DocClientException(Reason.SERVER_ERROR, what + ": " + c, c);
  }

  /** A non-200 answer: the server's reason text, and the reason by status. */
  private DocClientException refusal(String what, HttpResponse<String> r) {
    int status = r.statusCode();
    String text = errorText(r.body());
    Reason reason =
        status == 413 ? Reason.TOO_LARGE : status < 500 ? Reason.REJECTED : Reason.SERVER_ERROR;
    return new DocClientException(
        reason, what + ": " + address + " answered " + status + ": " + text, status, text, null);
  }

  /** The {@code "error"} of an error body, or the body itself when it is not one. */
  private static String errorText(String body) {
    try {
      Object e = FlatJson.parse(body).get("error");
      if (e instanceof String s) {
        return s;
      }
    } catch (IllegalArgumentException notJson) {
      // fall through: the raw text is the best reason there is
    }
    return body.strip();
  }

  private static long sequence(String body) {
    Object seq = FlatJson.parse(body).get("seq");
    if (!(seq instanceof Long s)) {
      throw new IllegalArgumentException("no sequence in " + body);
    }
    return s;
  }

  /** Matches the result lines to {@code ids} by line number. */
  private Map<Long, Long> bulkResults(long[] ids, String body) {
    Map<Long, Long> applied = new LinkedHashMap<>();
    Map<Long, String> refused = new LinkedHashMap<>();
    for (String line : body.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      Map<String, Object> m = FlatJson.parse(line);
      if (!(m.get("line") instanceof Long no) || no < 1 || no > ids.length) {
        throw new IllegalArgumentException("result line without a valid line number: " + line);
      }
      long id = ids[(int) (no - 1)];
      if (m.get("seq") instanceof Long seq) {
        applied.put(id, seq);
      } else {
        refused.put(id, String.valueOf(m.get("error")));
      }
    }
    if (applied.size() + refused.size() != ids.length) {
      throw new IllegalArgumentException(
          (applied.size() + refused.size()) + " results for " + ids.length + " documents");
    }
    if (!refused.isEmpty()) {
      List<String> first = new ArrayList<>();
      refused.entrySet().stream()
          .limit(3)
          .forEach(e -> first.add(e.getKey() + ": " + e.getValue()));
      throw new BulkWriteException(
          address
              + " refused "
              + refused.size()
              + " of "
              + ids.length
              + " documents (the other "
              + applied.size()
              + " were applied): "
              + String.join("; ", first)
              + (refused.size() > 3 ? "; ..." : ""),
          applied,
          refused);
    }
    return applied;
  }

  private static void checkId(long id) {
    if (id < 0) {
      throw new IllegalArgumentException("negative document ID " + id);
    }
  }
}
