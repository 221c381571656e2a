package io.docstore.service.store;

import io.docstore.index.IndexCursor;
import io.docstore.index.IndexOptions;
import io.docstore.index.LsmIndex;
import io.docstore.io.AtomicFiles;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.format.Address;
import io.docstore.queue.tools.SalvageScan;
import io.docstore.queue.tools.SalvageScan.Damage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rebuild of the index that goes on past damaged queue data ({@code docstore rebuild-index
 * --skip-damaged}): indexes every record that verifies, skips the stretches that do not, and makes
 * sure that a skipped record never lets an older version of its document show through as current.
 *
 * <p>The records of a damaged stretch cannot be read, so which documents they held is taken from
 * the index in place before the rebuild (which maps every ID to the address of its newest version):
 *
 * <ul>
 *   <li><b>lost</b>: the old index maps the ID into a damaged stretch and nothing readable after
 *       the stretch replaces it. The new index maps it there too, at the stretch's place in
 *       sequence order (a readable later version wins as usual), so a read fails as {@code corrupt}
 *       naming the damaged block, as it did before the rebuild, and reads back once the segment is
 *       repaired from a peer ({@code docstore repair-segments}).
 *   <li><b>deletion kept</b>: the rebuild found a version older than a damaged stretch, nothing
 *       after it, and the old index, which had seen that version, says deleted: the delete was in
 *       the stretch. The ID stays deleted.
 *   <li><b>unverified</b>: the newest readable version is older than a damaged stretch the old
 *       index cannot speak for (it cannot be opened, its page for the ID fails its checksum, or it
 *       had not indexed that far: its checkpoint and its newest address both lie before the
 *       stretch). Its newest version may have been lost, so by default it is mapped to the damaged
 *       stretch as well and reads fail as {@code corrupt}; with {@code acceptStale} it is served at
 *       its newest readable version and only listed.
 * </ul>
 *
 * What the old index cannot name (IDs whose every version was in a damaged stretch, when the old
 * index cannot be read through) is said in {@link Report#limits()}: those read as not found.
 *
 * <p>The passes: the queue once to find the damage (nothing else is done when there is none), the
 * old index once for the IDs it maps into damage, the queue again to index in sequence order, the
 * new index once to check every ID whose newest readable version precedes some damage. The new
 * index is built in {@value #BUILDING} while the old one stays in place, untouched ({@link #build}:
 * a rebuild interrupted there leaves the store as it was); then the caller moves the old one aside
 * and {@link #install} renames the new one into place and checkpoints it at the queue's last
 * sequence, so the store opens without reading the queue again (and never meets the damage at
 * open). Run under the store's directory lock.
 */
public final class SalvageRebuild {

  private static final Logger log = LoggerFactory.getLogger(SalvageRebuild.class);

  /** The file in {@code index.damaged-<millis>/} holding the full report. */
  public static final String REPORT_FILE = "skipped-damage.txt";

  private static final int BATCH = 1024;

  /**
   * What a rebuild that skipped damage did.
   *
   * @param lastSequence the queue's last sequence (the new checkpoint)
   * @param indexed records that verified and were indexed
   * @param damage the damaged stretches, in order
   * @param lost IDs whose newest version is in a damaged stretch: read as errors
   * @param deletionsKept IDs whose deletion is in a damaged stretch: kept deleted
   * @param unverified IDs the old index could not vouch for: read as errors, or served at their
   *     newest readable version (which may be stale) when {@code acceptStale}
   * @param limits what could not be established, in words (empty when the old index answered for
   *     every ID)
   */
  public record Report(
      long lastSequence,
      long indexed,
      List<Damage> damage,
      long[] lost,
      long[] deletionsKept,
      long[] unverified,
      boolean acceptStale,
      List<String> limits) {

    /** The report for humans; at most {@code maxIds} IDs per list (all with a negative value). */
    public String format(int maxIds) {
      StringBuilder b = new StringBuilder();
      long lostRecords = damage.stream().mapToLong(Damage::records).sum();
      b.append(
          String.format(
              "skipped %d damaged stretch(es) of the queue holding %d record(s); indexed %d"
                  + " record(s) through sequence %d%n",
              damage.size(), lostRecords, indexed, lastSequence));
      for (Damage d : damage) {
        b.append("  damaged: ").append(d).append('\n');
      }
      ids(
          b,
          "lost: newest version in a damaged stretch; reads answer an error (corrupt), never an"
              + " older version",
          lost,
          maxIds);
      ids(b, "deleted in a damaged stretch: kept deleted (not found)", deletionsKept, maxIds);
      ids(
          b,
          acceptStale
              ? "unverified (--accept-stale): the old index cannot tell whether a newer version was"
                  + " lost; served at their newest readable version, which MAY BE STALE"
              : "unverified: the old index cannot tell whether a newer version was lost; reads"
                  + " answer an error (corrupt) rather than a possibly older version",
          unverified,
          maxIds);
      for (String l : limits) {
        b.append("  NOTE: ").append(l).append('\n');
      }
      return b.toString();
    }

    private static void ids(StringBuilder b, String what, long[] ids, int max) {
      b.append(String.format("%d ID(s) %s%n", ids.length, what));
      int n = max < 0 ? ids.length : Math.min(max, ids.length);
      for (int i = 0; i < n; i += 16) {
        b.append(' ');
        for (int j = i; j < Math.min(n, i + 16); j++) {
          b.append(' ').append(ids[j]);
        }
        b.append('\n');
      }
      if (n < ids.length) {
        b.append(String.format("  ... and %d more%n", ids.length - n));
      }
    }
  }

  /**
   * Builds a new index from the queue of {@code dir} in {@code dir/}{@value #BUILDING}, skipping
   * damage, with the index in place ({@code dir/index} and its checkpoint, left as they are) as the
   * old one. On failure nothing is left of the new one.
   *
   * @return the report, or null if the queue has no damage (then nothing was done: the ordinary
   *     rebuild is the right one)
   */
  public static Report build(
      FileSystem fs,
      Path dir,
      QueueOptions queueOptions,
      IndexOptions indexOptions,
      boolean acceptStale)
      throws IOException {
    Path queueDir = dir.resolve("queue");
    Path building = dir.resolve(BUILDING);
    deleteTree(fs, building); // left by an interrupted rebuild
    try (DocQueue queue = DocQueue.open(queueDir, queueOptions)) {
      long last = queue.lastSequence();
      List<Damage> damage = SalvageScan.walk(fs, queueDir, last, NO_VISITOR);
      if (damage.isEmpty()) {
        return null;
      }
      for (Damage d : damage) {
        log.error("skipping damaged queue data: {}", d);
      }
      return new SalvageRebuild(fs, dir, damage, acceptStale).rebuild(indexOptions, last, building);
    } catch (IOException | RuntimeException e) {
      try {
        deleteTree(fs, building);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * Puts the index {@link #build} made in place of the old one, which the caller moved to {@code
   * aside} ({@code index.damaged-<millis>/}), and checkpoints it at the queue's last sequence; the
   * full report goes to {@code aside/}{@value #REPORT_FILE}.
   */
  public static void install(FileSystem fs, Path dir, Path aside, Report report)
      throws IOException {
    Path index = dir.resolve("index");
    deleteTree(fs, index); // nothing: the old index was moved aside
    fs.rename(dir.resolve(BUILDING), index);
    fs.syncDirectory(dir);
    IndexCheckpoint.publish(fs, dir, report.lastSequence(), System.currentTimeMillis());
    AtomicFiles.publish(
        fs, aside.resolve(REPORT_FILE), report.format(-1).getBytes(StandardCharsets.UTF_8));
  }

  /** Where the new index is built, in the data directory, before it is renamed to {@code index}. */
  public static final String BUILDING = "index.rebuilding";

  private static void deleteTree(FileSystem fs, Path d) throws IOException {
    if (!fs.exists(d)) {
      return;
    }
    for (Path p : fs.list(d)) {
      if (java.nio.file.Files.isDirectory(p)) {
        deleteTree(fs, p);
      } else {
        fs.delete(p);
      }
    }
    fs.delete(d);
  }

  private static final SalvageScan.Visitor NO_VISITOR =
      new SalvageScan.Visitor() {
        @Override
        public void record(long id, long sequence, Op op, long address) {}

        @Override
        public void damaged(Damage damage) {}
      };

  private final FileSystem fs;
  private final Path dir;
  private final List<Damage> damage;
  private final boolean acceptStale;
  private final List<String> limits = new ArrayList<>();

  /** Per damaged stretch, the old index's IDs and addresses inside it. */
  private final List<List<long[]>> oldInDamage = new ArrayList<>();

  /** The old index's checkpoint (0 if none or unreadable). */
  private long oldCheckpoint;

  /** The highest address the old index holds, or 0. */
  private long oldMaxAddress;

  private SalvageRebuild(FileSystem fs, Path dir, List<Damage> damage, boolean acceptStale) {
    this.fs = fs;
    this.dir = dir;
    this.damage = damage;
    this.acceptStale = acceptStale;
    for (int i = 0; i < damage.size(); i++) {
      oldInDamage.add(new ArrayList<>());
    }
  }

  private Report rebuild(IndexOptions indexOptions, long last, Path building) throws IOException {
    LsmIndex old = openOld(indexOptions);
    try (LsmIndex index = LsmIndex.open(building, indexOptions)) {
      long[] counts = indexQueue(index, last);
      long covered = Math.max(counts[1], oldMaxAddress == 0 ? 0 : oldMaxAddress + 1);
      List<Long> lost = new ArrayList<>();
      for (List<long[]> in : oldInDamage) {
        for (long[] e : in) {
          if (index.get(e[0]) == e[1]) {
            lost.add(e[0]); // nothing readable after the damage replaced it
          }
        }
      }
      List<Long> kept = new ArrayList<>();
      List<Long> unverified = new ArrayList<>();
      checkOlderThanDamage(index, old, covered, lost, kept, unverified);
      index.sync();
      return new Report(
          last,
          counts[0],
          List.copyOf(damage),
          sorted(lost),
          sorted(kept),
          sorted(unverified),
          acceptStale,
          List.copyOf(limits));
    } finally {
      if (old != null) {
        try {
          old.close();
        } catch (IOException e) {
          log.warn("closing the old index: {}", e.toString());
        }
      }
    }
  }

  /**
   * Opens the old index and collects what it maps into damage; null (with a limit said) if it
   * cannot be opened.
   */
  private LsmIndex openOld(IndexOptions indexOptions) throws IOException {
    try {
      oldCheckpoint = IndexCheckpoint.read(fs, dir);
    } catch (CorruptionException e) {
      limits.add(
          "the old index's checkpoint is damaged ("
              + e.getMessage()
              + "): only the addresses it holds show how far it had indexed");
    }
    if (!fs.exists(dir.resolve("index"))) {
      limits.add(
          "there was no old index: the IDs whose newest version was in the damaged stretches"
              + " cannot be listed");
      return null;
    }
    LsmIndex old;
    try {
      old = LsmIndex.open(dir.resolve("index"), indexOptions);
    } catch (IOException | RuntimeException e) {
      limits.add(
          "the old index cannot be opened ("
              + e.getMessage()
              + "): the IDs whose newest version was in the damaged stretches cannot be listed");
      return null;
    }
    long entries = 0;
    try (IndexCursor c = old.scan(0)) {
      while (c.next()) {
        entries++;
        long v = c.value();
        oldMaxAddress = Math.max(oldMaxAddress, v);
        int d = damageHolding(v);
        if (d >= 0) {
          oldInDamage.get(d).add(new long[] {c.id(), v});
        }
      }
    } catch (IOException | RuntimeException e) {
      limits.add(
          "the old index could not be read through (after "
              + entries
              + " entries: "
              + e.getMessage()
              + "): IDs whose newest version was in a damaged stretch and that have no older"
              + " readable version may be missing from the lists, and read as not found");
    }
    return old;
  }

  /**
   * Indexes every record that verifies, in sequence order; at each damaged stretch, maps the IDs
   * the old index has there to their (unreadable) address, so that an older version cannot show
   * through. Returns {records indexed, the address below which the old checkpoint covers}.
   */
  private long[] indexQueue(LsmIndex index, long last) throws IOException {
    Batch batch = new Batch(index);
    long[] counts = {0, oldCheckpoint >= last ? Long.MAX_VALUE : 0};
    SalvageScan.walk(
        fs,
        dir.resolve("queue"),
        last,
        new SalvageScan.Visitor() {
          @Override
          public void record(long id, long sequence, Op op, long address) throws IOException {
            if (sequence == oldCheckpoint + 1) {
              counts[1] = address;
            }
            if (op == Op.RELOCATED || op == Op.DROPPED) {
              throw new IOException(
                  "record "
                      + sequence
                      + " is a "
                      + op
                      + " record of the space reclamation, which the salvage rebuild does not judge"
                      + " yet; restore the damaged segments from a replica instead"
                      + " (docstore repair-segments --from)");
            }
            batch.put(id, op == Op.DELETE ? LsmIndex.DELETED : address);
            counts[0]++;
          }

          @Override
          public void damaged(Damage d) throws IOException {
            if (oldCheckpoint + 1 >= d.firstSequence() && oldCheckpoint + 1 <= d.lastSequence()) {
              counts[1] = d.startAddress();
            }
            int i = damage.indexOf(d);
            if (i < 0) {
              throw new IOException(
                  "the queue's damage changed between two reads of it (now " + d + ")");
            }
            for (long[] e : oldInDamage.get(i)) {
              batch.put(e[0], e[1]); // after the records before the damage, before those after
            }
          }
        });
    batch.flush();
    return counts;
  }

  /**
   * Every ID whose newest readable version precedes some damage: if the old index saw a newer
   * version, or a deletion, or cannot tell, the new index must not serve the older version as
   * current.
   *
   * @param covered every record below this address was applied to the old index
   */
  private void checkOlderThanDamage(
      LsmIndex index,
      LsmIndex old,
      long covered,
      List<Long> lost,
      List<Long> kept,
      List<Long> unverified)
      throws IOException {
    long lastStart = damage.get(damage.size() - 1).startAddress();
    // Written while the cursor runs: it reads a snapshot, and a fix is never a live address
    // outside the damage, which the cursor skips anyway.
    Batch fixes = new Batch(index);
    long unreadable = 0;
    try (IndexCursor c = index.scan(0)) {
      while (c.next()) {
        long id = c.id();
        long v = c.value();
        if (v >= lastStart || damageHolding(v) >= 0) {
          continue; // newer than every damage, or already mapped into it (lost)
        }
        Damage uncovered = firstAfter(v, covered);
        long ov;
        if (old == null) {
          ov = Long.MIN_VALUE;
        } else {
          try {
            ov = old.get(id);
          } catch (CorruptionException e) {
            ov = Long.MIN_VALUE;
            unreadable++;
          }
        }
        if (ov == Long.MIN_VALUE) {
          unknown(id, firstAfter(v, Long.MIN_VALUE), fixes, unverified);
        } else if (ov > v) {
          fixes.put(id, ov); // the old index knew a newer version the queue lost
          lost.add(id);
        } else if (ov < 0 && v < covered) {
          fixes.put(id, LsmIndex.DELETED); // deleted after v, in the damage
          kept.add(id);
        } else if (uncovered != null) {
          unknown(id, uncovered, fixes, unverified);
        }
      }
    }
    if (unreadable > 0) {
      limits.add(
          "the old index could not answer for "
              + unreadable
              + " ID(s) (damaged pages): they are listed as unverified");
    }
    long uncoveredCount = damage.stream().filter(d -> d.endAddress() > covered).count();
    if (old != null && uncoveredCount > 0) {
      limits.add(
          "the old index had not indexed as far as "
              + uncoveredCount
              + " of the damaged stretch(es) (checkpoint "
              + oldCheckpoint
              + ", newest address "
              + (oldMaxAddress == 0 ? "none" : Address.toString(oldMaxAddress))
              + "): IDs only written there cannot be listed, and older IDs are listed as"
              + " unverified");
    }
    fixes.flush();
  }

  private void unknown(long id, Damage at, Batch fixes, List<Long> unverified) throws IOException {
    unverified.add(id);
    if (!acceptStale) {
      fixes.put(id, at.startAddress());
    }
  }

  /** Index entries written {@value #BATCH} at a time. */
  private static final class Batch {
    private final LsmIndex index;
    private final long[] ids = new long[BATCH];
    private final long[] values = new long[BATCH];
    private int n;

    Batch(LsmIndex index) {
      this.index = index;
    }

    void put(long id, long value) throws IOException {
      ids[n] = id;
      values[n] = value;
      if (++n == BATCH) {
        flush();
      }
    }

    void flush() throws IOException {
      index.putAll(ids, values, n);
      n = 0;
    }
  }

  /** The first damage after {@code address} not below {@code covered}, or null. */
  private Damage firstAfter(long address, long covered) {
    for (Damage d : damage) {
      if (d.startAddress() > address && d.endAddress() > covered) {
        return d;
      }
    }
    return null;
  }

  /** The index of the damage holding {@code address}, or -1. */
  private int damageHolding(long address) {
    for (int i = 0; i < damage.size(); i++) {
      if (damage.get(i).contains(address)) {
        return i;
      }
    }
    return -1;
  }

  private static long[] sorted(List<Long> ids) {
    return ids.stream().mapToLong(Long::longValue).sorted().distinct().toArray();
  }
}
