package io.docstore.service.cli;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * Where an inspecting command (get, stats) reads: a data directory opened directly (no server may
 * hold it) or a running server over HTTP. A picocli argument group: at most one of the two.
 */
final class InspectTarget {

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description = "Open the data directory directly (no server may be running on it).")
  Path data;

  @Option(
      names = "--server",
      paramLabel = "HOST:PORT",
      description = "Ask a running server instead (get: its read port; stats: its admin port).")
  String server;

  /** GETs {@code path} from {@link #server}, with the admin token when one is given. */
  HttpResponse<byte[]> fetch(String path, String token) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    HttpRequest.Builder req =
        HttpRequest.newBuilder(URI.create("http://" + server + path))
            .timeout(Duration.ofSeconds(30));
    if (token != null) {
      req.header("Authorization", "Bearer " + token);
    }
    return http.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
  }
}
