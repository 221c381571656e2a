package io.docstore.service.inbox;

import io.docstore.io.AtomicFiles;
import io.docstore.io.FileSystem;
import io.docstore.service.DocumentSink;
import io.docstore.service.Update;
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
import java.util.ArrayList;
import java.util.Arrays;
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
 * and no line is applied twice, since a line applied again after a crash would overwrite a newer
 * write acknowledged in between. The inbox keeps an {@link InboxPoint} in the data directory:
 * before a file's first batch, its identity and the queue's last sequence S; after each durable
 * batch, the byte offset after it and the batch's last sequence. After a crash or a store failure
 * the file is read again from its start: lines before the recorded offset are skipped, and since
 * the point may lag the store by the batch that was in flight, each later update is skipped too
 * while the same update (ID, operation, body) is found, in order, among the records after S ({@link
 * DocumentSink#replay}). Updates are applied in order and the queue keeps a prefix of what was
 * appended, so the updates that got in are a prefix of those after the offset, and the search finds
 * at least them. The search can only skip more where a record after S is the very same update,
 * which leaves the store as if the line had been applied there. A file in progress is resumed
 * before any other (starting another would replace its point); the point is removed once the file
 * is moved.
 *
 * <p>A damaged point stops the inbox (files wait, an error is logged at each poll) until the
 * operator removes it: the file in progress then starts over from its first line.
 *
 * <p>One daemon thread; {@link #close} stops it after the file in progress (it is not interrupted).
 */
public final class Inbox implements Closeable {

  private static final Logger log = LoggerFactory.getLogger(Inbox.class);

  private final Path dir;
  private final Path dataDir;
  private final FileSystem fs;
  private final DocumentSink sink;
  private final NdjsonApplier applier;
  private final long pollMillis;
  private final Thread thread;
  private final Counter filesDone;
  private final Counter filesFailed;
  private final Counter linesApplied;
  private final Counter linesFailed;
  private final Object wakeup = new Object();
  private volatile boolean closed;

  private Inbox(
      Path dir,
      Path dataDir,
      DocumentSink sink,
      UpdateParser parser,
      int batchLines,
      int maxBodyBytes,
      Duration poll,
      MeterRegistry registry) {
    this.dir = dir;
    this.dataDir = dataDir;
    this.fs = FileSystem.real();
    this.sink = sink;
    this.applier = new NdjsonApplier(sink, parser, batchLines, maxBodyBytes);
    this.pollMillis = poll.toMillis();
    this.filesDone =
        Counter.builder("docstore.inbox.files").tag("result", "done").register(registry);
    this.filesFailed =
        Counter.builder("docstore.inbox.files").tag("result", "failed").register(registry);
    this.linesApplied =
        Counter.builder("docstore.inbox.lines").tag("result", "applied").register(registry);
    this.linesFailed =
        Counter.builder("docstore.inbox.lines").tag("result", "invalid").register(registry);
    this.thread = new Thread(this::run, "docstore-inbox");
    thread.setDaemon(true);
  }

  /**
   * Creates {@code dir}, {@code dir/done} and {@code dir/failed} if needed and starts polling.
   *
   * @param dataDir the store's data directory, where the {@link InboxPoint} is kept
   */
  public static Inbox start(
      Path dir,
      Path dataDir,
      DocumentSink sink,
      UpdateParser parser,
      int batchLines,
      int maxBodyBytes,
      Duration poll,
      MeterRegistry registry)
      throws IOException {
    FileSystem fs = FileSystem.real();
    fs.createDirectories(dir.resolve("done"));
    fs.createDirectories(dir.resolve("failed"));
    Inbox inbox = new Inbox(dir, dataDir, sink, parser, batchLines, maxBodyBytes, poll, registry);
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
   * Applies every file present now, in name order after the file in progress, if any (the poller
   * calls this; tests may too). Returns the number of files handled. Serialised: one file is never
   * applied by two threads at once.
   */
  public synchronized int drain() throws IOException {
    List<Path> files = new ArrayList<>();
    for (Path f : fs.list(dir)) {
      String name = f.getFileName().toString();
      if (!name.startsWith(".")
          && !name.endsWith(AtomicFiles.TEMP_SUFFIX)
          && Files.isRegularFile(f)) {
        files.add(f);
      }
    }
    InboxPoint point = InboxPoint.read(fs, dataDir);
    if (point != null) {
      // The file in progress goes first: starting another would replace its point.
      for (int i = 0; i < files.size(); i++) {
        if (InboxPoint.FileId.of(files.get(i)).equals(point.file())) {
          files.add(0, files.remove(i));
          break;
        }
      }
    }
    int handled = 0;
    for (Path f : files) {
      if (closed) {
        break;
      }
      applyFile(f);
      handled++;
    }
    return handled;
  }

  private void applyFile(Path f) throws IOException {
    long t0 = System.nanoTime();
    Path name = f.getFileName();
    InboxPoint.FileId id = InboxPoint.FileId.of(f);
    InboxPoint point = InboxPoint.read(fs, dataDir);
    NdjsonApplier.Result r;
    Resume resume;
    if (point != null && point.file().equals(id)) {
      resume = new Resume(id, point.offset(), sink.replay(point.sequence()));
      log.info(
          "inbox: resuming {} after byte {} (its records at or below sequence {})",
          name,
          point.offset(),
          point.sequence());
    } else {
      // Published before the file's first batch: its records all come after this sequence.
      new InboxPoint(id, 0, sink.lastSequence()).publish(fs, dataDir);
      resume = new Resume(id, 0, null);
    }
    try (resume;
        InputStream in = Files.newInputStream(f)) {
      r = applier.apply(in, resume);
    }
    linesApplied.increment(r.applied() - resume.skipped);
    linesFailed.increment(r.failed());
    if (resume.found > 0) {
      log.info(
          "inbox: {}: {} updates after the recorded point were in the store already (not applied again)",
          name,
          resume.found);
    }
    if (r.failed() == 0) {
      move(f, dir.resolve("done").resolve(name));
      filesDone.increment();
      InboxPoint.remove(fs, dataDir);
      log.info(
          "inbox: applied {} ({} updates, last seq {}) in {} ms",
          name,
          r.applied(),
          r.lastSequence(),
          (System.nanoTime() - t0) / 1_000_000);
    } else {
      StringBuilder report = new StringBuilder();
      report
          .append(name)
          .append(": ")
          .append(r.applied())
          .append(" updates applied, ")
          .append(r.failed())
          .append(" lines invalid (not applied)\n");
      for (String e : r.errors()) {
        report.append(e).append('\n');
      }
      if (r.failed() > r.errors().size()) {
        report.append("... ").append(r.failed() - r.errors().size()).append(" more\n");
      }
      AtomicFiles.publish(
          fs,
          dir.resolve("failed").resolve(name + ".errors"),
          report.toString().getBytes(StandardCharsets.UTF_8));
      move(f, dir.resolve("failed").resolve(name));
      filesFailed.increment();
      InboxPoint.remove(fs, dataDir);
      log.warn("inbox: {} had {} invalid lines; moved to failed/ with a report", name, r.failed());
    }
  }

  /**
   * Skips what a file's {@link InboxPoint} says is applied and what the store holds beyond it, and
   * moves the point after each durable batch.
   */
  private final class Resume implements NdjsonApplier.Progress, AutoCloseable {
    private final InboxPoint.FileId file;
    private final long offset;

    /**
     * The records after the point's sequence, until an update is not found among them; then null.
     */
    private DocumentSink.Replay after;

    /** Updates skipped: before {@link #offset} or found in the store. */
    long skipped;

    /** Updates after {@link #offset} found in the store. */
    long found;

    Resume(InboxPoint.FileId file, long offset, DocumentSink.Replay after) {
      this.file = file;
      this.offset = offset;
      this.after = after;
    }

    @Override
    public boolean alreadyApplied(Update update, long lineEnd) throws IOException {
      if (lineEnd <= offset) {
        skipped++;
        return true;
      }
      if (after == null) {
        return false;
      }
      for (Update stored; (stored = after.next()) != null; ) {
        if (stored.id() == update.id() && Arrays.equals(stored.body(), update.body())) {
          skipped++;
          found++;
          return true;
        }
      }
      close();
      return false;
    }

    @Override
    public void batchDone(long consumed, long lastSequence) throws IOException {
      if (lastSequence > 0) {
        new InboxPoint(file, consumed, lastSequence).publish(fs, dataDir);
      }
    }

    @Override
    public void close() {
      if (after != null) {
        after.close();
        after = null;
      }
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
    // Never interrupt: an interrupt inside a FileChannel write would close the queue's segment
    // file.
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
