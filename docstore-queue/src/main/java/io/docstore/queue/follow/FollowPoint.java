package io.docstore.queue.follow;

import static io.docstore.queue.follow.FollowPointFormat.*;

import io.docstore.io.AtomicFiles;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.replication.BlockCrcChain;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Where a follower stands: the next block to ingest is at {@code offset} of {@code segment} and
 * starts with {@code nextSequence}; {@code chain} is the {@link BlockCrcChain} over the segment's
 * blocks before {@code offset}. Everything before it was verified and handed on.
 *
 * <p>{@code nextSequence} 0 means "not known yet": take it from the segment's header.
 */
public record FollowPoint(long segment, long offset, long nextSequence, int chain) {

  /** The start of a queue: nothing ingested. */
  public static final FollowPoint START =
      new FollowPoint(1, SegmentFormat.HEADER_LENGTH, 0, BlockCrcChain.START);

  /** Records before {@code nextSequence} were handed on; 0 if none. */
  public long ingestedThrough() {
    return Math.max(0, nextSequence - 1);
  }

  public byte[] encode(long savedAtMillis) {
    ByteBuffer b = LAYOUT.begin();
    b.putLong(SEGMENT, segment);
    b.putLong(OFFSET, offset);
    b.putLong(NEXT_SEQUENCE, nextSequence);
    b.putInt(CHAIN, chain);
    b.putLong(SAVED_AT, savedAtMillis);
    return LAYOUT.seal(b);
  }

  public static FollowPoint decode(Path file, byte[] bytes) throws IOException {
    ByteBuffer b = LAYOUT.check(file, bytes);
    FollowPoint p =
        new FollowPoint(
            b.getLong(SEGMENT), b.getLong(OFFSET), b.getLong(NEXT_SEQUENCE), b.getInt(CHAIN));
    if (p.segment < 1 || p.offset < SegmentFormat.HEADER_LENGTH || p.nextSequence < 0) {
      throw new CorruptionException(
          file, 0, "ingestion point passes its checksum but is impossible: " + p);
    }
    return p;
  }

  /** The point stored in {@code file}, or {@link #START} if there is none. */
  public static FollowPoint read(FileSystem fs, Path file) throws IOException {
    byte[] bytes = AtomicFiles.readFixed(fs, file, LENGTH, LAYOUT.what());
    return bytes == null ? START : decode(file, bytes);
  }

  /** Replaces {@code file} atomically. */
  public void publish(FileSystem fs, Path file, long savedAtMillis) throws IOException {
    AtomicFiles.publish(fs, file, encode(savedAtMillis));
  }
}
