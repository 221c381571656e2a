package io.docstore.queue;

import io.docstore.io.SyncPolicy;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Random;

/**
 * Child JVM for {@link QueueKillTest}: opens the queue with sync=always, prints {@code READY
 * <last>}, then appends from two threads forever, printing {@code ACK <seq> <id> <address> END}
 * after each record is acknowledged durable. Killed with SIGKILL (or by a kill point) at a random
 * moment.
 */
public final class KillChild {

  private KillChild() {}

  static byte[] body(long id) {
    Random r = new Random(id);
    byte[] b = new byte[(int) (id % 1500)];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) ('a' + r.nextInt(20));
    }
    return b;
  }

  static QueueOptions options() {
    return QueueOptions.builder()
        .syncPolicy(SyncPolicy.ALWAYS)
        .blockSize(2048)
        .segmentSize(48 * 1024)
        .build();
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    long idBase = Long.parseLong(args[1]);
    PrintStream out = System.out;
    DocQueue q = DocQueue.open(dir, options());
    synchronized (out) {
      out.println("READY " + q.lastSequence());
      out.flush();
    }
    Thread[] threads = new Thread[2];
    for (int t = 0; t < threads.length; t++) {
      long base = idBase + t * 100_000_000L;
      threads[t] =
          new Thread(
              () -> {
                try {
                  for (long i = 0; ; i++) {
                    long id = base + i;
                    Appended a = q.writer().append(id, Op.PUT, id, body(id));
                    q.writer().awaitDurable(a.sequence());
                    synchronized (out) {
                      out.println("ACK " + a.sequence() + " " + id + " " + a.address() + " END");
                      out.flush();
                    }
                  }
                } catch (Exception e) {
                  e.printStackTrace();
                  System.exit(3);
                }
              });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join();
    }
  }
}
