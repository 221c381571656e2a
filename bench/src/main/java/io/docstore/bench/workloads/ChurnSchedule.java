package io.docstore.bench.workloads;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The churn workload's job corpus over {@value #DAYS} simulated days, in simulated milliseconds
 * from 0: postings arrive at a constant rate; each is created (version 0), edited a few times
 * (versions 1, 2, ...) at uniformly random moments of its life, and ends: taken down early (a
 * delete) with probability {@value #TAKEDOWN_SHARE}, at a uniformly random moment of its first
 * {@value #TTL_DAYS} days, or else it expires {@value #TTL_DAYS} days after it was posted. A
 * posting's life is a function of the seed and its number ({@link #life}), so the reader can check
 * what it reads without asking the writer.
 *
 * <p>Sizes: postings arrive at {@code keys} per mean life (27 days: 30, or half that for the fifth
 * taken down), so about {@code keys} are live once the first 30 days are over; the number of edits
 * per posting is chosen so that about {@code updates} creates, edits and take-downs fall within the
 * 90 days (the events of the last 30 days' postings that would fall after day 90 are left out).
 * Expiries are not updates: the application does nothing for them where the engine expires
 * documents itself.
 *
 * <p>{@link #next} yields every event before day 90 in time order (a posting's own events in the
 * order of their versions, its end last), keeping the future events of live postings in a bucket
 * per simulated hour, as longs: about three per live posting. Not thread-safe; {@link #life} is.
 */
final class ChurnSchedule {

  static final int DAYS = 90;
  static final int TTL_DAYS = 30;
  static final double TAKEDOWN_SHARE = 0.2;
  static final long DAY_MS = 86_400_000L;
  static final long TTL_MS = TTL_DAYS * DAY_MS;
  static final long END_MS = DAYS * DAY_MS;

  /**
   * Of a posting's events, the shares that fall within the 90 days (= 3 lives), averaged over when
   * it was posted: its take-down 5/6 (all for the first 60 days' postings, on average half for the
   * last 30 days'), an edit of a posting that expires 5/6, an edit of one taken down 11/12.
   */
  private static final double TAKEDOWN_IN_RUN = 5.0 / 6;

  private static final double EDIT_IN_RUN =
      (1 - TAKEDOWN_SHARE) * 5.0 / 6 + TAKEDOWN_SHARE * 11.0 / 12;

  /** At most this many edits per posting (the version's bits in an encoded event). */
  static final int MAX_EDITS = 127;

  private static final long BUCKET_MS = 3_600_000L;

  enum Kind {
    CREATE,
    EDIT,
    TAKEDOWN,
    EXPIRE
  }

  /**
   * One event: at {@code timeMs}, of posting {@code posting}, writing {@code version} (a create or
   * edit) or ending the posting whose last version is {@code version}.
   */
  record Event(long timeMs, long posting, Kind kind, int version) {}

  /** One posting's life: posted at {@code createdMs}, edited at {@code editMs}, ended at endMs. */
  record Life(long createdMs, long endMs, boolean takenDown, long[] editMs) {

    /** When the posting expires if it is not taken down first: 30 days after it was posted. */
    long expiresMs() {
      return createdMs + TTL_MS;
    }

    int lastVersion() {
      return editMs.length;
    }
  }

  private final long seed;
  private final double createEveryMs;
  private final long postings;
  private final int baseEdits;
  private final double extraEditChance;

  private final long[][] buckets = new long[(int) (END_MS / BUCKET_MS)][];
  private final int[] bucketSizes = new int[buckets.length];
  private int bucket = -1;
  private long[] current = new long[0];
  private int currentSize;
  private int currentIndex;
  private long nextPosting;

  /**
   * @param keys postings live at once after the first 30 days
   * @param updates creates, edits and take-downs within the 90 days
   */
  ChurnSchedule(long keys, long updates, long seed) {
    if (keys < 1) {
      throw new IllegalArgumentException("churn needs at least one live document");
    }
    this.seed = seed;
    double meanLifeMs = TTL_MS * (1 - TAKEDOWN_SHARE / 2);
    this.createEveryMs = meanLifeMs / keys;
    this.postings = (long) Math.ceil(END_MS / createEveryMs);
    if (postings > 1L << 32) {
      throw new IllegalArgumentException("churn: too many live documents, " + keys);
    }
    double edits =
        ((double) updates / postings - 1 - TAKEDOWN_SHARE * TAKEDOWN_IN_RUN) / EDIT_IN_RUN;
    if (edits < 0 || edits > MAX_EDITS - 1) {
      throw new IllegalArgumentException(
          String.format(
              "churn: %,d updates of %,d live documents is %.1f edits per posting; between 0 and"
                  + " %d needs between %,d and %,d updates",
              updates,
              keys,
              edits,
              MAX_EDITS - 1,
              minUpdates(postings, 0),
              minUpdates(postings, MAX_EDITS - 1)));
    }
    this.baseEdits = (int) edits;
    this.extraEditChance = edits - baseEdits;
  }

  private static long minUpdates(long postings, int edits) {
    return (long)
        Math.ceil(postings * (1 + TAKEDOWN_SHARE * TAKEDOWN_IN_RUN + edits * EDIT_IN_RUN));
  }

  /** Postings created within the 90 days (numbered from 0 in the order they are posted). */
  long postings() {
    return postings;
  }

  /** Postings created per 30 days: the newest of them are the ones that can still be live. */
  long postingsPerTtl() {
    return (long) (TTL_MS / createEveryMs);
  }

  Life life(long posting) {
    SplittableRandom r = new SplittableRandom(Keys.randomKey(seed, posting));
    long created = (long) (posting * createEveryMs);
    boolean takenDown = r.nextDouble() < TAKEDOWN_SHARE;
    long end = takenDown ? created + 1 + (long) (r.nextDouble() * (TTL_MS - 1)) : created + TTL_MS;
    long[] edits = new long[baseEdits + (r.nextDouble() < extraEditChance ? 1 : 0)];
    for (int i = 0; i < edits.length; i++) {
      edits[i] = created + (long) (r.nextDouble() * (end - created));
    }
    Arrays.sort(edits);
    return new Life(created, end, takenDown, edits);
  }

  /** The next event in time order, or null after the last one before day 90. */
  Event next() {
    while (currentIndex == currentSize) {
      if (bucket + 1 == buckets.length) {
        return null;
      }
      bucket++;
      long bucketEnd = (bucket + 1) * BUCKET_MS;
      while (nextPosting < postings && (long) (nextPosting * createEveryMs) < bucketEnd) {
        schedule(nextPosting++);
      }
      current = buckets[bucket] == null ? new long[0] : buckets[bucket];
      currentSize = bucketSizes[bucket];
      currentIndex = 0;
      buckets[bucket] = null;
      Arrays.sort(current, 0, currentSize);
    }
    long e = current[currentIndex++];
    long time = bucket * BUCKET_MS + (e >>> 41);
    Kind kind = Kind.values()[(int) (e >>> 39) & 3];
    return new Event(time, e & 0xFFFF_FFFFL, kind, (int) (e >>> 32) & MAX_EDITS);
  }

  private void schedule(long posting) {
    Life life = life(posting);
    add(life.createdMs(), Kind.CREATE, 0, posting);
    for (int v = 1; v <= life.lastVersion(); v++) {
      add(life.editMs()[v - 1], Kind.EDIT, v, posting);
    }
    add(life.endMs(), life.takenDown() ? Kind.TAKEDOWN : Kind.EXPIRE, life.lastVersion(), posting);
  }

  /**
   * Files an event before day 90 under its hour, as the long {@code offset in the hour (22 bits) |
   * kind (2) | version (7) | posting (32)}: sorting a bucket orders it by time, then kind (a create
   * before an edit, an end last), then version.
   */
  private void add(long timeMs, Kind kind, int version, long posting) {
    if (timeMs >= END_MS) {
      return;
    }
    int b = (int) (timeMs / BUCKET_MS);
    long e =
        (timeMs - b * BUCKET_MS) << 41
            | (long) kind.ordinal() << 39
            | (long) version << 32
            | posting;
    long[] list = buckets[b];
    if (list == null) {
      list = buckets[b] = new long[16];
    } else if (bucketSizes[b] == list.length) {
      list = buckets[b] = Arrays.copyOf(list, list.length * 2);
    }
    list[bucketSizes[b]++] = e;
  }
}
