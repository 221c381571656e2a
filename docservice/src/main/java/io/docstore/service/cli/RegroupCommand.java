package io.docstore.service.cli;

import io.docstore.service.DocStore;
import io.docstore.service.config.DocstoreConfig;
import io.docstore.service.groups.Regroup;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code docstore regroup}: the re-projection after {@code docstore.groups} changed
 * (docs/design/groups.md): every live document projected onto the configured groups again, with a
 * progress bar.
 */
@Command(
    name = "regroup",
    mixinStandardHelpOptions = true,
    description = {
      "Project every live document onto the configured field groups (docstore.groups) again,"
          + " with the server stopped: the step after adding a group or changing a group's"
          + " fields. Documents written before still read whole; their groups read as missing until"
          + " this has run.",
      "",
      "Exit 0 when every document was projected, 1 when some could not be (listed), 2 when no"
          + " groups are configured."
    })
final class RegroupCommand implements Callable<Integer> {

  @Mixin StoreLocation where = new StoreLocation();

  @Override
  public Integer call() throws Exception {
    DocstoreConfig cfg = where.config();
    if (!cfg.groups().configured()) {
      System.err.println(
          "regroup: no field groups are configured (docstore.groups in "
              + (where.config == null ? "the configuration" : where.config)
              + ")");
      return 2;
    }
    long t0 = System.nanoTime();
    try (DocStore store = OfflineStore.open(cfg)) {
      long total = store.liveRecords().total(); // documents and their projections: at most this
      ProgressBar bar = new ProgressBar(total, t0, "k docs", 1e3);
      Regroup.Result r = store.regroup(bar);
      bar.clear();
      store.checkpoint();
      System.out.printf(
          "regroup: projected %d documents onto %s in %.1f s; %d could not be projected%n",
          r.projected(), cfg.groups().names(), (System.nanoTime() - t0) / 1e9, r.skipped());
      for (String p : r.problems()) {
        System.err.println("regroup: " + p);
      }
      return r.skipped() == 0 ? 0 : 1;
    }
  }
}
