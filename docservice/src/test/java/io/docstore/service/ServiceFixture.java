package io.docstore.service;

import io.docstore.service.config.DocstoreConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** Starts a real {@link Service} on loopback with free ports over a temp dir, and talks to it. */
public final class ServiceFixture implements AutoCloseable {

  public final Service service;
  public final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private ServiceFixture(Service service) {
    this.service = service;
  }

  /**
   * Test configuration: free ports, no RPC, short timeouts; {@code extra} overrides (full keys).
   */
  public static DocstoreConfig config(Path dir, Map<String, Object> extra) {
    Map<String, Object> o = new HashMap<>();
    o.put("docstore.data-dir", dir.toString());
    o.put("docstore.http.read.port", 0);
    o.put("docstore.http.admin.port", 0);
    o.put("docstore.rpc.enabled", false);
    o.put("docstore.rpc.port", 0);
    o.put("docstore.http.request-timeout", "1s");
    o.put("docstore.index.checkpoint-interval", "200ms");
    o.put("docstore.shutdown-timeout", "5s");
    o.putAll(extra);
    return DocstoreConfig.load(null, o);
  }

  public static ServiceFixture start(Path dir) throws IOException, InterruptedException {
    return start(dir, Map.of());
  }

  public static ServiceFixture start(Path dir, Map<String, Object> extra)
      throws IOException, InterruptedException {
    return new ServiceFixture(Service.start(config(dir, extra)));
  }

  public URI read(String pathAndQuery) {
    return URI.create(service.readUrl() + pathAndQuery);
  }

  public URI admin(String pathAndQuery) {
    return URI.create(service.adminUrl() + pathAndQuery);
  }

  public HttpResponse<String> send(HttpRequest req) throws IOException, InterruptedException {
    return http.send(req, HttpResponse.BodyHandlers.ofString());
  }

  public HttpResponse<String> get(String pathAndQuery) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(read(pathAndQuery)).GET().build());
  }

  public HttpResponse<String> put(long id, String json) throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(admin("/docs/" + id))
            .PUT(HttpRequest.BodyPublishers.ofString(json))
            .build());
  }

  public HttpResponse<String> delete(long id) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(admin("/docs/" + id)).DELETE().build());
  }

  public HttpResponse<String> adminGet(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(admin(path)).GET().build());
  }

  @Override
  public void close() throws IOException {
    service.close();
  }
}
