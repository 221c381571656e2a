package io.docstore.service.cli;

import io.docstore.client.Document;
import io.docstore.service.DocStore;
import io.docstore.service.config.DocstoreConfig;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code docstore get ID}: prints one document from a data directory or a running server's read
 * port.
 */
@Command(
    name = "get",
    mixinStandardHelpOptions = true,
    description = "Print a document by ID (exit 1 when absent).")
final class GetCommand implements Callable<Integer> {

  @Parameters(paramLabel = "ID", description = "Document ID (non-negative integer).")
  long id;

  @ArgGroup(exclusive = true)
  InspectTarget source = new InspectTarget();

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "Configuration file (for the data directory and limits).")
  Path config;

  @Override
  public Integer call() throws Exception {
    if (id < 0) {
      System.err.println("get: ID must be non-negative");
      return 2;
    }
    if (source.server != null) {
      HttpResponse<byte[]> r = source.fetch("/docs/" + id, null);
      if (r.statusCode() == 200) {
        System.out.write(r.body());
        System.out.println();
        return 0;
      }
      System.err.println(
          "get: "
              + r.statusCode()
              + " "
              + new String(r.body(), java.nio.charset.StandardCharsets.UTF_8));
      return 1;
    }
    DocstoreConfig cfg = OfflineStore.config(config, source.data);
    try (DocStore store = OfflineStore.openExisting(cfg)) {
      Document d = store.get(id);
      if (d == null) {
        System.err.println("get: document " + id + " not found");
        return 1;
      }
      System.out.write(d.body());
      System.out.println();
      System.err.println("(sequence " + d.sequence() + ")");
      return 0;
    }
  }
}
