package io.docstore.queue.replication;

import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.queue.block.BlockHeader;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.segment.SegmentHeader;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps {@code replication.manifest} current on a primary: every interval, it walks the newest
 * segment's blocks from where it stopped, each verified by its checksum (nothing decompressed), up
 * to the last block whose records are all durable ({@code durableSequence}), and publishes the
 * manifest atomically when it moved. It reads the segment file like any reader (a block the writer
 * is still writing fails its checksum and is simply not counted yet), so it needs nothing from the
 * queue but its directory and its durable sequence.
 *
 * <p>Cost: each block is read once more, from the page cache, right after it was written, and
 * checksummed, not decompressed (a replica decodes what it copies); one publish (two fsyncs) per
 * interval at most, none when idle.
 *
 * <p>Thread-safety: {@link #publishOnce} is called by the publisher thread (or a test) only; {@link
 * #close} from any thread.
 */
public final class ManifestPublisher implements Closeable {

  private static final Logger LOG = LoggerFactory.getLogger(ManifestPublisher.class);

  private final FileSystem fs;
  private final Path dir;
  private final LongSupplier durableSequence;
  private final BlockReader reader;
  private final BlockHeader block = new BlockHeader();
  private final Thread thread;
  private volatile boolean closed;

  /**
   * Woken by close; never interrupt the thread, an interrupt closes the FileChannel it is reading.
   */
  private final Object stop = new Object();

  private long segment;
  private FileChannel channel;
  private Path path;
  private long baseSequence;
  private long position;
  private long lastSequence;
  private long blockCount;
  private int chain;
  private ReplicationManifest published;

  /**
   * @param durableSequence the queue's fsynced sequence (a store's {@code durableSequence}, which
   *     under sync {@code none} fsyncs what was written first): a replica never copies what a power
   *     loss could take from the primary
   * @param intervalMillis how often to look; 0 starts no thread (call {@link #publishOnce})
   */
  public ManifestPublisher(
      FileSystem fs,
      Path queueDir,
      LongSupplier durableSequence,
      int expectedBlockBytes,
      long intervalMillis) {
    this.fs = fs;
    this.dir = queueDir;
    this.durableSequence = durableSequence;
    this.reader = new BlockReader(expectedBlockBytes);
    if (intervalMillis > 0) {
      thread = new Thread(() -> run(intervalMillis), "replication-manifest");
      thread.setDaemon(true);
      thread.start();
    } else {
      thread = null;
    }
  }

  private void run(long intervalMillis) {
    while (!closed) {
      try {
        publishOnce();
      } catch (IOException | RuntimeException e) {
        LOG.warn("replication manifest not published (will retry): {}", e.toString());
      }
      synchronized (stop) {
        if (!closed) {
          try {
            stop.wait(intervalMillis);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }
  }

  /** The last manifest published, or null. */
  public synchronized ReplicationManifest lastPublished() {
    return published;
  }

  /** Advances over newly durable blocks of the newest segment and publishes if anything moved. */
  public synchronized ReplicationManifest publishOnce() throws IOException {
    long durable = durableSequence.getAsLong();
    long newest = newestSegment();
    if (newest == 0) {
      return published;
    }
    if (newest != segment && !openSegment(newest)) {
      return published; // its header is still being written
    }
    while (true) {
      long size = channel.size();
      if (position >= size) {
        break;
      }
      try {
        reader.readHeader(channel, path, position, size, block);
      } catch (CorruptionException incompleteOrFooter) {
        break; // a block still being written, or the footer of a segment sealed meanwhile
      }
      if (block.lastSequence() > durable || block.firstSequence() != lastSequence + 1) {
        break;
      }
      chain = BlockCrcChain.next(chain, block.crc());
      blockCount++;
      lastSequence = block.lastSequence();
      position = block.end();
    }
    if (published == null
        || published.segment() != segment
        || published.durableLength() != position) {
      ReplicationManifest m =
          new ReplicationManifest(
              segment,
              baseSequence,
              position,
              lastSequence,
              blockCount,
              chain,
              System.currentTimeMillis());
      m.publish(fs, dir);
      published = m;
    }
    return published;
  }

  private long newestSegment() throws IOException {
    long newest = 0;
    for (Path p : fs.list(dir)) {
      var name = SegmentFileName.parse(p);
      if (name.isPresent()) {
        newest = Math.max(newest, name.get().segment());
      }
    }
    return newest;
  }

  /** Opens the newest segment at its header; false if the header is not complete yet. */
  private boolean openSegment(long number) throws IOException {
    FileChannel ch;
    try {
      ch = fs.openRead(new SegmentFileName(number, false).in(dir));
    } catch (NoSuchFileException sealedMeanwhile) {
      ch = fs.openRead(new SegmentFileName(number, true).in(dir));
    }
    SegmentHeader h;
    try {
      if (ch.size() < SegmentFormat.HEADER_LENGTH) {
        ch.close();
        return false;
      }
      h = SegmentHeader.read(ch, new SegmentFileName(number, false).in(dir));
    } catch (IOException e) {
      ch.close();
      throw e;
    }
    if (channel != null) {
      channel.close();
    }
    channel = ch;
    path = new SegmentFileName(number, false).in(dir);
    segment = number;
    baseSequence = h.baseSequence();
    position = SegmentFormat.HEADER_LENGTH;
    lastSequence = baseSequence - 1;
    blockCount = 0;
    chain = BlockCrcChain.START;
    return true;
  }

  /** Stops the thread and closes the segment channel. Does not publish. */
  @Override
  public void close() throws IOException {
    synchronized (stop) {
      closed = true;
      stop.notifyAll();
    }
    if (thread != null) {
      try {
        thread.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    synchronized (this) {
      if (channel != null) {
        channel.close();
        channel = null;
      }
    }
  }
}
