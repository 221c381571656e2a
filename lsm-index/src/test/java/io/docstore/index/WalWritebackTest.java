package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.index.file.FileNames;
import io.docstore.index.wal.WalFormat;
import io.docstore.index.wal.WalReader;
import io.docstore.io.CorruptionException;
import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.FaultInjectingFileSystem.Op;
import io.docstore.io.FaultInjectingFileSystem.Writeback;
import io.docstore.io.FileSystem;
import io.docstore.io.InterceptingFileSystem;
import io.docstore.io.SyncPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Power loss with out-of-order writeback of the index WAL ({@link
 * FaultInjectingFileSystem#crash(Writeback)}): every page written since the last fsync survives or
 * reads as zeros on its own, and the file keeps its length or not. Whatever survives, the index
 * opens, every acknowledged (synced) put reads back exactly, and the unacknowledged operations that
 * survive are a prefix of them, each batch whole or absent. Damage before the point a sync mark
 * claims durable is still corruption.
 */
class WalWritebackTest {

  @TempDir Path tmp;

  /**
   * Policy none plus {@code sync()}: the bytes of {@code always}, one force per acknowledgement.
   */
  private static IndexOptions options(FileSystem fs, SyncPolicy policy) {
    return IndexOptions.builder()
        .fileSystem(fs)
        .syncPolicy(policy)
        .memTableBytes(1 << 20)
        .bloomMemoryBytes(64 * 1024)
        .build();
  }

  /** The file system as one process sees it: dead (every mutation fails) from its power loss on. */
  private static FileSystem process(FaultInjectingFileSystem disk, AtomicBoolean dead) {
    return new InterceptingFileSystem(
        disk,
        (op, p) -> {
          if (dead.get()) {
            throw new IOException("process is dead (power loss): " + op + " " + p);
          }
        });
  }

  /**
   * A power loss: the process dies (its close, which a real power loss never runs, touches nothing)
   * and the disk keeps what {@code writeback} says.
   */
  private static void powerLoss(
      FaultInjectingFileSystem disk, AtomicBoolean dead, LsmIndex index, Writeback writeback)
      throws IOException {
    dead.set(true);
    disk.crash(writeback);
    try {
      index.close();
    } catch (IOException expected) {
      // the process is dead
    }
  }

  /** An unacknowledged operation: one put or one {@code putAll} batch, of fresh ids. */
  private record Unacked(long[] ids, long[] values) {}

  /** What the index was told before the power loss. */
  private static final class Model {
    final Map<Long, Long> acked = new HashMap<>();
    final List<Unacked> unacked = new ArrayList<>();
  }

  private static Path newestWal(Path dir) throws IOException {
    TreeSet<Path> wals = new TreeSet<>();
    for (Path p : FileSystem.real().list(dir)) {
      FileNames.Parsed n = FileNames.parse(p);
      if (n != null && n.kind() == FileNames.Kind.WAL) {
        wals.add(p);
      }
    }
    return wals.last();
  }

  /**
   * Acknowledged puts (each synced, so marks follow them), then unacknowledged single puts and
   * batches, one covering a whole page, handed to the OS without fsync.
   */
  private static Model write(LsmIndex index, long seed) throws IOException {
    SplittableRandom rnd = new SplittableRandom(seed);
    Model m = new Model();
    for (int i = 0; i < 40; i++) {
      long id = rnd.nextLong(30);
      if (i % 9 == 8) {
        index.delete(id);
        m.acked.put(id, LsmIndex.DELETED);
      } else {
        long v = rnd.nextLong(1L << 40);
        index.put(id, v);
        m.acked.put(id, v);
      }
      index.sync();
    }
    long[] ids = new long[100];
    long[] values = new long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = 100 + i;
      values[i] = rnd.nextLong(1L << 40);
      m.acked.put(ids[i], values[i]);
    }
    index.putAll(ids, values, ids.length);
    index.sync();
    long next = 1_000_000;
    // Negative: a batch. 600 entries (9,608 bytes) cover at least one whole page.
    int[] shape = {40, -600, 60, -300, 40};
    for (int s : shape) {
      if (s > 0) {
        for (int i = 0; i < s; i++) {
          long v = rnd.nextLong(1L << 40);
          index.put(next, v);
          m.unacked.add(new Unacked(new long[] {next}, new long[] {v}));
          next++;
        }
      } else {
        long[] bi = new long[-s];
        long[] bv = new long[-s];
        for (int i = 0; i < bi.length; i++) {
          bi[i] = next++;
          bv[i] = rnd.nextLong(1L << 40);
        }
        index.putAll(bi, bv, bi.length);
        m.unacked.add(new Unacked(bi, bv));
      }
    }
    index.flushToOs();
    return m;
  }

  /**
   * Checks the reopened index against the model: every acknowledged put, and the surviving
   * unacknowledged operations a prefix, each whole. Returns how many survived.
   */
  private static int check(LsmIndex index, Model m, String as) throws IOException {
    for (Map.Entry<Long, Long> e : m.acked.entrySet()) {
      long v = index.get(e.getKey());
      if (e.getValue() == LsmIndex.DELETED) {
        assertThat(v)
            .as("deleted id %d, %s", e.getKey(), as)
            .isIn(LsmIndex.DELETED, LsmIndex.ABSENT);
      } else {
        assertThat(v).as("acknowledged id %d, %s", e.getKey(), as).isEqualTo(e.getValue());
      }
    }
    int survived = 0;
    for (int k = 0; k < m.unacked.size(); k++) {
      Unacked u = m.unacked.get(k);
      int present = 0;
      for (int i = 0; i < u.ids().length; i++) {
        long v = index.get(u.ids()[i]);
        if (v == u.values()[i]) {
          present++;
        } else {
          assertThat(v).as("unacknowledged id %d, %s", u.ids()[i], as).isEqualTo(LsmIndex.ABSENT);
        }
      }
      assertThat(present)
          .as("operation %d (%d entries) all or none, %s", k, u.ids().length, as)
          .isIn(0, u.ids().length);
      if (present > 0) {
        assertThat(survived).as("operation %d survived after a lost one, %s", k, as).isEqualTo(k);
        survived++;
      }
    }
    return survived;
  }

  @Test
  void everyWritebackOfTheUnsyncedPagesOpensWithEveryAcknowledgedPut() throws Exception {
    int pages = -1;
    int outOfOrder = 0;
    int dropped = 0;
    int cases = 0;
    for (int keep = 0; keep < 2; keep++) {
      boolean keepsLength = keep == 0;
      for (long mask = 0; pages < 0 || mask < 1L << pages; mask++) {
        String as = "pages kept " + Long.toBinaryString(mask) + ", length kept " + keepsLength;
        Path dir = tmp.resolve("case-" + cases++);
        FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
        AtomicBoolean dead = new AtomicBoolean();
        LsmIndex index = LsmIndex.open(dir, options(process(fs, dead), SyncPolicy.NONE));
        Model m = write(index, 42);
        Path wal = newestWal(dir);
        int unsynced = fs.unsyncedPages(wal);
        if (pages < 0) {
          pages = unsynced;
          assertThat(pages).as("unsynced WAL pages").isBetween(3, 6);
        }
        assertThat(unsynced).isEqualTo(pages);
        powerLoss(fs, dead, index, Writeback.mask(mask, keepsLength));
        long before = Files.size(wal);
        WalReader.Result seen = WalReader.replay(FileSystem.real(), wal, true, (id, v) -> {});
        if (seen.laterRecordsVerify()) {
          outOfOrder++;
        }
        boolean lostBeforeKept = false;
        for (int p = 0; p < pages; p++) {
          if ((mask >>> p & 1) == 0 && mask >>> p != 0) {
            lostBeforeKept = true;
          }
        }
        boolean lostInside = keepsLength ? mask != (1L << pages) - 1 : lostBeforeKept;
        try (LsmIndex reopened = LsmIndex.open(dir, options(fs, SyncPolicy.NONE))) {
          int survived = check(reopened, m, as);
          long walDropped = reopened.stats().walBytesDropped();
          assertThat(walDropped)
              .as("dropped = what the WAL lost, " + as)
              .isEqualTo(before - Files.size(wal));
          if (lostInside) {
            assertThat(walDropped).as("a lost page inside the file is dropped, " + as).isPositive();
            assertThat(survived).as(as).isLessThan(m.unacked.size());
          }
          if (walDropped > 0) {
            dropped++;
          }
        }
        // The cut is durable and final: the next open finds nothing to drop and the same content.
        try (LsmIndex again = LsmIndex.open(dir, options(fs, SyncPolicy.NONE))) {
          check(again, m, as + ", second open");
          assertThat(again.stats().walBytesDropped()).as(as).isZero();
        }
      }
    }
    assertThat(cases).isEqualTo(2 << pages);
    // The cases this test is for: whole records after the first bad one (the old reader called
    // that corruption), and tails actually dropped.
    assertThat(outOfOrder).as("cases with records written back out of order").isPositive();
    assertThat(dropped).isPositive();
  }

  /** Offset of single-entry record {@code n} (0-based) of a WAL written by puts under always. */
  private static int putRecord(int n) {
    int single = WalFormat.RECORD_HEADER + WalFormat.ENTRY_SIZE;
    return WalFormat.HEADER_SIZE + n * single + n * WalFormat.MARK_SIZE;
  }

  @Test
  void damageBeforeTheDurablePointIsCorruptionAfterAPowerLoss() throws Exception {
    for (int variant = 0; variant < 3; variant++) {
      Path dir = tmp.resolve("damage-" + variant);
      FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
      AtomicBoolean dead = new AtomicBoolean();
      LsmIndex index = LsmIndex.open(dir, options(process(fs, dead), SyncPolicy.ALWAYS));
      for (long id = 0; id < 50; id++) {
        index.put(id, id + 1);
      }
      Path wal = newestWal(dir);
      powerLoss(fs, dead, index, Writeback.random(variant));
      // Put 20 was acknowledged, so fsynced; the marks after it say so.
      int at = putRecord(20);
      byte[] b = Files.readAllBytes(wal);
      switch (variant) {
        case 0 -> b[at + WalFormat.COUNT_OFFSET] ^= 0x20; // count 33: the record chain is lost
        case 1 -> b[at + WalFormat.ENTRIES_OFFSET] ^= 0x01; // one bit of the id
        default -> java.util.Arrays.fill(b, at, at + 512, (byte) 0); // a lost sector
      }
      Files.write(wal, b);
      assertThatThrownBy(() -> LsmIndex.open(dir, options(fs, SyncPolicy.ALWAYS)))
          .as("variant %d", variant)
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining(wal + " at offset " + at)
          .satisfies(
              e -> {
                assertThat(((CorruptionException) e).file()).isEqualTo(wal);
                assertThat(((CorruptionException) e).offset()).isEqualTo(at);
              });
      assertThat(Files.readAllBytes(wal)).as("nothing cut").isEqualTo(b);
    }
  }

  /**
   * The docservice's way (policy none, {@code sync()} at a checkpoint, then close): the final mark
   * of the close claims the whole file, so a flipped bit anywhere in it is corruption, not a torn
   * tail that would silently lose checkpointed entries.
   */
  @Test
  void aCleanCloseClaimsTheWholeWal() throws Exception {
    Path dir = tmp.resolve("clean");
    try (LsmIndex index = LsmIndex.open(dir, options(FileSystem.real(), SyncPolicy.NONE))) {
      for (long id = 0; id < 50; id++) {
        index.put(id, id + 1);
      }
      index.sync();
    }
    Path wal = newestWal(dir);
    int single = WalFormat.RECORD_HEADER + WalFormat.ENTRY_SIZE;
    byte[] b = Files.readAllBytes(wal);
    assertThat(b).hasSize(WalFormat.HEADER_SIZE + 50 * single + WalFormat.MARK_SIZE);
    int at = WalFormat.HEADER_SIZE + 48 * single; // the last record but one
    b[at + WalFormat.COUNT_OFFSET] ^= 0x10;
    Files.write(wal, b);
    assertThatThrownBy(() -> LsmIndex.open(dir, options(FileSystem.real(), SyncPolicy.NONE)))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(wal + " at offset " + at);
  }

  /**
   * A power loss while a memory-table rotation fsyncs the old WAL under {@code interval}: the old
   * WAL is forced before the new one is created, so it is still the newest and its tail, written
   * back in any order, is a torn tail; were the new WAL created first, the old one would be an
   * older WAL with damage, which is corruption.
   */
  /**
   * Under policy none (the store's index) a rotation closes the old WAL without a force; the
   * store's checkpoint calls {@code sync}, which must then force those older WALs too: an older WAL
   * must be whole, and otherwise a power loss right after the checkpoint may write back its pages
   * out of order, and the index would not open (the store would then rebuild it from the queue).
   * Flushes are made to fail here, so the rotated WALs stay.
   */
  @Test
  void aSyncUnderPolicyNoneForcesTheWalsRotationsClosed() throws Exception {
    for (long seed = 1; seed <= 8; seed++) {
      Path dir = tmp.resolve("none-" + seed);
      FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
      AtomicBoolean dead = new AtomicBoolean();
      FileSystem process =
          new InterceptingFileSystem(
              fs,
              (op, p) -> {
                if (dead.get() || (op == Op.CREATE && p.toString().endsWith(".idx"))) {
                  throw new IOException("no table is written in this test: " + p);
                }
              });
      LsmIndex index =
          LsmIndex.open(
              dir,
              IndexOptions.builder()
                  .fileSystem(process)
                  .syncPolicy(SyncPolicy.NONE)
                  .memTableBytes(64 * 1024)
                  .bloomMemoryBytes(64 * 1024)
                  .build());
      Map<Long, Long> synced = new HashMap<>();
      long[] ids = new long[1000];
      long[] values = new long[ids.length];
      for (int round = 0; round < 3; round++) { // about one rotation per round
        for (int i = 0; i < ids.length; i++) {
          ids[i] = round * 100_000L + i;
          values[i] = round + 1;
          synced.put(ids[i], values[i]);
        }
        index.putAll(ids, values, ids.length);
      }
      index.sync(); // what the store's checkpoint does
      assertThat(walCount(dir)).as("WALs kept by the failing flushes").isGreaterThan(1);
      powerLoss(fs, dead, index, Writeback.random(seed));
      try (LsmIndex reopened = LsmIndex.open(dir, options(fs, SyncPolicy.NONE))) {
        for (Map.Entry<Long, Long> e : synced.entrySet()) {
          assertThat(reopened.get(e.getKey()))
              .as("seed %d, id %d", seed, e.getKey())
              .isEqualTo(e.getValue());
        }
      }
    }
  }

  private static long walCount(Path dir) throws IOException {
    try (var files = java.nio.file.Files.list(dir)) {
      return files.filter(p -> p.toString().endsWith(".wal")).count();
    }
  }

  @Test
  void aPowerLossDuringARotationLeavesNoDamagedOlderWal() throws Exception {
    int pages = -1;
    for (int keep = 0; keep < 2; keep++) {
      for (long mask = 0; pages < 0 || mask < 1L << pages; mask++) {
        Path dir = tmp.resolve("rotation-" + keep + "-" + mask);
        FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
        AtomicBoolean dead = new AtomicBoolean();
        Path[] oldWal = new Path[1];
        FileSystem process =
            new InterceptingFileSystem(
                fs,
                (op, p) -> {
                  if (dead.get() || (op == Op.FORCE && p.equals(oldWal[0]))) {
                    dead.set(true);
                    throw new IOException("power lost at " + op + " " + p);
                  }
                });
        LsmIndex index = LsmIndex.open(dir, options(process, SyncPolicy.interval(3_600_000)));
        Map<Long, Long> acked = new HashMap<>();
        for (long id = 0; id < 20; id++) {
          index.put(id, id + 7);
          acked.put(id, id + 7);
        }
        index.sync();
        List<long[]> unacked = new ArrayList<>();
        long[] batch = new long[300];
        long[] values = new long[batch.length];
        for (int round = 0; round < 3; round++) {
          for (int i = 0; i < batch.length; i++) {
            batch[i] = 10_000 + round * 1000 + i;
            values[i] = round + 1;
          }
          index.putAll(batch, values, batch.length);
          unacked.add(batch.clone());
        }
        index.flushToOs();
        oldWal[0] = newestWal(dir);
        if (pages < 0) {
          pages = fs.unsyncedPages(oldWal[0]);
          assertThat(pages).isBetween(3, 6);
        }
        assertThatThrownBy(index::flush).isInstanceOf(IOException.class);
        powerLoss(fs, dead, index, Writeback.mask(mask, keep == 0));
        String as = "pages kept " + Long.toBinaryString(mask) + ", length kept " + (keep == 0);
        try (LsmIndex reopened = LsmIndex.open(dir, options(fs, SyncPolicy.NONE))) {
          for (Map.Entry<Long, Long> e : acked.entrySet()) {
            assertThat(reopened.get(e.getKey())).as(as).isEqualTo(e.getValue());
          }
          boolean lost = false;
          for (int r = 0; r < unacked.size(); r++) {
            int present = 0;
            for (long id : unacked.get(r)) {
              present += reopened.get(id) == r + 1 ? 1 : 0;
            }
            assertThat(present).as("batch %d, %s", r, as).isIn(0, batch.length);
            assertThat(present == 0 || !lost).as("batch %d after a lost one, %s", r, as).isTrue();
            lost |= present == 0;
          }
        }
      }
    }
  }

  /**
   * Under policy none a close hands the WAL's last records to the OS without fsync. The next open
   * replays that WAL and starts a new one, after which the replayed WAL is an older WAL, which must
   * be whole: recovery forces it first, so a power loss afterwards, whatever it writes back, leaves
   * it readable.
   */
  @Test
  void aReopenForcesTheWalsItKeepsBeforeStartingANewOne() throws Exception {
    int pages = -1;
    for (int keep = 0; keep < 2; keep++) {
      for (long mask = 0; pages < 0 || mask < 1L << pages; mask++) {
        String as = "pages kept " + Long.toBinaryString(mask) + ", length kept " + (keep == 0);
        Path dir = tmp.resolve("reopen-" + keep + "-" + mask);
        FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
        Model m;
        try (LsmIndex index = LsmIndex.open(dir, options(fs, SyncPolicy.NONE))) {
          m = write(index, 7);
        }
        Path wal = newestWal(dir);
        if (pages < 0) {
          pages = fs.unsyncedPages(wal);
          assertThat(pages).isBetween(3, 6);
        }
        AtomicBoolean dead = new AtomicBoolean();
        LsmIndex index = LsmIndex.open(dir, options(process(fs, dead), SyncPolicy.NONE));
        assertThat(check(index, m, as)).isEqualTo(m.unacked.size());
        powerLoss(fs, dead, index, Writeback.mask(mask, keep == 0));
        try (LsmIndex reopened = LsmIndex.open(dir, options(fs, SyncPolicy.NONE))) {
          assertThat(check(reopened, m, as)).as(as).isEqualTo(m.unacked.size());
          assertThat(reopened.stats().walBytesDropped()).as(as).isZero();
        }
      }
    }
  }
}
