package io.docstore.service.cache;

import io.docstore.io.AtomicFiles;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.queue.format.StateFileLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.SecureRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The generation in the memcached tier's keys (file {@value #FILE_NAME} in the data directory; spec
 * in {@code docs/formats/cache-epoch.md}): a random store id, drawn once per data directory, and an
 * epoch, bumped durably whenever the cache may hold a stale version (at every start, after a
 * dropped write, after a change of the server set). Keys are {@code ds2:<store
 * id>.<epoch>:<document id>}, so a bump makes every older entry unreachable (memcached evicts it in
 * time) without ever flushing a pool that other services may share, and two stores sharing a pool
 * never read each other's entries.
 *
 * <p>The epoch is published before it is used, so a restart never reuses one whose entries may be
 * stale. A damaged file is reported (file and offset) and replaced by a new store id: the cache
 * starts empty, nothing else is lost. Thread-safe: {@link #renew} from one thread at a time (the
 * cache's healer), {@link #prefix} from any.
 */
public final class CacheEpoch {

  private static final Logger LOG = LoggerFactory.getLogger(CacheEpoch.class);

  /** The file's name in the data directory. */
  public static final String FILE_NAME = "cache.epoch";

  static final int STORE_ID = StateFileLayout.FIELDS;
  static final int EPOCH = STORE_ID + 8;
  static final int CRC = EPOCH + 8;
  static final int LENGTH = CRC + 4;
  static final StateFileLayout LAYOUT =
      new StateFileLayout(0xD0C5_CAC4, "docstore.cacheep", 1, LENGTH, "cache epoch");

  private final FileSystem fs;
  private final Path file;
  private final long storeId;
  private long epoch;

  /** Null until the first {@link #renew}: no key is trusted before it. */
  private volatile String prefix;

  private CacheEpoch(FileSystem fs, Path file, long storeId, long epoch) {
    this.fs = fs;
    this.file = file;
    this.storeId = storeId;
    this.epoch = epoch;
  }

  /**
   * The epoch of the data directory {@code dataDir} (created if missing). Nothing is written until
   * the first {@link #renew}.
   */
  public static CacheEpoch open(FileSystem fs, Path dataDir) throws IOException {
    fs.createDirectories(dataDir);
    try {
      CacheEpoch found = read(fs, dataDir);
      if (found != null) {
        return found;
      }
    } catch (CorruptionException e) {
      LOG.warn(
          "{}; starting a new cache generation under a new store id (the memcached tier starts empty)",
          e.getMessage());
    }
    long id;
    do {
      id = new SecureRandom().nextLong() & Long.MAX_VALUE;
    } while (id == 0);
    return new CacheEpoch(fs, dataDir.resolve(FILE_NAME), id, 0);
  }

  /**
   * The epoch stored in {@code dataDir}, or null if there is none (for {@code dump} and {@code
   * verify}).
   *
   * @throws CorruptionException naming the file and offset if it is damaged
   */
  public static CacheEpoch read(FileSystem fs, Path dataDir) throws IOException {
    Path file = dataDir.resolve(FILE_NAME);
    byte[] bytes = AtomicFiles.readFixed(fs, file, LENGTH, LAYOUT.what());
    if (bytes == null) {
      return null;
    }
    ByteBuffer b = LAYOUT.check(file, bytes);
    return new CacheEpoch(fs, file, b.getLong(STORE_ID), b.getLong(EPOCH));
  }

  @Override
  public synchronized String toString() {
    return "store id " + Long.toHexString(storeId) + ", epoch " + epoch;
  }

  /**
   * Moves to the next epoch: publishes it durably ({@link AtomicFiles#publish}), then makes it the
   * one {@link #prefix} names. On failure the old prefix stays (the caller keeps the cache
   * suspect).
   */
  public synchronized void renew() throws IOException {
    long next = epoch + 1;
    ByteBuffer b = LAYOUT.begin();
    b.putLong(STORE_ID, storeId);
    b.putLong(EPOCH, next);
    AtomicFiles.publish(fs, file, LAYOUT.seal(b));
    epoch = next;
    prefix = "ds2:" + Long.toHexString(storeId) + "." + next + ":";
  }

  /** The key prefix of the current epoch, or null before the first {@link #renew}. */
  public String prefix() {
    return prefix;
  }

  /** The current epoch (0 before the first {@link #renew} of a new store id). */
  public synchronized long epoch() {
    return epoch;
  }

  public long storeId() {
    return storeId;
  }
}
