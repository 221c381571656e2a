package io.docstore.service.inbox;

import io.docstore.io.AtomicFiles;
import io.docstore.io.FileSystem;
import io.docstore.service.DocumentSink;
import io.docstore.service.updater.NdjsonApplier;
import io.docstore.service.updater.UpdateParser;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies NDJSON update files dropped into a directory. Producers write a file elsewhere on the
 * same file system and rename it in (so a file is never seen half-written); names starting with
 * {@code .} or ending with {@code .tmp} are ignored. Files are applied in name order, then moved to
 * {@code done/}, or to {@code failed/} with a {@code NAME.errors} report when any line was invalid
 * (its valid lines are applied).
 *
 * <p>Crash safety: a file leaves the inbox only after all its updates are acknowledged (durable),
 * so a crash halfway re-applies the whole file at the next start; updates are idempotent (the same
 * final version), so that is safe. A store failure leaves the file in place and retries it at the
 * next poll.
 *
 * <p>One daemon thread; {@link #close} stops it after the file in progress (it is not interrupted).
 */
public final class Inbox implements Closeable {

  private static final Logger log = LoggerFactory.getLogger(Inbox.class);

  private final Path dir;
  private final FileSystem fs;
  private final NdjsonApplier applier;
  private final long pollMillis;
  private final Thread thread;
  private final Counter filesDone;
  private final Counter filesFailed;
  private final Counter linesApplied;
  private final Counter linesFailed;
  private final Object wakeup = new Object();
  private volatile boolean closed;

  private Inbox(Path dir, DocumentSink sink, UpdateParser parser, int batchLines, int maxBodyBytes, Duration poll,
      MeterRegistry registry) {
    this.dir = dir;
    this.fs = FileSystem.real();
    this.applier = new NdjsonApplier(sink, parser, batchLines, maxBodyBytes);
    this.pollMillis = poll.toMillis();
    this.filesDone = Counter.builder("docstore.inbox.files").tag("result", "done").register(registry);
    this.filesFailed = Counter.builder("docstore.inbox.files").tag("result", "failed").register(registry);
    this.linesApplied = Counter.builder("docstore.inbox.lines").tag("result", "applied").register(registry);
    this.linesFailed = Counter.builder("docstore.inbox.lines").tag("result", "invalid").register(registry);
    this.thread = new Thread(this::run, "docstore-inbox");
    thread.setDaemon(true);
  }

  /** Creates {@code dir}, {@code dir/done} and {@code dir/failed} if needed and starts polling. */
  public static Inbox start(Path dir, DocumentSink sink, UpdateParser parser, int batchLines, int maxBodyBytes,
      Duration poll, MeterRegistry registry) throws IOException {
    FileSystem fs = FileSystem.real();
    fs.createDirectories(dir.resolve("done"));
    fs.createDirectories(dir.resolve("failed"));
    Inbox inbox = new Inbox(dir, sink, parser, batchLines, maxBodyBytes, poll, registry);
    inbox.thread.start();
    log.info("inbox {} is watched every {} ms", dir.toAbsolutePath(), inbox.pollMillis);
    return inbox;
  }

  private void run() {
    while (!closed) {
      synchronized (wakeup) {
        if (!closed) {
          try {
            wakeup.wait(pollMillis);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
      if (closed) {
        return;
      }
      try {
        drain();
      } catch (IOException | RuntimeException e) {
        log.error("inbox {}: {} (retrying in {} ms)", dir, e.toString(), pollMillis);
      }
    }
  }

  /**
   * Applies every file present now, in name order (the poller calls this; tests may too). Returns
   * the number of files handled. Serialised: one file is never applied by two threads at once.
   */
  public synchronized int drain() throws IOException {
    int handled = 0;
    for (Path f : fs.list(dir)) {
      if (closed) {
        break;
      }
      String name = f.getFileName().toString();
      if (name.startsWith(".") || name.endsWith(AtomicFiles.TEMP_SUFFIX) || !Files.isRegularFile(f)) {
        continue;
      }
      applyFile(f);
      handled++;
    }
    return handled;
  }

  private void applyFile(Path f) throws IOException {
    long t0 = System.nanoTime();
    NdjsonApplier.Result r;
    try (InputStream in = Files.newInputStream(f)) {
      r = applier.apply(in, bytes -> {});
    }
    linesApplied.increment(r.applied());
    linesFailed.increment(r.failed());
    Path name = f.getFileName();
    if (r.failed() == 0) {
      move(f, dir.resolve("done").resolve(name));
      filesDone.increment();
      log.info("inbox: applied {} ({} updates, last seq {}) in {} ms", name, r.applied(), r.lastSequence(),
          (System.nanoTime() - t0) / 1_000_000);
    } else {
      StringBuilder report = new StringBuilder();
      report.append(name).append(": ").append(r.applied()).append(" updates applied, ")
          .append(r.failed()).append(" lines invalid (not applied)\n");
      for (String e : r.errors()) {
        report.append(e).append('\n');
      }
      if (r.failed() > r.errors().size()) {
        report.append("... ").append(r.failed() - r.errors().size()).append(" more\n");
      }
      AtomicFiles.publish(fs, dir.resolve("failed").resolve(name + ".errors"),
          report.toString().getBytes(StandardCharsets.UTF_8));
      move(f, dir.resolve("failed").resolve(name));
      filesFailed.increment();
      log.warn("inbox: {} had {} invalid lines; moved to failed/ with a report", name, r.failed());
    }
  }

  private void move(Path from, Path to) throws IOException {
    fs.rename(from, to);
    fs.syncDirectory(to.getParent());
    fs.syncDirectory(from.getParent());
  }

  /** Files waiting in the inbox now (for tests and stats). */
  public List<Path> pending() throws IOException {
    return fs.list(dir).stream().filter(Files::isRegularFile).toList();
  }

  @Override
  public void close() {
    // Never interrupt: an interrupt inside a FileChannel write would close the queue's segment file.
    closed = true;
    synchronized (wakeup) {
      wakeup.notifyAll();
    }
    try {
      thread.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
