package io.docstore.service.cli;

import io.docstore.service.DocStore;
import io.docstore.service.metrics.StatsJson;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code docstore stats}: prints the statistics of a data directory or of a running server (its admin port). */
@Command(name = "stats", mixinStandardHelpOptions = true,
    description = "Print statistics (sequence numbers, queue, index, cache) as JSON.")
final class StatsCommand implements Callable<Integer> {

  @ArgGroup(exclusive = true)
  Target target = new Target();

  @Option(names = "--config", paramLabel = "FILE", description = "Configuration file.")
  Path config;

  @Option(names = "--token", paramLabel = "TOKEN", description = "Admin token, when the server requires one.")
  String token;

  /** Where to read from. */
  static final class Target {
    @Option(names = "--data", paramLabel = "DIR", description = "Open the data directory directly (no server may be running on it).")
    Path data;

    @Option(names = "--server", paramLabel = "HOST:PORT", description = "Ask a running server's admin port.")
    String server;
  }

  @Override
  public Integer call() throws Exception {
    if (target.server != null) {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://" + target.server + "/stats")).timeout(Duration.ofSeconds(30));
      if (token != null) {
        req.header("Authorization", "Bearer " + token);
      }
      HttpResponse<String> r = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        System.err.println("stats: " + r.statusCode() + " " + r.body());
        return 1;
      }
      System.out.println(r.body());
      return 0;
    }
    try (DocStore store = Offline.open(Offline.config(config, target.data))) {
      System.out.println(StatsJson.pretty(store.stats()));
      return 0;
    }
  }
}
