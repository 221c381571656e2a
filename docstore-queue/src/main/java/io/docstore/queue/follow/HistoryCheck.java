package io.docstore.queue.follow;

import static io.docstore.queue.format.SegmentFormat.HEADER_LENGTH;

import io.docstore.io.CorruptionException;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.block.DecodedBlock;
import io.docstore.queue.replication.BlockCrcChain;
import io.docstore.queue.replication.ReplicationManifest;
import java.io.IOException;

/**
 * Whether the history a replica ingested is still a prefix of its primary's: the checks of {@link
 * QueueFollower} that tell a primary that lost or rewrote what the replica holds (a {@link
 * QueueFollower.Divergence}, answered by a re-sync) from a damaged copy (re-fetched). Not
 * thread-safe: the follower's, on its thread.
 */
final class HistoryCheck {

  private final BlockReader reader;

  HistoryCheck(BlockReader reader) {
    this.reader = reader;
  }

  /**
   * The segment a divergence found at point {@code p} is reported at: at a segment's header the
   * previous segment already differed (its end is not where this one starts).
   */
  static long segmentOf(FollowPoint p) {
    return p.offset() == HEADER_LENGTH ? Math.max(1, p.segment() - 1) : p.segment();
  }

  /** The block chain after a run of blocks, and the sequence that follows them. */
  private record ChainEnd(int chain, long next) {}

  /**
   * The manifest's segment is the point's: the divergence the point and the manifest alone show
   * (the primary declares less than was ingested, or, at the same offset, another chain or
   * sequence), or null.
   */
  static QueueFollower.Divergence behind(FollowPoint p, ReplicationManifest m) {
    String why = null;
    if (p.offset() > m.durableLength()) {
      why = "the primary declares only " + m.durableLength() + " bytes of it durable";
    } else if (p.offset() == m.durableLength()
        && p.nextSequence() != 0
        && (p.chain() != m.chain() || p.nextSequence() != m.lastSequence() + 1)) {
      why =
          "same offset, but the primary's chain "
              + Integer.toHexString(m.chain())
              + " ends at sequence "
              + m.lastSequence()
              + " and this replica's chain "
              + Integer.toHexString(p.chain())
              + " at "
              + p.ingestedThrough();
    }
    if (why == null) {
      return null;
    }
    // At the header the previous segment already differed: its end is not where this one starts.
    long segment = segmentOf(p);
    return new QueueFollower.Divergence(
        segment,
        p.offset(),
        "this replica ingested segment "
            + p.segment()
            + " up to offset "
            + p.offset()
            + " (sequence "
            + p.ingestedThrough()
            + "); "
            + why);
  }

  /**
   * After ingesting the manifest's segment failed: whether the copy agrees with the manifest from
   * its header (every block verifies and chains to the manifest's value), and this replica's point
   * is not where the copy has it (not a block boundary, or another chain or sequence there). Then
   * the copy is the primary's and the history this replica ingested differs from it; otherwise the
   * copy is damaged (null).
   */
  QueueFollower.Divergence divergedBefore(SegmentCopy copy, ReplicationManifest m, FollowPoint p)
      throws IOException {
    ChainEnd atEnd = walk(copy, m.baseSequence(), m.durableLength());
    if (atEnd == null || atEnd.chain() != m.chain() || atEnd.next() != m.lastSequence() + 1) {
      return null; // the copy itself does not match the manifest: damage, re-fetched
    }
    ChainEnd atPoint = walk(copy, m.baseSequence(), p.offset());
    if (atPoint != null
        && atPoint.chain() == p.chain()
        && (p.nextSequence() == 0 || atPoint.next() == p.nextSequence())) {
      return null;
    }
    long segment = segmentOf(p);
    return new QueueFollower.Divergence(
        segment,
        p.offset(),
        "the primary's copy verifies against its manifest but "
            + (atPoint == null
                ? "has no block boundary at offset " + p.offset()
                : "chains to "
                    + Integer.toHexString(atPoint.chain())
                    + " before sequence "
                    + atPoint.next()
                    + " at offset "
                    + p.offset()
                    + " where this replica has "
                    + Integer.toHexString(p.chain())
                    + " before sequence "
                    + p.nextSequence()));
  }

  /**
   * The block chain and the next sequence after the copy's blocks in [header, end), starting at
   * {@code baseSequence}; null if a block there fails, the sequences do not follow, or {@code end}
   * is not a block boundary.
   */
  private ChainEnd walk(SegmentCopy copy, long baseSequence, long end) throws IOException {
    long pos = HEADER_LENGTH;
    int chain = BlockCrcChain.START;
    long next = baseSequence;
    DecodedBlock scratch = new DecodedBlock();
    while (pos < end) {
      try {
        reader.read(copy.channel(), copy.path(), pos, end, scratch);
      } catch (CorruptionException e) {
        return null;
      }
      if (scratch.firstSequence() != next) {
        return null;
      }
      chain = BlockCrcChain.next(chain, scratch.crc());
      next = scratch.lastSequence() + 1;
      pos = scratch.end();
    }
    return pos == end ? new ChainEnd(chain, next) : null;
  }
}
