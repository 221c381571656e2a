package io.docstore.queue.segment;

import io.docstore.io.MappedFile;
import io.docstore.queue.block.InPlaceRecord;
import io.docstore.queue.block.RecordDictionary;
import io.docstore.queue.block.ZstdRecords;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * What readers know about one segment: its read channel and how far it may be read.
 *
 * <p>Thread-safety: the writer is the only one to change {@code blocksEnd}, {@code lastSequence},
 * {@code sealed} and {@code path}; it publishes a block by writing it completely and only then
 * raising {@code blocksEnd} (volatile), so a reader that stays below {@code blocksEnd} never sees a
 * partial block. The read channel is positional-read only and shared by all readers, as is the
 * lazily made mapping of the blocks below {@code blocksEnd} ({@link #mapped()}): the writer never
 * changes or cuts a byte below {@code blocksEnd} while the queue is open.
 */
public final class SegmentInfo implements InPlaceRecord.Dictionaries {

  private final long number;
  private final long baseSequence;
  private final FileChannel channel;
  private final MappedFile mapped;
  private volatile Path path;
  private volatile long blocksEnd;
  private volatile long lastSequence;
  private volatile boolean sealed;
  private volatile RecordDictionary dictionary;
  private final boolean reclaimed;

  public SegmentInfo(
      long number,
      long baseSequence,
      Path path,
      FileChannel channel,
      long blocksEnd,
      long lastSequence,
      boolean sealed) {
    this(number, baseSequence, path, channel, blocksEnd, lastSequence, sealed, false);
  }

  /**
   * @param reclaimed a hollow segment (sealed, no block; its sequences were reclaimed)
   */
  public SegmentInfo(
      long number,
      long baseSequence,
      Path path,
      FileChannel channel,
      long blocksEnd,
      long lastSequence,
      boolean sealed,
      boolean reclaimed) {
    this.reclaimed = reclaimed;
    this.number = number;
    this.baseSequence = baseSequence;
    this.path = path;
    this.channel = channel;
    this.mapped = new MappedFile(channel, path, ByteOrder.BIG_ENDIAN);
    this.blocksEnd = blocksEnd;
    this.lastSequence = lastSequence;
    this.sealed = sealed;
  }

  public long number() {
    return number;
  }

  /** Sequence of the segment's first record (one past the previous segment's last). */
  public long baseSequence() {
    return baseSequence;
  }

  public Path path() {
    return path;
  }

  public FileChannel channel() {
    return channel;
  }

  /**
   * The segment's blocks, mapped in chunks as they become readable (nothing is mapped until read).
   */
  public MappedFile mapped() {
    return mapped;
  }

  /** End of the last complete block: blocks before it may be read. */
  public long blocksEnd() {
    return blocksEnd;
  }

  /** Sequence of the last record in a complete block, {@code baseSequence - 1} if none. */
  public long lastSequence() {
    return lastSequence;
  }

  public boolean sealed() {
    return sealed;
  }

  /**
   * Whether this is a hollow segment: its records were reclaimed by the space reclamation, so none
   * of its sequences can be read, and it has no block.
   */
  public boolean reclaimed() {
    return reclaimed;
  }

  /** The segment's zstd dictionary once read (or written), else null. */
  public RecordDictionary dictionary() {
    return dictionary;
  }

  /**
   * The segment's dictionary {@code id}: read from its first block (checksum verified) the first
   * time, then kept.
   *
   * @throws io.docstore.io.CorruptionException if the first block is damaged or another dictionary
   */
  @Override
  public RecordDictionary get(int id) throws IOException {
    RecordDictionary d = dictionary;
    if (d == null || d.id() != id) {
      d = ZstdRecords.load(channel, path, id);
      dictionary = d;
    }
    return d;
  }

  /** Keeps the segment's dictionary for readers (it never changes while the segment exists). */
  public void dictionary(RecordDictionary d) {
    this.dictionary = d;
  }

  void published(long blocksEnd, long lastSequence) {
    this.lastSequence = lastSequence;
    this.blocksEnd = blocksEnd;
  }

  void markSealed(Path sealedPath) {
    this.path = sealedPath;
    this.sealed = true;
  }

  public void close() throws IOException {
    mapped.release();
    channel.close();
  }
}
