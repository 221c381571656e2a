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
 * LMDB (lmdbjava), the B-tree, as its documentation recommends here: one write transaction per
 * batch, MDB_NOSYNC + MDB_NOMETASYNC (commits reach the OS but are not fsynced, the durability the
 * LSM peers get with WAL on and sync off), MDB_NORDAHEAD (the documented setting for random reads of
 * a database larger than RAM), MDB_NOTLS with read transactions reused through reset/renew. The map
 * size is virtual address space only; the file grows as pages are used.
 */
final class LmdbEngine implements Engine {

  private static final long MAP_SIZE = 256L << 30;

  private final Env<byte[]> env;
  private final Dbi<byte[]> dbi;
  private final ThreadLocal<Txn<byte[]>> readTxn = new ThreadLocal<>();
  private final List<Txn<byte[]>> readTxns = new ArrayList<>();
  private Txn<byte[]> writeTxn;

  LmdbEngine(EngineSettings s) {
    env = Env.create(PROXY_BA)
        .setMapSize(MAP_SIZE)
        .setMaxDbs(1)
        .setMaxReaders(64)
        .open(s.dir().toFile(), EnvFlags.MDB_NOSYNC, EnvFlags.MDB_NOMETASYNC, EnvFlags.MDB_NORDAHEAD,
            EnvFlags.MDB_NOTLS);
    dbi = env.openDbi("bench", DbiFlags.MDB_CREATE);
  }

  @Override
  public void put(byte[] key, byte[] value) {
    if (writeTxn == null) {
      writeTxn = env.txnWrite();
    }
    dbi.put(writeTxn, key, value);
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
    if (writeTxn != null) {
      writeTxn.commit();
      writeTxn.close();
      writeTxn = null;
    }
  }

  /** None: a B-tree writes its pages inside the writer's own commit, never in the background. */
  @Override
  public int backgroundJobs() {
    return 0;
  }

  @Override
  public String settings() {
    return "lmdbjava 0.9.3 (LMDB native 0.9.33); map size " + MAP_SIZE
        + " B; one write txn per batch; MDB_NOSYNC|MDB_NOMETASYNC|MDB_NORDAHEAD|MDB_NOTLS; page cache is its cache";
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
