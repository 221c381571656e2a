package io.docstore.bench.engines;

import java.io.IOException;
import java.util.List;

/** Opens an engine by its name in the runner's command line and tables. */
public final class Engines {

  /** Every engine, docstore first (it is the numerator of every ratio). */
  public static final List<String> ALL =
      List.of("docstore", "rocksdb", "rocksdb-blob", "leveldb", "lmdb", "lsmtree");

  /** Not engines: speed references of the bulk workload (LZ4 compression of the same input). */
  public static final List<String> REFERENCES = List.of("lz4");

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
      default -> throw new IllegalArgumentException("unknown engine " + name + "; known: " + ALL);
    };
  }

  /**
   * True for Indeed lsmtree, whose JVM must get its own class path (lsmtree-core's dependency tree
   * with Guava 16) instead of the bench module's.
   */
  public static boolean needsIsolatedClassPath(String name) {
    return name.equals("lsmtree");
  }
}
