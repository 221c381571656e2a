package io.docstore.queue.follow;

import io.docstore.queue.QueueRecord;
import java.io.IOException;

/**
 * Receives verified records from a {@link QueueFollower}, strictly in sequence order, on the
 * follower's thread.
 */
@FunctionalInterface
public interface RecordSink {
  void accept(QueueRecord record) throws IOException;
}
