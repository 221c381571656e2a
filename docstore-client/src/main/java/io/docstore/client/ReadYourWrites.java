package io.docstore.client;

import io.docstore.client.DocClientException.Reason;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The reads of a {@link DocClient} that wait until a write is visible (read-your-writes over a
 * primary and its replicas), in both forms: by the version the write was acknowledged with ({@link
 * #atLeast}) and by where it landed in the update log ({@link #past}). Owns the rounds they share:
 * each round asks every connected server once, one after the other, starting at a different server
 * each call to spread the load; rounds repeat 5 ms apart until the request timeout. Thread-safe: a
 * call's state lives in its own {@link Probe}.
 */
final class ReadYourWrites {

  /** What one server answered in a round. */
  private enum Answer {
    /** The read is settled: {@link Probe#found} is its answer (null: absent). */
    SETTLED,
    /** The server does not have the write yet. */
    BEHIND,
    /** The server has no such document at all. */
    ABSENT,
    /** No answer: no free slot in time, or the request failed ({@link Probe#lastFailure}). */
    NONE
  }

  /** One call: what each server is asked in a round, and what the call waited for. */
  private abstract static class Probe {
    Document found;
    DocClientException lastFailure;

    abstract Answer ask(int server, long deadline);

    /** What no server had in time, for the timeout's message. */
    abstract String waitedFor();
  }

  private final int servers;
  private final SlotTable slots;
  private final Requests requests;
  private final long requestTimeoutNanos;
  private final Runnable checkOpen;
  private final Supplier<List<InetSocketAddress>> addresses;

  /**
   * @param checkOpen throws {@link DocClientException} ({@link Reason#CLOSED}) once the client is
   *     closed
   * @param addresses the servers' addresses, for messages
   */
  ReadYourWrites(
      int servers,
      SlotTable slots,
      Requests requests,
      long requestTimeoutNanos,
      Runnable checkOpen,
      Supplier<List<InetSocketAddress>> addresses) {
    this.servers = servers;
    this.slots = slots;
    this.requests = requests;
    this.requestTimeoutNanos = requestTimeoutNanos;
    this.checkOpen = checkOpen;
    this.addresses = addresses;
  }

  /** See {@link DocClient#getAtLeast(long, long)}. */
  Document atLeast(long id, long minSequence) {
    return rounds(
        new Probe() {
          private Document newest;

          @Override
          Answer ask(int server, long deadline) {
            Document[] one = new Document[1];
            if (!read(server, id, one, deadline, this)) {
              return Answer.NONE;
            }
            Document doc = one[0];
            if (doc == null) {
              return Answer.ABSENT;
            }
            if (doc.sequence() >= minSequence) {
              found = doc;
              return Answer.SETTLED;
            }
            if (newest == null || doc.sequence() > newest.sequence()) {
              newest = doc;
            }
            return Answer.BEHIND;
          }

          @Override
          String waitedFor() {
            return "no server has document "
                + id
                + " at sequence >= "
                + minSequence
                + " (newest seen: "
                + (newest == null ? "none" : newest.sequence())
                + ")";
          }
        });
  }

  /** See {@link DocClient#getAtLeast(long, LogPosition)}. */
  Document past(long id, LogPosition written) {
    return rounds(
        new Probe() {
          /** The highest next offset a server answered; -1 also when none held the partition. */
          private long highest = Long.MIN_VALUE;

          @Override
          Answer ask(int server, long deadline) {
            int slot = slotOn(server, deadline);
            if (slot < 0) {
              return Answer.NONE;
            }
            Requests.Position p = requests.position(slot, written.partition());
            if (p.failure() != null) {
              lastFailure = p.failure();
              return Answer.NONE;
            }
            highest = Math.max(highest, p.next());
            if (p.next() <= written.offset()) {
              return Answer.BEHIND;
            }
            // Reads there see the write: the document is that version, a newer one, or absent.
            Document[] one = new Document[1];
            if (!read(server, id, one, deadline, this)) {
              return Answer.NONE;
            }
            found = one[0];
            return Answer.SETTLED;
          }

          @Override
          String waitedFor() {
            return "no server has applied partition "
                + written.partition()
                + " of the update log past offset "
                + written.offset()
                + ", to read document "
                + id
                + " (highest position seen: "
                + (highest == Long.MIN_VALUE
                    ? "none"
                    : highest < 0 ? "none, no server holds anything of that partition" : highest)
                + ")";
          }
        });
  }

  /**
   * Rounds of {@code probe} until one settles: a server's answer, or null once every server that
   * answered in a round has no such document.
   */
  private Document rounds(Probe probe) {
    long deadline = System.nanoTime() + requestTimeoutNanos;
    boolean everAnswered = false;
    int first = (int) Math.floorMod(requests.lastId(), (long) servers);
    while (true) {
      checkOpen.run();
      int answered = 0;
      int absent = 0;
      for (int k = 0; k < servers; k++) {
        int server = (first + k) % servers;
        if (!slots.isUp(server)) {
          continue;
        }
        Answer a = probe.ask(server, deadline);
        if (a == Answer.SETTLED) {
          return probe.found;
        }
        if (a == Answer.NONE) {
          continue; // disconnected meanwhile, no free slot in time, or failed
        }
        answered++;
        everAnswered = true;
        if (a == Answer.ABSENT) {
          absent++;
        }
      }
      if (answered > 0 && absent == answered) {
        return null;
      }
      if (System.nanoTime() >= deadline) {
        throw timedOut(probe, everAnswered);
      }
      sleepBriefly();
    }
  }

  private DocClientException timedOut(Probe probe, boolean everAnswered) {
    String msg = probe.waitedFor();
    DocClientException last = probe.lastFailure;
    if (last == null) {
      return new DocClientException(
          everAnswered ? Reason.TIMEOUT : Reason.UNREACHABLE,
          everAnswered ? msg : msg + ": no server connected (" + addresses.get() + ")");
    }
    return new DocClientException(
        everAnswered ? Reason.TIMEOUT : last.reason(),
        msg + "; last failure: " + last.getMessage(),
        last);
  }

  /**
   * Reads {@code id} from {@code server} into {@code out[0]}; false when it gave no answer (no slot
   * before {@code deadline}, or a failure, noted in {@code probe}).
   */
  private boolean read(int server, long id, Document[] out, long deadline, Probe probe) {
    int slot = slotOn(server, deadline);
    if (slot < 0) {
      return false;
    }
    Requests.Attempt a = requests.call(slot, null, new long[] {id}, new int[1], out, 0);
    if (a.failure != null || a.retryIds.length > 0) {
      probe.lastFailure =
          a.failure != null
              ? a.failure
              : new DocClientException(Reason.SERVER_ERROR, a.retryReason);
      return false;
    }
    return true;
  }

  /** A slot of {@code server}, or -1 if it offered none before {@code deadline}. */
  private int slotOn(int server, long deadline) {
    try {
      return slots.acquireOn(server, deadline - System.nanoTime());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DocClientException(Reason.INTERRUPTED, "interrupted while waiting for a free slot");
    }
  }

  private static void sleepBriefly() {
    try {
      TimeUnit.MILLISECONDS.sleep(5);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DocClientException(Reason.INTERRUPTED, "interrupted");
    }
  }
}
