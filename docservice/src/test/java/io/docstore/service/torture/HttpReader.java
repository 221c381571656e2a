package io.docstore.service.torture;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Reads documents over the read port for the {@link AckLedger} checker: status, ETag sequence,
 * body.
 */
final class HttpReader implements AckLedger.Reader {

  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .version(HttpClient.Version.HTTP_1_1)
          .build();
  private final String readUrl;

  HttpReader(String readUrl) {
    this.readUrl = readUrl;
  }

  @Override
  public AckLedger.Read read(long id) throws IOException, InterruptedException {
    HttpResponse<byte[]> r = get("/docs/" + id);
    long seq =
        r.headers().firstValue("etag").map(s -> Long.parseLong(s.replace("\"", ""))).orElse(-1L);
    return new AckLedger.Read(r.statusCode(), seq, r.body());
  }

  HttpResponse<byte[]> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(readUrl + path)).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }
}
