package io.docstore.service.cli;

import io.docstore.service.DocStore;
import io.docstore.service.metrics.StatsJson;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code docstore stats}: prints the statistics of a data directory or of a running server (its
 * admin port).
 */
@Command(
    name = "stats",
    mixinStandardHelpOptions = true,
    description = "Print statistics (sequence numbers, queue, index, cache) as JSON.")
final class StatsCommand implements Callable<Integer> {

  @ArgGroup(exclusive = true)
  InspectTarget source = new InspectTarget();

  @Option(names = "--config", paramLabel = "FILE", description = "Configuration file.")
  Path config;

  @Option(
      names = "--token",
      paramLabel = "TOKEN",
      description = "Admin token, when the server requires one.")
  String token;

  @Override
  public Integer call() throws Exception {
    if (source.server != null) {
      HttpResponse<byte[]> r = source.fetch("/stats", token);
      String body = new String(r.body(), StandardCharsets.UTF_8);
      if (r.statusCode() != 200) {
        System.err.println("stats: " + r.statusCode() + " " + body);
        return 1;
      }
      System.out.println(body);
      return 0;
    }
    try (DocStore store = OfflineStore.openExisting(OfflineStore.config(config, source.data))) {
      System.out.println(StatsJson.pretty(store.stats()));
      return 0;
    }
  }
}
