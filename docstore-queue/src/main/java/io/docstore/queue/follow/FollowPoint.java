package io.docstore.queue.follow;

import static io.docstore.queue.follow.FollowPointFormat.*;

import io.docstore.io.AtomicFiles;
import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.io.UnsupportedFormatException;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.replication.BlockChain;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Where a follower stands: the next block to ingest is at {@code offset} of {@code segment} and
 * starts with {@code nextSequence}; {@code chain} is the {@link BlockChain} over the segment's
 * blocks before {@code offset}. Everything before it was verified and handed on.
 *
 * <p>{@code nextSequence} 0 means "not known yet": take it from the segment's header.
 */
public record FollowPoint(long segment, long offset, long nextSequence, int chain) {

  /** The start of a queue: nothing ingested. */
  public static final FollowPoint START = new FollowPoint(1, SegmentFormat.HEADER_LENGTH, 0, BlockChain.START);

  /** Records before {@code nextSequence} were handed on; 0 if none. */
  public long ingestedThrough() {
    return Math.max(0, nextSequence - 1);
  }

  public byte[] encode(long savedAtMillis) {
    ByteBuffer b = ByteBuffer.allocate(LENGTH);
    b.putInt(MAGIC, MAGIC_VALUE);
    b.put(NAME, FORMAT_NAME_BYTES);
    b.putInt(FORMAT_VERSION, VERSION);
    b.putLong(SEGMENT, segment);
    b.putLong(OFFSET, offset);
    b.putLong(NEXT_SEQUENCE, nextSequence);
    b.putInt(CHAIN, chain);
    b.putLong(SAVED_AT, savedAtMillis);
    b.putInt(CRC, Checksums.crc32c(b.array(), 0, CRC));
    return b.array();
  }

  public static FollowPoint decode(Path file, byte[] bytes) throws IOException {
    if (bytes.length != LENGTH) {
      throw new CorruptionException(file, 0, "ingestion point is " + bytes.length + " bytes, expected " + LENGTH);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    int expected = b.getInt(CRC);
    int actual = Checksums.crc32c(bytes, 0, CRC);
    if (expected != actual) {
      throw CorruptionException.checksum(file, CRC, "ingestion point", expected, actual);
    }
    if (b.getInt(MAGIC) != MAGIC_VALUE
        || !Arrays.equals(Arrays.copyOfRange(bytes, NAME, NAME + NAME_LENGTH), FORMAT_NAME_BYTES)) {
      throw new CorruptionException(file, 0, "not an ingestion point (bad magic or format name)");
    }
    int version = b.getInt(FORMAT_VERSION);
    if (version != VERSION) {
      throw new UnsupportedFormatException(file, FORMAT_NAME, version, VERSION, VERSION);
    }
    FollowPoint p = new FollowPoint(b.getLong(SEGMENT), b.getLong(OFFSET), b.getLong(NEXT_SEQUENCE), b.getInt(CHAIN));
    if (p.segment < 1 || p.offset < SegmentFormat.HEADER_LENGTH || p.nextSequence < 0) {
      throw new CorruptionException(file, 0, "ingestion point passes its checksum but is impossible: " + p);
    }
    return p;
  }

  /** The point stored in {@code file}, or {@link #START} if there is none. */
  public static FollowPoint read(FileSystem fs, Path file) throws IOException {
    if (!fs.exists(file)) {
      return START;
    }
    try (FileChannel ch = fs.openRead(file)) {
      ByteBuffer buf = ByteBuffer.allocate((int) Math.min(ch.size(), 1 << 16));
      while (buf.hasRemaining()) {
        if (ch.read(buf, buf.position()) < 0) {
          break;
        }
      }
      return decode(file, Arrays.copyOf(buf.array(), buf.position()));
    }
  }

  /** Replaces {@code file} atomically. */
  public void publish(FileSystem fs, Path file, long savedAtMillis) throws IOException {
    AtomicFiles.publish(fs, file, encode(savedAtMillis));
  }
}
