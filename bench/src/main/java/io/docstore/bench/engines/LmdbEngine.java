package io.docstore.bench.engines;

import static org.lmdbjava.ByteArrayProxy.PROXY_BA;

import java.util.ArrayList;
import java.util.List;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.Txn;

/**
 * LMDB (lmdbjava), the B-tree, with the environment flags LMDB's {@code mdb_env_open} documentation
 * gives for this use (sources and reasons in docs/benchmarks/engines.md):
 *
 * <ul>
 *   <li>{@code MDB_NOSYNC} + {@code MDB_NOMETASYNC}: a commit writes its pages to the OS ({@code
 *       pwrite}) but does not fsync them, so a process crash after {@link #flush()} loses nothing
 *       and a machine crash may lose the last commits: the shared contract, the same as the LSM
 *       peers' "WAL on, no fsync" (EngineCrashTest kills a writer to check);
 *   <li>{@code MDB_NORDAHEAD}: no readahead on the map, documented to help random reads of a
 *       database larger than RAM (docstore's mapped reads are advised {@code MADV_RANDOM} too);
 *   <li>{@code MDB_NOTLS}, read transactions reused per thread through reset/renew;
 *   <li>not {@code MDB_WRITEMAP}: documented to be slower for databases larger than RAM (the cold
 *       workload) and, with {@code MDB_NOSYNC}, to leave the OS no hint when to write.
 * </ul>
 *
 * <p>One write transaction per batch, and per thread: LMDB ties a write transaction to the thread
 * that began it (its writer lock is that thread's) and lets one be open at a time, so a thread's
 * first put begins its own transaction, waiting in {@code mdb_txn_begin} while another thread's is
 * open, and that thread's {@link #flush()} commits it: concurrent writers are serialized by LMDB's
 * own writer lock, as in any LMDB application. Memory: LMDB has no cache of its own to give the
 * shared budget to; the OS page cache over its map is its cache (bounded only by the cold
 * workload's memory cgroup, as every engine's page cache is). Block size: its page is the OS page
 * (4 KiB), not configurable, so the bench's block size does not apply. The map size is virtual
 * address space only; the file grows as pages are used.
 */
final class LmdbEngine implements Engine {

  private static final long MAP_SIZE = 256L << 30;

  private final Env<byte[]> env;
  private final Dbi<byte[]> dbi;
  private final ThreadLocal<Txn<byte[]>> readTxn = new ThreadLocal<>();
  private final List<Txn<byte[]>> readTxns = new ArrayList<>();

  /** The calling thread's open write transaction, or null. */
  private final ThreadLocal<Txn<byte[]>> writeTxn = new ThreadLocal<>();

  LmdbEngine(EngineSettings s) {
    env =
        Env.create(PROXY_BA)
            .setMapSize(MAP_SIZE)
            .setMaxDbs(1)
            .setMaxReaders(64)
            .open(
                s.dir().toFile(),
                EnvFlags.MDB_NOSYNC,
                EnvFlags.MDB_NOMETASYNC,
                EnvFlags.MDB_NORDAHEAD,
                EnvFlags.MDB_NOTLS);
    dbi = env.openDbi("bench", DbiFlags.MDB_CREATE);
  }

  @Override
  public void put(byte[] key, byte[] value) {
    dbi.put(writeTxn(), key, value);
  }

  @Override
  public void delete(byte[] key) {
    dbi.delete(writeTxn(), key);
  }

  /** The calling thread's write transaction, begun by its first write since its last flush. */
  private Txn<byte[]> writeTxn() {
    Txn<byte[]> txn = writeTxn.get();
    if (txn == null) {
      txn = env.txnWrite();
      writeTxn.set(txn);
    }
    return txn;
  }

  @Override
  public byte[] get(byte[] key) {
    Txn<byte[]> txn = readTxn.get();
    if (txn == null) {
      txn = env.txnRead();
      synchronized (readTxns) {
        readTxns.add(txn);
      }
      readTxn.set(txn);
    } else {
      txn.renew();
    }
    try {
      return dbi.get(txn, key);
    } finally {
      txn.reset();
    }
  }

  @Override
  public void flush() {
    Txn<byte[]> txn = writeTxn.get();
    if (txn != null) {
      writeTxn.remove();
      try {
        txn.commit();
      } finally {
        txn.close();
      }
    }
  }

  /** None: a B-tree writes its pages inside the writer's own commit, never in the background. */
  @Override
  public int backgroundJobs() {
    return 0;
  }

  @Override
  public String settings() {
    return "lmdbjava 0.9.3 (LMDB native 0.9.33); map size "
        + MAP_SIZE
        + " B; one write txn per batch; MDB_NOSYNC|MDB_NOMETASYNC|MDB_NORDAHEAD|MDB_NOTLS, no MDB_WRITEMAP"
        + "; OS page (4 KiB) pages; page cache is its cache (no budget to give)";
  }

  @Override
  public void close() {
    flush();
    synchronized (readTxns) {
      readTxns.forEach(Txn::close);
      readTxns.clear();
    }
    dbi.close();
    env.close();
  }
}
