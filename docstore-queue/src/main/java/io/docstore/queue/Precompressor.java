package io.docstore.queue;

import io.docstore.io.ParallelChunks;
import io.docstore.queue.block.RecordDictionary;
import io.docstore.queue.block.StoredBody;
import java.util.List;

/**
 * Compresses bodies ahead of their append, outside the queue writer's lock: on the calling thread,
 * helped for a batch of {@value #PARALLEL_FROM} bodies or more by helper threads ({@value
 * #THREAD}-N, one per core but the caller's). What it returns is only a head start: a null, or a
 * body compressed with a dictionary the writer no longer uses, is compressed at the append as
 * before; so is a body whose compression here failed.
 *
 * <p>Thread-safe.
 */
final class Precompressor implements AutoCloseable {

  static final String THREAD = "docstore-compress";

  /** Batches at least this large are shared with the helpers. */
  static final int PARALLEL_FROM = 32;

  private final ParallelChunks chunks;

  /**
   * @param helpers threads that help the caller with large batches (0: the caller alone)
   */
  Precompressor(int helpers) {
    this.chunks = new ParallelChunks(THREAD, helpers, PARALLEL_FROM, 16);
  }

  /**
   * Each body of {@code bodies} as {@code d}'s records store it ({@link
   * RecordDictionary#compress}), at the same index; a null body, or any body when {@code d} is
   * null, gives null.
   */
  StoredBody[] compress(RecordDictionary d, List<byte[]> bodies) {
    StoredBody[] out = new StoredBody[bodies.size()];
    if (d == null) {
      return out;
    }
    chunks.run(
        out.length,
        i -> {
          byte[] b = bodies.get(i);
          if (b != null) {
            try {
              out[i] = d.compress(b);
            } catch (RuntimeException e) {
              // left null: compressed at the append, where a real problem shows with its context
            }
          }
        });
    return out;
  }

  @Override
  public void close() {
    chunks.close();
  }
}
