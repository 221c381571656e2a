package io.docstore.service.torture;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every acknowledged write with its sequence number and body hash, plus the writes sent but not
 * (yet) acknowledged, per document ID. The checker: after a fault, each ID must read back as its
 * last acknowledged version, byte-exact with the acknowledged sequence (a delete reads 404), or as
 * its one unacknowledged write, which may have become durable without its answer arriving. Anything
 * else (an older version, a torn or unknown body) is a loss.
 *
 * <p>Thread-safety: each ID is written by one load thread at a time; {@link #check} runs while no
 * load runs. The maps are concurrent so different threads may own different IDs.
 */
final class AckLedger {

  /** One version: {@code hash == null} means deleted. */
  record Version(long seq, byte[] hash) {}

  /** What a read returned: status 200 with its sequence (ETag) and body, or 404. */
  record Read(int status, long seq, byte[] body) {}

  /** Reads one document from the system under test. */
  interface Reader {
    Read read(long id) throws IOException, InterruptedException;
  }

  private static final class Entry {
    Version acked;

    /** Writes sent since the last acknowledgement, unanswered or refused (hash null = delete). */
    final List<byte[]> pending = new ArrayList<>();

    boolean pendingDelete;

    /** The hash of the write begun last (null = delete): what an acknowledgement acknowledges. */
    byte[] current;

    /** Every version acknowledged before the current one (first 8 bytes of its hash). */
    final java.util.Set<Long> older = new java.util.HashSet<>();
  }

  private final Map<Long, Entry> entries = new ConcurrentHashMap<>();
  private final AtomicLong acknowledged = new AtomicLong();
  private final List<String> failures = new ArrayList<>();

  /** Of the failures, those that served an older version of a document or a deleted one. */
  private final AtomicLong resurrected = new AtomicLong();

  /** Call before sending a write of {@code body} ({@code null} = delete) for {@code id}. */
  void begin(long id, byte[] body) {
    Entry e = entries.computeIfAbsent(id, k -> new Entry());
    e.current = body == null ? null : sha256(body);
    if (body == null) {
      e.pendingDelete = true;
    } else {
      e.pending.add(e.current);
    }
  }

  /** Call when the write begun for {@code id} was acknowledged at {@code seq}. */
  void ack(long id, long seq) {
    Entry e = entries.get(id);
    if (e.acked != null && e.acked.hash() != null) {
      e.older.add(prefix(e.acked.hash()));
    }
    e.acked = new Version(seq, e.current);
    e.pending.clear();
    e.pendingDelete = false;
    acknowledged.incrementAndGet();
  }

  long acknowledged() {
    return acknowledged.get();
  }

  int ids() {
    return entries.size();
  }

  /** IDs the ledger knows, for spot checks. */
  long[] idArray() {
    return entries.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
  }

  /** The last acknowledged version of {@code id}, or null. */
  Version acked(long id) {
    Entry e = entries.get(id);
    return e == null ? null : e.acked;
  }

  /**
   * Reads every ID and checks it; an unacknowledged write that is found becomes the version to
   * keep, one that is not found is forgotten (it can no longer appear: the store has recovered).
   *
   * @return the number of IDs whose state checked out; failures are kept for {@link #failures}
   */
  long check(Reader reader) throws IOException, InterruptedException {
    return check(reader, true);
  }

  /**
   * Like {@link #check(Reader)}, but with {@code settle} false the unacknowledged writes stay
   * possible (not adopted, not forgotten): for checks while the fault lasts, before a restart that
   * may still drop what was never made durable.
   */
  long check(Reader reader, boolean settle) throws IOException, InterruptedException {
    long ok = 0;
    for (Map.Entry<Long, Entry> me : entries.entrySet()) {
      long id = me.getKey();
      Entry e = me.getValue();
      Read r = reader.read(id);
      String problem = null;
      if (r.status() == 404) {
        boolean ackedGone = e.acked == null || e.acked.hash() == null;
        boolean pendingDelete = e.pendingDelete;
        if (ackedGone || pendingDelete) {
          if (!ackedGone && settle) {
            e.acked = new Version(-1, null);
          }
        } else {
          problem = "acknowledged seq " + e.acked.seq() + " is gone (404)";
        }
      } else if (r.status() == 200) {
        byte[] h = sha256(r.body());
        if (e.acked != null
            && e.acked.hash() != null
            && Arrays.equals(h, e.acked.hash())
            && r.seq() == e.acked.seq()) {
          // the acknowledged version
        } else if (e.pending.stream().anyMatch(p -> Arrays.equals(h, p))
            && (e.acked == null || r.seq() > e.acked.seq())) {
          if (settle) {
            e.acked = new Version(r.seq(), h);
          }
        } else {
          boolean older = e.older.contains(prefix(h));
          if (older) {
            resurrected.incrementAndGet();
          }
          problem =
              (older ? "resurrected: " : "")
                  + "served seq "
                  + r.seq()
                  + " ("
                  + r.body().length
                  + " bytes) is not the acknowledged "
                  + (e.acked == null
                      ? "(none)"
                      : "seq " + e.acked.seq() + (e.acked.hash() == null ? " delete" : ""))
                  + " nor the in-flight write";
        }
      } else {
        problem = "status " + r.status();
      }
      if (settle) {
        e.pending.clear();
        e.pendingDelete = false;
      }
      if (problem == null) {
        ok++;
      } else {
        synchronized (failures) {
          failures.add("id " + id + ": " + problem);
        }
      }
    }
    return ok;
  }

  /**
   * Of the {@link #failures}, those where a read served a version acknowledged before the last one
   * (an overwritten version, or one a delete removed): a resurrection, not a loss.
   */
  long resurrected() {
    return resurrected.get();
  }

  /** The {@link #failures} that are not resurrections: acknowledged versions gone or damaged. */
  long lost() {
    return failures().size() - resurrected.get();
  }

  private static long prefix(byte[] hash) {
    return java.nio.ByteBuffer.wrap(hash).getLong();
  }

  /** Losses found by {@link #check} so far (at most the first 20 are worth printing). */
  List<String> failures() {
    synchronized (failures) {
      return List.copyOf(failures);
    }
  }

  static byte[] sha256(byte[] b) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(b);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
