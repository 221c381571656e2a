package io.docstore.bench.engines;

import io.docstore.service.gc.GcOptions;
import java.io.IOException;
import java.util.List;

/** Opens an engine by its name in the runner's command line and tables. */
public final class Engines {

  /** Every engine, docstore first (it is the numerator of every ratio). */
  public static final List<String> ALL =
      List.of("docstore", "rocksdb", "rocksdb-blob", "leveldb", "lmdb", "lsmtree");

  /** Not engines: speed references of the bulk workload (LZ4 compression of the same input). */
  public static final List<String> REFERENCES = List.of("lz4");

  /**
   * The churn workload's docstore without its space reclamation; docstore there is the service's
   * store with it ({@link #openStore}). Named only in the churn workload.
   */
  public static final String DOCSTORE_NOGC = "docstore-nogc";

  /** The engines of the churn workload (docs/benchmarks/churn.md), docstore first. */
  public static final List<String> CHURN =
      List.of("docstore", DOCSTORE_NOGC, "rocksdb", "rocksdb-blob", "lmdb");

  private Engines() {}

  public static Engine open(String name, EngineSettings settings) throws IOException {
    return switch (name) {
      case "docstore" -> new DocstoreEngine(settings);
      case "rocksdb" -> new RocksDbEngine(settings, false);
      case "rocksdb-blob" -> new RocksDbEngine(settings, true);
      case "leveldb" -> new LevelDbEngine(settings);
      case "lmdb" -> new LmdbEngine(settings);
      case "lsmtree" -> new LsmtreeEngine(settings);
      case "lz4" -> new Lz4Reference();
      case DOCSTORE_NOGC ->
          throw new IllegalArgumentException(name + " is the churn workload's (openStore)");
      default -> throw new IllegalArgumentException("unknown engine " + name + "; known: " + ALL);
    };
  }

  /**
   * docstore as the service runs it, its {@code DocStore} with the space reclamation as {@code gc}
   * says: the churn workload's {@code docstore} (on) and {@code docstore-nogc} (off).
   */
  public static Engine openStore(EngineSettings settings, GcOptions gc) throws IOException {
    return new StoreEngine(settings, gc);
  }

  /**
   * True for Indeed lsmtree, whose JVM must get its own class path (lsmtree-core's dependency tree
   * with Guava 16) instead of the bench module's.
   */
  public static boolean needsIsolatedClassPath(String name) {
    return name.equals("lsmtree");
  }
}
